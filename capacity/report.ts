/**
 * The capacity model's subjects and hot items built from a bench run, and the table it prints: as
 * text for `npm run capacity`, and as the Markdown block docs/capacity.md holds between its markers.
 */

import { table } from '../bench/report';
import { type AwsLimitsFile, cognitoQuota } from './aws';
import { SIGN_IN_TABLES, type SignInSizes, signInUnits } from './flows';
import { type HotItem, type HotKeyRow, hotKeyRow, writeUnitsOf } from './hot-keys';
import { type BenchInputs, demandOf, OPERATIONS, type Operation, SIGN_IN_OUTCOMES, UNMEASURED } from './inputs';
import { type Assumptions, type AwsFigures, type CapacityRow, capacityRow, FULL_VCPU_MB, type StackSettings, type Subject } from './model';

const COGNITO_CATEGORY = { createUser: 'UserCreation', resetUserPassword: 'UserAccountRecovery', deleteUser: 'UserUpdate' } as const;

/** Every subject of the model: the three operations, each again with an Idempotency-Key, and the sign-in by outcome. */
export function subjectsOf(bench: BenchInputs, memoryOf: (op: Operation) => number, file: AwsLimitsFile): Subject[] {
  // The consumer writes one ledger item per deletion (the users table's stream, not the request).
  const withLedger = (demand: Subject['demand']): Subject['demand'] =>
    demand.ledgerWrites === 0
      ? demand
      : {
          ...demand,
          tables: {
            ...demand.tables,
            deletions: { writeUnits: demand.ledgerWrites * writeUnitsOf(bench.itemBytes.ledgerEntry), readUnits: 0 },
          },
        };
  const api = (op: Operation, name: string, footprint: BenchInputs['withIdempotencyKey'][Operation]): Subject => ({
    name,
    kind: 'api',
    memoryMb: memoryOf(op),
    demand: withLedger(demandOf(bench.operations[op], footprint)),
    cognito: cognitoQuota(file, COGNITO_CATEGORY[op]),
  });
  return [
    ...OPERATIONS.map((op) => api(op, op, bench.operations[op].footprint)),
    ...OPERATIONS.map((op) => api(op, `${op} + Idempotency-Key`, bench.withIdempotencyKey[op])),
    ...SIGN_IN_OUTCOMES.map(
      (outcome): Subject => ({
        name: `sign-in ${outcome}`,
        kind: 'sign-in',
        memoryMb: FULL_VCPU_MB,
        // Request units by AWS's rules from the requests the outcome sends (capacity/flows.ts), not DynamoDB Local's figures.
        demand: { ...demandOf(bench.signIn[outcome], bench.signIn[outcome].footprint), tables: signInTables(outcome, bench) },
        cognito: cognitoQuota(file, 'UserAuthentication'),
      }),
    ),
  ];
}

/** The sign-in's item sizes: the profile as measured, the state bounded by it (capacity/flows.ts). */
export const signInSizes = (bench: BenchInputs): SignInSizes => ({ profile: bench.itemBytes.profile, state: bench.itemBytes.profile });

/** A sign-in outcome's units by table, by AWS's rules, in the model's shape. */
export function signInTables(outcome: Parameters<typeof signInUnits>[0], bench: BenchInputs): Subject['demand']['tables'] {
  const units = signInUnits(outcome, signInSizes(bench));
  return Object.fromEntries(Object.entries(units).map(([table, u]) => [table, { writeUnits: u.writeUnits, readUnits: u.readUnits }]));
}

/** The items one owner, one key or one user can make hot. */
export function hotItemsOf(bench: BenchInputs, stack: StackSettings, aws: AwsFigures): HotItem[] {
  const bytes = bench.itemBytes;
  return [
    {
      item: "a user's profile (users table)",
      reachedBy: 'resetUserPassword or deleteUser of the same user, repeated',
      bytes: bytes.profile,
      access: 'write',
      methods: 2,
    },
    {
      item: "a user's sign-in state (sign-in table, the user's partition; sized as the profile, an upper bound)",
      reachedBy:
        'counted sign-in attempts at one user: a conditional write of the state each; from the sixth failure on, at most one per wait',
      bytes: bytes.profile,
      unitsPerRequest: signInTables('wrong', bench)[SIGN_IN_TABLES.state]?.writeUnits ?? 0,
      access: 'write',
      methods: 0,
    },
    {
      item: "a user's profile (users table) and sign-in state (sign-in table), each in the user's partition",
      reachedBy:
        'sign-in attempts at one user during a wait: one strongly consistent BatchGetItem of the profile and the state (one item on each table, each rounded up to 4 KB), no write',
      bytes: bytes.profile,
      unitsPerRequest: Math.max(...Object.values(signInTables('throttled', bench)).map((units) => units.readUnits)),
      access: 'strong-read',
      methods: 0,
    },
    {
      item: "the owner's own account (users table)",
      reachedBy: "a create, reset or delete of the owner's own e-mail (refused: a failed conditional write, sized by the item)",
      bytes: bytes.ownerAccount,
      access: 'write',
      methods: 3,
    },
    {
      item: "an API key's item (owners table)",
      reachedBy: "the key's look-up, a strongly consistent read per warm environment and cache period",
      bytes: bytes.apiKey,
      access: 'strong-read',
      methods: 3,
      cap: {
        rps: (3 * aws.lambdaConcurrency) / stack.apiKeyCacheTtlSeconds,
        why: `one read per warm environment every ${stack.apiKeyCacheTtlSeconds} s: at most ${aws.lambdaConcurrency} environments of each of 3 functions`,
      },
    },
    {
      item: 'an idempotency record (idempotency table)',
      reachedBy: 'retries with the same Idempotency-Key (each a conditional put refused by the record, sized by it)',
      bytes: bytes.idempotencyRecord,
      access: 'write',
      methods: 3,
    },
  ];
}

export interface Model {
  readonly stack: StackSettings;
  readonly rows: CapacityRow[];
  readonly hot: HotKeyRow[];
}

export function runModel(
  bench: BenchInputs,
  stack: StackSettings,
  memoryOf: (op: Operation) => number,
  file: AwsLimitsFile,
  figures: { aws: AwsFigures; assumed: Assumptions },
): Model {
  const { aws, assumed } = figures;
  return {
    stack,
    rows: subjectsOf(bench, memoryOf, file).map((subject) => capacityRow(subject, stack, aws, assumed)),
    hot: hotItemsOf(bench, stack, aws).map((item) => hotKeyRow(item, stack, aws)),
  };
}

/** Requests a second as printed: whole numbers with separators from 100 up, one decimal below. */
export const formatRps = (rps: number) =>
  rps >= 100 ? Math.floor(rps).toLocaleString('en-US') : (Math.floor(rps * 10) / 10).toLocaleString('en-US');
export const formatUsd = (usd: number) => `$${usd.toFixed(2)}`;
const basisMark = { setting: ' (setting)', documented: '', assumption: ' (assumption)' } as const;

/** The model as Markdown tables (padded as the formatter lays them out): capacity per request, then hot keys. */
export function renderMarkdown(model: Model): string {
  const capacity = table(
    [
      'request',
      `sustains, ${model.stack.stage} as deployed (req/s)`,
      'first limit',
      'beyond the stack settings (req/s)',
      'first limit there',
      'lifecycle events keep up to (req/s)',
      'p50 ms',
      `$ per million at the ${model.stack.stage} rate`,
      '$ per million at the ceiling',
      'one client address (req/s)',
      'Cognito default (req/s)',
      'Cognito bought at the ceiling ($ per million)',
    ],
    model.rows.map((r) => [
      r.subject.name,
      formatRps(r.deployed.rps),
      `${r.deployed.limit.label}${basisMark[r.deployed.limit.basis]}`,
      formatRps(r.ceiling.rps),
      `${r.ceiling.limit.label}${basisMark[r.ceiling.limit.basis]}`,
      r.events ? `${formatRps(r.events.rps)}: ${r.events.label}${basisMark[r.events.basis]}` : 'no events',
      r.latencyMs.toFixed(1),
      formatUsd(r.deployed.cost.total),
      formatUsd(r.ceiling.cost.total),
      r.subject.kind === 'api' ? (r.oneClientRps === null ? 'no WAF' : formatRps(r.oneClientRps)) : 'the tool decides',
      `${r.subject.cognito.rps} (${r.subject.cognito.category})`,
      formatUsd(r.cognitoAtCeiling),
    ]),
  );
  const hot = table(
    ['item', 'reached by', 'bytes', 'units per request', 'partition serves (req/s)', 'one key sends (req/s)', 'key limit below it'],
    model.hot.map((h) => [
      h.hot.item,
      h.hot.reachedBy,
      h.hot.bytes ?? 'measured per request',
      h.units,
      formatRps(h.partitionRps),
      h.oneKeyRps === null ? 'no key in front' : formatRps(h.oneKeyRps),
      h.keyBelowPartition === null ? 'n/a' : h.keyBelowPartition ? 'yes' : '**no**',
    ]),
  );
  return `${capacity}\n\n${hot}`;
}

/**
 * What two strongly consistent reads per attempt allow on their own (every attempt reads the profile and
 * the state): the sign-in rows may not exceed it. Returns the bound and the rows, and throws naming a row above it.
 */
export function signInReadBound(model: Model, aws: AwsFigures): { bound: number; rows: { name: string; rps: number }[] } {
  const reads = 2;
  const bound = Math.min(aws.dynamoNewTableRead / reads, aws.dynamoTableRead / reads);
  const rows = model.rows.filter((r) => r.subject.kind === 'sign-in').map((r) => ({ name: r.subject.name, rps: r.ceiling.rps }));
  const above = rows.find((r) => r.rps > bound);
  if (above)
    throw new Error(
      `${above.name} sustains ${formatRps(above.rps)} a second, above the ${formatRps(bound)} that two strongly consistent reads per attempt allow`,
    );
  return { bound, rows };
}

/** The model as `npm run capacity` prints it: the Markdown tables, then every limit of each request in order. */
export function renderText(model: Model, aws?: AwsFigures): string {
  const limits = model.rows.map(
    (r) =>
      `${r.subject.name}: ${r.limits.map((l) => `${formatRps(l.rps)} ${l.label}${basisMark[l.basis]}${l.effect === 'delays' ? ' (delays events)' : ''}`).join('; ')}; ${formatRps(r.environmentsAtCeiling)} Lambda environments busy at the ceiling; cost at the ceiling ${Object.entries(
        r.ceiling.cost.parts,
      )
        .map(([part, usd]) => `${part} ${usd.toFixed(3)}`)
        .join(', ')}`,
  );
  const signIn = aws ? signInReadBound(model, aws) : undefined;
  const signInLine = signIn
    ? `\nSign-in rows, request units by AWS's rules (capacity/flows.ts): ${signIn.rows.map((r) => `${r.name} ${formatRps(r.rps)}`).join(', ')} a second; none above the ${formatRps(signIn.bound)} that two strongly consistent reads per attempt allow.\n`
    : '';
  const unmeasured =
    UNMEASURED.length > 0
      ? `\nNot in the model (the bench does not measure them yet, bench/operations.ts): ${UNMEASURED.join(', ')}.\n`
      : '';
  return `${renderMarkdown(model)}\n${unmeasured}\nEvery limit, lowest first (requests/s of that request alone):\n${limits.map((line) => `- ${line}`).join('\n')}\n${signInLine}`;
}

/** The block docs/capacity.md holds: where the figures come from, then the tables. */
export function docBlock(model: Model, benchDate: string, file: AwsLimitsFile): string {
  return `From the bench run of ${benchDate} (bench/RESULTS.json), AWS's figures as read on ${file.read} for ${file.region} (capacity/aws-limits.json), and the ${model.stack.stage} stage as lib/stage-config.ts sets it.\n\n${renderMarkdown(model)}`;
}
