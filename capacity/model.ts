/**
 * The capacity model: pure arithmetic over what one request costs (measured by the bench), what the
 * stack sets (lib/) and what AWS documents (capacity/aws-limits.json). No I/O: scripts/capacity.ts
 * gathers the inputs, test/unit/capacity-model.test.ts checks the arithmetic on fixed ones.
 *
 * For each subject (an operation, an operation sent with an Idempotency-Key, a sign-in outcome) it
 * lists every limit as the requests per second of that subject alone that the limit allows, the
 * lowest first: the first limit met. Latency is the function's duration at its memory (the sign-in's
 * CPU and wait, in the tool); cost per million requests is at a given rate, since fixed monthly
 * costs and X-Ray's one-trace-a-second reservoir spread over the month's requests.
 */

/** Where a limit comes from: a setting of the stack (lib/), AWS's documentation, or an assumption named in aws-limits.json. */
export type Basis = 'setting' | 'documented' | 'assumption';

/** Lambda's memory for one full vCPU; below it, CPU in proportion (bench/lambda-memory.ts uses the same). */
export const FULL_VCPU_MB = 1769;

export interface TableUnits {
  /** Write request units per request on this table. */
  readonly writeUnits: number;
  /** Read request units per request on this table. */
  readonly readUnits: number;
}

/** What one request costs, as the bench measures it. */
export interface Demand {
  /** CPU on the critical path at one full vCPU (the hash and the rest), ms. */
  readonly cpuMs: number;
  /** Wall clock spent waiting (DynamoDB's answers), ms. */
  readonly waitMs: number;
  /** Request units by table. */
  readonly tables: Readonly<Record<string, TableUnits>>;
  /** Records the users table's stream gets that pass the consumer's filter (so invoke it). */
  readonly consumerRecords: number;
  /** Lifecycle events published to EventBridge. */
  readonly events: number;
  /** Deletion-ledger items the consumer writes (before the chunk's PutEvents). */
  readonly ledgerWrites: number;
}

export interface Subject {
  /** As printed: `createUser`, `createUser + Idempotency-Key`, `sign-in ok`. */
  readonly name: string;
  /** `api`: WAF, API Gateway and a Lambda function; `sign-in`: the tool's own process, straight to DynamoDB. */
  readonly kind: 'api' | 'sign-in';
  /** The function's memory (api), or the size the tool's compute is priced at (sign-in). */
  readonly memoryMb: number;
  readonly demand: Demand;
  /** The Cognito quota category the same work counts against, for comparison. */
  readonly cognito: { readonly category: string; readonly rps: number };
}

/** What the stack sets for one stage (lib/stage-config.ts, lib/constructs/lifecycle-events.ts). */
export interface StackSettings {
  readonly stage: string;
  /** API Gateway's stage throttle, applied to each method separately (requests/s). */
  readonly throttleRateLimit: number;
  readonly throttleBurstLimit: number;
  readonly waf: boolean;
  /** Rules in the web ACL (each billed monthly). */
  readonly wafRules: number;
  readonly wafKeyLimit: number;
  readonly wafIpLimit: number;
  readonly wafWindowSeconds: number;
  /** How long a warm function trusts a looked-up API key (one key read per environment per period). */
  readonly apiKeyCacheTtlSeconds: number;
  /** X-Ray's share of requests traced after the first each second. */
  readonly tracingSampleRate: number;
  /** Metric filters on the access log (lib/constructs/monitoring.ts): each a custom metric billed by the month. */
  readonly metricFilters: number;
  readonly consumer: {
    readonly batchSize: number;
    readonly maxBatchingWindowSeconds: number;
    readonly parallelizationFactor: number;
    readonly memoryMb: number;
    /** Events per PutEvents call (functions/shared/events/lifecycle-events.ts). */
    readonly publishBatch: number;
  };
}

/** AWS's limits and prices by id (capacity/aws-limits.json), and the model's assumptions. */
export type AwsFigures = Readonly<Record<AwsLimitId, number>>;
export type AwsLimitId =
  | 'lambdaConcurrency'
  | 'lambdaScalingPer10s'
  | 'lambdaRequestsPerEnvironment'
  | 'apiGatewayAccountRps'
  | 'dynamoPartitionWrite'
  | 'dynamoPartitionRead'
  | 'dynamoTableWrite'
  | 'dynamoTableRead'
  | 'dynamoNewTableWrite'
  | 'dynamoNewTableRead'
  | 'dynamoWriteUnitBytes'
  | 'dynamoReadUnitBytes'
  | 'eventBridgePutEventsRps'
  | 'lambdaArmUsdPerGbSecond'
  | 'lambdaUsdPerMillionRequests'
  | 'apiGatewayRestUsdPerMillion'
  | 'apiGatewayRestUsdPerMillionNext667M'
  | 'apiGatewayRestUsdPerMillionNext19B'
  | 'apiGatewayRestUsdPerMillionOver20B'
  | 'cloudwatchLogsUsdPerGb'
  | 'cloudwatchCustomMetricUsdMonth'
  | 'cognitoProvisionedUsdPerRpsMonth'
  | 'wafUsdPerMillion'
  | 'wafUsdPerWebAclMonth'
  | 'wafUsdPerRuleMonth'
  | 'xrayUsdPerTrace'
  | 'eventBridgeUsdPerMillionEvents'
  | 'dynamoUsdPerMillionWrites'
  | 'dynamoUsdPerMillionReads';
export type Assumptions = Readonly<
  Record<'putEventsRoundTripMs' | 'ledgerPutRoundTripMs' | 'streamShards' | 'secondsPerMonth' | 'logBytesPerRequest', number>
>;

export interface Limit {
  readonly id: string;
  readonly label: string;
  readonly basis: Basis;
  /**
   * What meeting it does: `refuses` requests (a 429 or a throttled call), or `delays` the lifecycle
   * events only (the stream keeps the records 24 hours; requests still succeed).
   */
  readonly effect: 'refuses' | 'delays';
  /** Requests per second of this subject alone that the limit allows. */
  readonly rps: number;
}

/** A function's duration at `memoryMb`: CPU in proportion to memory up to one full vCPU, then the wait. */
export function lambdaDurationMs(demand: Pick<Demand, 'cpuMs' | 'waitMs'>, memoryMb: number): number {
  const share = Math.min(1, memoryMb / FULL_VCPU_MB);
  return demand.cpuMs / share + demand.waitMs;
}

/** Events per second one shard lane of the consumer publishes: a chunk of `publishBatch` per round trip. */
function consumerLaneEventsPerSecond(demand: Demand, stack: StackSettings, assumed: Assumptions): number {
  const chunkMs = assumed.putEventsRoundTripMs + (demand.ledgerWrites > 0 ? assumed.ledgerPutRoundTripMs : 0);
  return (stack.consumer.publishBatch * 1000) / chunkMs;
}

/** Every limit on `subject`, as requests per second of it alone, lowest first. */
export function limitsOf(subject: Subject, stack: StackSettings, aws: AwsFigures, assumed: Assumptions): Limit[] {
  const d = subject.demand;
  const limits: Limit[] = [];
  if (subject.kind === 'api') {
    limits.push({
      id: 'stage-throttle',
      label: `API Gateway stage throttle (${stack.stage}, each method)`,
      basis: 'setting',
      effect: 'refuses',
      rps: stack.throttleRateLimit,
    });
    limits.push({
      id: 'api-gateway-account',
      label: "API Gateway's account throttle",
      basis: 'documented',
      effect: 'refuses',
      rps: aws.apiGatewayAccountRps,
    });
    limits.push({
      id: 'lambda-concurrency',
      label: 'Lambda concurrency (account and Region)',
      basis: 'documented',
      effect: 'refuses',
      rps: (aws.lambdaConcurrency * 1000) / lambdaDurationMs(d, subject.memoryMb),
    });
    limits.push({
      id: 'lambda-invocations',
      label: 'Lambda invocations (10 a second per unit of concurrency)',
      basis: 'documented',
      effect: 'refuses',
      rps: aws.lambdaConcurrency * aws.lambdaRequestsPerEnvironment,
    });
  }
  for (const [table, { writeUnits: w, readUnits: r }] of Object.entries(d.tables)) {
    if (w <= 0 && r <= 0) continue;
    limits.push({
      id: `dynamodb-new-table:${table}`,
      label: `DynamoDB ${table} table, new on-demand (${aws.dynamoNewTableWrite.toLocaleString('en-US')} writes or ${aws.dynamoNewTableRead.toLocaleString('en-US')} reads a second)`,
      basis: 'documented',
      effect: 'refuses',
      rps: 1 / (w / aws.dynamoNewTableWrite + r / aws.dynamoNewTableRead),
    });
    limits.push({
      id: `dynamodb-table-quota:${table}`,
      label: `DynamoDB ${table} table quota (on-demand)`,
      basis: 'documented',
      effect: 'refuses',
      rps: Math.min(w > 0 ? aws.dynamoTableWrite / w : Infinity, r > 0 ? aws.dynamoTableRead / r : Infinity),
    });
  }
  if (d.events > 0) {
    const lanes = assumed.streamShards * stack.consumer.parallelizationFactor;
    limits.push({
      id: 'stream-consumer',
      label: `stream consumer (${lanes} shard lane${lanes === 1 ? '' : 's'}, assumed round trips)`,
      basis: 'assumption',
      effect: 'delays',
      rps: (lanes * consumerLaneEventsPerSecond(d, stack, assumed)) / d.events,
    });
    limits.push({
      id: 'eventbridge-put-events',
      label: "EventBridge's PutEvents quota",
      basis: 'documented',
      effect: 'delays',
      rps: (aws.eventBridgePutEventsRps * stack.consumer.publishBatch) / d.events,
    });
  }
  return limits.sort((a, b) => a.rps - b.rps);
}

export interface Cost {
  readonly total: number;
  /** USD per million requests, by part. */
  readonly parts: Readonly<Record<string, number>>;
}

/** USD per million requests of `subject` at `rps`. */
export function costPerMillion(subject: Subject, stack: StackSettings, aws: AwsFigures, assumed: Assumptions, rps: number): Cost {
  const d = subject.demand;
  const millionsPerMonth = (rps * assumed.secondsPerMonth) / 1e6;
  const gbSeconds = (memoryMb: number, ms: number) => (memoryMb / 1024) * (Math.ceil(ms) / 1000);
  const parts: Record<string, number> = {};
  if (subject.kind === 'api') {
    parts.apiGateway = apiGatewayUsdPerMillion(aws, rps * assumed.secondsPerMonth);
    if (stack.waf) {
      const fixedMonthly = aws.wafUsdPerWebAclMonth + stack.wafRules * aws.wafUsdPerRuleMonth;
      parts.waf = aws.wafUsdPerMillion + fixedMonthly / millionsPerMonth;
    }
    parts.lambda =
      aws.lambdaUsdPerMillionRequests +
      1e6 * gbSeconds(subject.memoryMb, lambdaDurationMs(d, subject.memoryMb)) * aws.lambdaArmUsdPerGbSecond;
    // One trace a second (the sampling rule's reservoir), then the stage's share of the rest.
    const tracedShare = (Math.min(rps, 1) + Math.max(rps - 1, 0) * stack.tracingSampleRate) / rps;
    parts.xray = 1e6 * aws.xrayUsdPerTrace * tracedShare;
    // Two log lines or more a request (the access log's and the function's), and the access log's metric filters by the month.
    parts.logs = (1e6 * assumed.logBytesPerRequest * aws.cloudwatchLogsUsdPerGb) / 1024 ** 3;
    parts.metricFilters = (stack.metricFilters * aws.cloudwatchCustomMetricUsdMonth) / millionsPerMonth;
  } else {
    // The tool's own compute, priced as if it ran on Lambda arm64 at this size.
    parts.toolCompute = 1e6 * gbSeconds(subject.memoryMb, d.cpuMs + d.waitMs) * aws.lambdaArmUsdPerGbSecond;
  }
  parts.dynamodb = Object.values(d.tables).reduce(
    (sum, { writeUnits, readUnits }) => sum + writeUnits * aws.dynamoUsdPerMillionWrites + readUnits * aws.dynamoUsdPerMillionReads,
    0,
  );
  if (d.events > 0) parts.eventBridge = d.events * aws.eventBridgeUsdPerMillionEvents;
  if (d.consumerRecords > 0) parts.consumer = consumerCostPerMillion(d, stack, aws, assumed, rps);
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  return { total, parts };
}

/** API Gateway's REST price per million calls, averaged over a month of `callsPerMonth` through AWS's tiers. */
export function apiGatewayUsdPerMillion(aws: AwsFigures, callsPerMonth: number): number {
  const tiers: [number, number][] = [
    [333e6, aws.apiGatewayRestUsdPerMillion],
    [667e6, aws.apiGatewayRestUsdPerMillionNext667M],
    [19e9, aws.apiGatewayRestUsdPerMillionNext19B],
    [Infinity, aws.apiGatewayRestUsdPerMillionOver20B],
  ];
  if (callsPerMonth <= 0) return aws.apiGatewayRestUsdPerMillion;
  let left = callsPerMonth;
  let usd = 0;
  for (const [size, price] of tiers) {
    const here = Math.min(left, size);
    usd += (here / 1e6) * price;
    left -= here;
    if (left <= 0) break;
  }
  return usd / (callsPerMonth / 1e6);
}

/** What one client address may send a second through the WAF's per-IP rule (and the stage throttle); null without a WAF. */
export const oneClientRps = (stack: StackSettings): number | null =>
  stack.waf ? Math.min(stack.wafIpLimit / stack.wafWindowSeconds, stack.throttleRateLimit) : null;

/**
 * Buying Cognito the same rate: the RPS above the category's default at AWS's provisioned-capacity
 * price for a full month, per million requests at `rps` (Cognito's per-user prices not included).
 */
export function cognitoProvisionedPerMillion(subject: Subject, aws: AwsFigures, assumed: Assumptions, rps: number): number {
  const extra = Math.max(0, Math.ceil(rps - subject.cognito.rps));
  return (extra * aws.cognitoProvisionedUsdPerRpsMonth) / ((rps * assumed.secondsPerMonth) / 1e6);
}

/**
 * The stream consumer's invocations and duration per million requests at `rps`: a shard lane's batch
 * fills with what arrives in one batching window (at least one record, at most a batch), and each
 * invocation publishes its events a chunk per round trip (1 ms billed when it publishes nothing).
 */
function consumerCostPerMillion(d: Demand, stack: StackSettings, aws: AwsFigures, assumed: Assumptions, rps: number): number {
  const { batchSize, maxBatchingWindowSeconds, memoryMb, publishBatch } = stack.consumer;
  const lanes = assumed.streamShards * stack.consumer.parallelizationFactor;
  const fill = Math.min(batchSize, Math.max(1, (rps * d.consumerRecords * maxBatchingWindowSeconds) / lanes));
  const invocationsPerRequest = d.consumerRecords / fill;
  const eventsPerInvocation = (fill * d.events) / d.consumerRecords;
  const chunkMs = assumed.putEventsRoundTripMs + (d.ledgerWrites > 0 ? assumed.ledgerPutRoundTripMs : 0);
  const invocationMs = Math.max(1, Math.ceil(eventsPerInvocation / publishBatch) * chunkMs);
  const usdPerInvocation = aws.lambdaUsdPerMillionRequests / 1e6 + (memoryMb / 1024) * (invocationMs / 1000) * aws.lambdaArmUsdPerGbSecond;
  return 1e6 * invocationsPerRequest * usdPerInvocation;
}

export interface CapacityRow {
  readonly subject: Subject;
  readonly limits: readonly Limit[];
  /** The first limit that refuses requests, stack settings included: what the stage as deployed serves. */
  readonly deployed: { readonly rps: number; readonly limit: Limit; readonly cost: Cost };
  /** The first limit that refuses requests and is not a stack setting: what the stage serves with its throttle out of the way. */
  readonly ceiling: { readonly rps: number; readonly limit: Limit; readonly cost: Cost };
  /** The first limit that delays the lifecycle events, if any: the rate their delivery keeps up with. */
  readonly events?: Limit;
  /** Function duration p50 at the subject's memory (the sign-in: its CPU and wait), ms. */
  readonly latencyMs: number;
  /** Execution environments (concurrency) the ceiling's rate keeps busy; Lambda adds at most 1,000 a function every 10 s. */
  readonly environmentsAtCeiling: number;
  /** What one client address may send a second through the WAF's per-IP rule; null without a WAF. */
  readonly oneClientRps: number | null;
  /** Cognito's provisioned capacity for the ceiling's rate, per million requests. */
  readonly cognitoAtCeiling: number;
}

export function capacityRow(subject: Subject, stack: StackSettings, aws: AwsFigures, assumed: Assumptions): CapacityRow {
  const limits = limitsOf(subject, stack, aws, assumed);
  const refusing = limits.filter((limit) => limit.effect === 'refuses');
  const first = refusing[0]!;
  const beyond = refusing.find((limit) => limit.basis !== 'setting') ?? first;
  const events = limits.find((limit) => limit.effect === 'delays');
  const latencyMs =
    subject.kind === 'api' ? lambdaDurationMs(subject.demand, subject.memoryMb) : subject.demand.cpuMs + subject.demand.waitMs;
  return {
    subject,
    limits,
    deployed: { rps: first.rps, limit: first, cost: costPerMillion(subject, stack, aws, assumed, first.rps) },
    ceiling: { rps: beyond.rps, limit: beyond, cost: costPerMillion(subject, stack, aws, assumed, beyond.rps) },
    ...(events && { events }),
    latencyMs,
    environmentsAtCeiling: subject.kind === 'api' ? (beyond.rps * latencyMs) / 1000 : 0,
    oneClientRps: oneClientRps(stack),
    cognitoAtCeiling: cognitoProvisionedPerMillion(subject, aws, assumed, beyond.rps),
  };
}
