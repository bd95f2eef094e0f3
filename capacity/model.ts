/**
 * The capacity model: per request kind, every limit as the requests per second of that kind alone it
 * allows (the lowest is the limit met first), the cost per million by AWS's list prices, and Cognito's
 * quota for the same work beside it. It reads only what does not vary run to run: the request units
 * each kind consumes by AWS's rules (capacity/flows.ts, capacity/request-units.ts), what the stack
 * sets (capacity/stack.ts) and AWS's limits and prices (capacity/aws-limits.json). Lambda's duration
 * varies with the host and the code, so the cost of a millisecond of it is given beside the rest, not
 * guessed into it.
 */

import { OPERATIONS, type OperationName } from '#contract/operations';
import { PUBLISH_BATCH } from '#events/lifecycle-events';
import { markdownTable } from '../codegen/markdown-table';
import { type AwsLimitsFile, figure } from './aws';
import { ITEM_BOUND_BYTES, operationRequests, SIGN_IN_FLOWS, type SignInFlow, signInRequests } from './flows';
import { type Units, unitsByTable } from './request-units';
import type { StackSettings } from './stack';

export interface RequestKind {
  readonly name: string;
  /** `api`: WAF, API Gateway and the operation's function; `sign-in`: the tool's process, straight to DynamoDB. */
  readonly path: 'api' | 'sign-in';
  readonly units: Readonly<Record<string, Units>>;
  /** Lifecycle events (each a stream record that reaches the consumer). */
  readonly events: number;
  /** Cognito's quota category for the same work. */
  readonly cognito: 'UserCreation' | 'UserAccountRecovery' | 'UserUpdate' | 'UserAuthentication';
  /** The function's memory (api). */
  readonly memoryMb?: number;
}

export interface Limit {
  readonly label: string;
  readonly rps: number;
}

export interface Row {
  readonly kind: string;
  readonly first: Limit;
  readonly limits: readonly Limit[];
  /** US dollars per million requests, Lambda's duration left out. */
  readonly usdPerMillion: number;
  /** US dollars per million requests for each millisecond of the function's duration (api). */
  readonly usdPerMillionPerMs?: number;
  readonly cognitoRps: number;
  readonly cognitoCategory: string;
}

/** Each operation's Cognito category; an operation without one is left out of the table until it is priced. */
const COGNITO: Partial<Record<OperationName, RequestKind['cognito']>> = {
  createUser: 'UserCreation',
  resetUserPassword: 'UserAccountRecovery',
  deleteUser: 'UserUpdate',
};

/** The request kinds: each operation and each sign-in outcome priced. */
export function requestKinds(memoryOf: (operation: OperationName) => number): RequestKind[] {
  const sizes = { profile: ITEM_BOUND_BYTES, state: ITEM_BOUND_BYTES };
  return [
    ...OPERATIONS.flatMap((operation) => {
      const requests = operationRequests(operation);
      const cognito = COGNITO[operation];
      if (requests === undefined || cognito === undefined) return [];
      return [{ name: operation, path: 'api' as const, units: unitsByTable(requests), events: 1, cognito, memoryMb: memoryOf(operation) }];
    }),
    ...SIGN_IN_FLOWS.map((flow: SignInFlow) => ({
      name: `sign-in ${flow}`,
      path: 'sign-in' as const,
      units: unitsByTable(signInRequests(flow, sizes)),
      events: 0,
      cognito: 'UserAuthentication' as const,
    })),
  ];
}

/** Every limit the kind meets, as its requests per second alone; the lowest first. */
export function limitsOf(kind: RequestKind, stack: StackSettings, file: AwsLimitsFile): Limit[] {
  const aws = (id: string) => figure(file, id);
  const limits: Limit[] = [];
  if (kind.path === 'api') {
    limits.push({ label: `API Gateway stage throttle (${stack.stage}, each method)`, rps: stack.throttleRateLimit });
    limits.push({ label: "API Gateway's account throttle", rps: aws('apiGatewayAccountRps') });
    limits.push({
      label: 'Lambda invocations (10 a second per unit of concurrency)',
      rps: aws('lambdaConcurrency') * aws('lambdaRequestsPerEnvironment'),
    });
  }
  for (const [table, units] of Object.entries(kind.units)) {
    const bound = (per: number, used: number) => (used > 0 ? per / used : Number.POSITIVE_INFINITY);
    const rps = Math.min(bound(aws('dynamoNewTableWrite'), units.writeUnits), bound(aws('dynamoNewTableRead'), units.readUnits));
    limits.push({ label: `DynamoDB ${table} table, new on-demand`, rps });
  }
  // The consumer publishes the events PUBLISH_BATCH to a PutEvents call.
  if (kind.events > 0)
    limits.push({ label: "EventBridge's PutEvents quota", rps: (aws('eventBridgePutEventsRps') * PUBLISH_BATCH) / kind.events });
  return limits.sort((a, b) => a.rps - b.rps);
}

/** US dollars per million requests of the kind: every per-request charge at list price (API Gateway's first tier). */
export function usdPerMillion(kind: RequestKind, stack: StackSettings, file: AwsLimitsFile): number {
  const aws = (id: string) => figure(file, id);
  let usd = 0;
  for (const units of Object.values(kind.units))
    usd += units.writeUnits * aws('dynamoUsdPerMillionWrites') + units.readUnits * aws('dynamoUsdPerMillionReads');
  usd += kind.events * aws('eventBridgeUsdPerMillionEvents');
  if (kind.path === 'api') {
    usd += aws('apiGatewayRestUsdPerMillion') + aws('lambdaUsdPerMillionRequests');
    if (stack.waf) usd += aws('wafUsdPerMillion');
  }
  return usd;
}

export function capacityRow(kind: RequestKind, stack: StackSettings, file: AwsLimitsFile): Row {
  const limits = limitsOf(kind, stack, file);
  return {
    kind: kind.name,
    first: limits[0]!,
    limits,
    usdPerMillion: usdPerMillion(kind, stack, file),
    ...(kind.memoryMb !== undefined && {
      usdPerMillionPerMs: ((figure(file, 'lambdaArmUsdPerGbSecond') * kind.memoryMb) / 1024 / 1000) * 1e6,
    }),
    cognitoRps: figure(file, `cognito${kind.cognito}`),
    cognitoCategory: kind.cognito,
  };
}

const rps = (value: number) => Math.floor(value).toLocaleString('en-US');

/** The generated table of docs/capacity.md, its columns padded as the formatter lays them out. */
export function capacityTable(rows: readonly Row[]): string {
  return markdownTable(
    ['request', 'limit met first', 'requests/s', 'cost per million', 'Cognito quota (requests/s)'],
    rows.map((row) => [
      row.kind,
      row.first.label,
      rps(row.first.rps),
      `$${row.usdPerMillion.toFixed(2)}${row.usdPerMillionPerMs === undefined ? '' : ` + $${row.usdPerMillionPerMs.toFixed(4)} per ms`}`,
      `${row.cognitoCategory} ${rps(row.cognitoRps)}`,
    ]),
  );
}
