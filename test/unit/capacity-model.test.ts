/**
 * The capacity model's arithmetic on fixed inputs, against values worked out by hand: the limits of a
 * request in requests per second, the first one met and how it moves when an input crosses a
 * threshold, the cost per million from unit prices at a given rate, and the hot-key rows.
 */

import { describe, expect, it } from '@jest/globals';
import { memoryModel } from '../../bench/lambda-memory';
import { type HotItem, hotKeyRow } from '../../capacity/hot-keys';
import {
  type Assumptions,
  type AwsFigures,
  apiGatewayUsdPerMillion,
  capacityRow,
  cognitoProvisionedPerMillion,
  costPerMillion,
  type Demand,
  lambdaDurationMs,
  limitsOf,
  oneClientRps,
  type StackSettings,
  type Subject,
} from '../../capacity/model';

/** AWS's figures as aws-limits.json holds them today, fixed here so that the expected values below stay hand-computed. */
const AWS: AwsFigures = {
  lambdaConcurrency: 1000,
  lambdaScalingPer10s: 1000,
  lambdaRequestsPerEnvironment: 10,
  apiGatewayAccountRps: 10_000,
  dynamoPartitionWrite: 1000,
  dynamoPartitionRead: 3000,
  dynamoTableWrite: 40_000,
  dynamoTableRead: 40_000,
  dynamoNewTableWrite: 4000,
  dynamoNewTableRead: 12_000,
  dynamoWriteUnitBytes: 1024,
  dynamoReadUnitBytes: 4096,
  eventBridgePutEventsRps: 10_000,
  lambdaArmUsdPerGbSecond: 0.0000133334,
  lambdaUsdPerMillionRequests: 0.2,
  apiGatewayRestUsdPerMillion: 3.5,
  apiGatewayRestUsdPerMillionNext667M: 2.8,
  apiGatewayRestUsdPerMillionNext19B: 2.38,
  apiGatewayRestUsdPerMillionOver20B: 1.51,
  cloudwatchLogsUsdPerGb: 0.5,
  cloudwatchCustomMetricUsdMonth: 0.3,
  cognitoProvisionedUsdPerRpsMonth: 20,
  wafUsdPerMillion: 0.6,
  wafUsdPerWebAclMonth: 5,
  wafUsdPerRuleMonth: 1,
  xrayUsdPerTrace: 0.000005,
  eventBridgeUsdPerMillionEvents: 1,
  dynamoUsdPerMillionWrites: 0.625,
  dynamoUsdPerMillionReads: 0.125,
};
const ASSUMED: Assumptions = {
  putEventsRoundTripMs: 20,
  ledgerPutRoundTripMs: 10,
  streamShards: 1,
  secondsPerMonth: 2_592_000,
  logBytesPerRequest: 1024,
};
const STACK: StackSettings = {
  stage: 'prod',
  throttleRateLimit: 100,
  throttleBurstLimit: 200,
  waf: true,
  wafRules: 5,
  wafKeyLimit: 3000,
  wafIpLimit: 3000,
  wafWindowSeconds: 60,
  apiKeyCacheTtlSeconds: 30,
  tracingSampleRate: 0.05,
  metricFilters: 2,
  consumer: { batchSize: 100, maxBatchingWindowSeconds: 1, parallelizationFactor: 1, memoryMb: 256, publishBatch: 10 },
};

const CREATE: Demand = {
  cpuMs: 13,
  waitMs: 1,
  tables: { users: { writeUnits: 1, readUnits: 0 } },
  consumerRecords: 1,
  events: 1,
  ledgerWrites: 0,
};
const api = (demand: Demand, memoryMb = 1769): Subject => ({
  name: 'create',
  kind: 'api',
  memoryMb,
  demand,
  cognito: { category: 'UserCreation', rps: 50 },
});
/** A sign-in as fixed inputs: it runs in the tool, writes DynamoDB itself and (these inputs say) wakes the consumer twice. */
const SIGN_IN: Subject = {
  name: 'sign-in ok',
  kind: 'sign-in',
  memoryMb: 1769,
  demand: { cpuMs: 10, waitMs: 3, tables: { users: { writeUnits: 2, readUnits: 0 } }, consumerRecords: 2, events: 0, ledgerWrites: 0 },
  cognito: { category: 'UserAuthentication', rps: 120 },
};
const rpsById = (subject: Subject, stack = STACK) => Object.fromEntries(limitsOf(subject, stack, AWS, ASSUMED).map((l) => [l.id, l.rps]));

describe('limits of one request, in requests per second', () => {
  it('each limit divides its quota by what one request takes, lowest first', () => {
    const limits = limitsOf(api(CREATE), STACK, AWS, ASSUMED);
    expect(limits.map((l) => [l.id, l.rps])).toEqual([
      ['stage-throttle', 100],
      // 10 events a chunk, one chunk per 20 ms round trip, one shard lane: 500 events/s, one event a request.
      ['stream-consumer', 500],
      // A new on-demand table: 4,000 write units a second, one a request.
      ['dynamodb-new-table:users', 4000],
      ['api-gateway-account', 10_000],
      // 10 invocations a second per unit of the account's 1,000.
      ['lambda-invocations', 10_000],
      ['dynamodb-table-quota:users', 40_000],
      // 1,000 environments, each busy 14 ms a request (13 ms CPU at one full vCPU, 1 ms waiting).
      ['lambda-concurrency', expect.closeTo(71_428.571, 3)],
      // 10,000 PutEvents a second, 10 events each.
      ['eventbridge-put-events', 100_000],
    ]);
  });

  it('reads and writes share a new table as a linear combination: 1 write and 1 read a request, 1 / (1/4000 + 1/12000)', () => {
    const rps = rpsById(api({ ...CREATE, tables: { users: { writeUnits: 1, readUnits: 1 } } }));
    expect(rps['dynamodb-new-table:users']).toBeCloseTo(3000, 6);
    expect(rps['dynamodb-table-quota:users']).toBe(40_000);
  });

  it("a deletion's ledger write lengthens the consumer's chunk by its round trip: 10 events per 30 ms", () => {
    expect(rpsById(api({ ...CREATE, ledgerWrites: 1 }))['stream-consumer']).toBeCloseTo(333.333, 3);
  });

  it('CPU scales with memory below one full vCPU (1,769 MB), as bench/lambda-memory.ts models it', () => {
    expect(lambdaDurationMs({ cpuMs: 3, waitMs: 2 }, 1536)).toBeCloseTo(3 / (1536 / 1769) + 2, 9);
    expect(lambdaDurationMs({ cpuMs: 3, waitMs: 2 }, 3008)).toBe(5);
    for (const memoryMb of [512, 1536, 1769, 3008]) {
      const bench = memoryModel({ op: { cpu_ms: 13, wait_ms: 1 } }).find((row) => row.memory_mb === memoryMb)!;
      const subject = api(CREATE, memoryMb);
      expect(lambdaDurationMs(CREATE, memoryMb)).toBeCloseTo(bench.p50_ms, 1);
      expect(costPerMillion(subject, STACK, AWS, ASSUMED, 100).parts.lambda).toBeCloseTo(bench.usd_per_million, 4);
    }
  });

  it('a sign-in meets no API Gateway or Lambda limit: it runs in the tool and writes DynamoDB itself', () => {
    expect(limitsOf(SIGN_IN, STACK, AWS, ASSUMED).map((l) => [l.id, l.rps])).toEqual([
      ['dynamodb-new-table:users', 2000],
      ['dynamodb-table-quota:users', 20_000],
    ]);
  });
});

describe('the first limit met', () => {
  it('as deployed it is the stage throttle; beyond the settings the first limit that refuses requests; the consumer only delays events', () => {
    const row = capacityRow(api(CREATE), STACK, AWS, ASSUMED);
    expect([row.deployed.limit.id, row.deployed.rps]).toEqual(['stage-throttle', 100]);
    expect([row.ceiling.limit.id, row.ceiling.rps]).toEqual(['dynamodb-new-table:users', 4000]);
    expect([row.events?.id, row.events?.rps]).toEqual(['stream-consumer', 500]);
    expect(row.latencyMs).toBe(14);
    expect(row.environmentsAtCeiling).toBeCloseTo((4000 * 14) / 1000, 9);
  });

  it('moves from the table to API Gateway when a request writes less, and to Lambda concurrency when a request takes longer', () => {
    const reads = { ...CREATE, tables: { users: { writeUnits: 0, readUnits: 1 } } };
    // 1 read a request: the new table serves 12,000, so API Gateway's 10,000 comes first.
    expect(capacityRow(api(reads), STACK, AWS, ASSUMED).ceiling.limit.id).toBe('api-gateway-account');
    // 90 ms a request: 1,000 environments serve 11,111 a second, still above 10,000.
    expect(capacityRow(api({ ...reads, cpuMs: 89 }), STACK, AWS, ASSUMED).ceiling.limit.id).toBe('api-gateway-account');
    // 110 ms a request: 9,090.9 a second, below API Gateway's.
    const slow = capacityRow(api({ ...reads, cpuMs: 109 }), STACK, AWS, ASSUMED);
    expect(slow.ceiling.limit.id).toBe('lambda-concurrency');
    expect(slow.ceiling.rps).toBeCloseTo(9090.909, 3);
  });

  it('with the stage throttle raised above the first AWS limit, the deployed stage meets that limit too', () => {
    const row = capacityRow(api(CREATE), { ...STACK, throttleRateLimit: 5000 }, AWS, ASSUMED);
    expect(row.deployed.limit.id).toBe('dynamodb-new-table:users');
    expect(row.deployed.rps).toBe(4000);
  });
});

describe("API Gateway's tiers, one client's ceiling, Cognito bought at the same rate", () => {
  it('a month of calls priced through the tiers: all at the first up to 333 million, then averaged', () => {
    expect(apiGatewayUsdPerMillion(AWS, 100e6)).toBe(3.5);
    expect(apiGatewayUsdPerMillion(AWS, 1e9)).toBeCloseTo((333 * 3.5 + 667 * 2.8) / 1000, 12);
    expect(apiGatewayUsdPerMillion(AWS, 30e9)).toBeCloseTo((333 * 3.5 + 667 * 2.8 + 19_000 * 2.38 + 10_000 * 1.51) / 30_000, 12);
  });

  it('one client address: the WAF per-IP limit over its window (3,000 per 60 s is 50 a second), below the stage throttle', () => {
    expect(oneClientRps(STACK)).toBe(50);
    expect(oneClientRps({ ...STACK, throttleRateLimit: 20 })).toBe(20);
    expect(oneClientRps({ ...STACK, waf: false })).toBeNull();
  });

  it("Cognito at the same rate: the RPS above the category's default at $20 per RPS-month, per million requests at that rate", () => {
    const subject = { ...api(CREATE), cognito: { category: 'UserCreation', rps: 50 } };
    expect(cognitoProvisionedPerMillion(subject, AWS, ASSUMED, 4000)).toBeCloseTo((3950 * 20) / ((4000 * 2_592_000) / 1e6), 12);
    expect(cognitoProvisionedPerMillion(subject, AWS, ASSUMED, 40)).toBe(0);
  });
});

describe('cost per million requests, from unit prices', () => {
  it('at 100 a second: every part, and their sum', () => {
    const cost = costPerMillion(api(CREATE), STACK, AWS, ASSUMED, 100);
    // $3.50 a million calls.
    expect(cost.parts.apiGateway).toBe(3.5);
    // $0.60 a million, plus $5 + 5 × $1 a month spread over 100/s × 2,592,000 s = 259.2 million requests.
    expect(cost.parts.waf).toBeCloseTo(0.6 + 10 / 259.2, 9);
    // $0.20 a million, plus 1,769/1,024 GB × 0.014 s (14 ms billed) × $0.0000133334 a GB-second, a million times.
    expect(cost.parts.lambda).toBeCloseTo(0.2 + 1e6 * (1769 / 1024) * 0.014 * 0.0000133334, 9);
    // One trace a second, then 5 % of the other 99: 5.95 traces a second of 100, $5 a million traces.
    expect(cost.parts.xray).toBeCloseTo(5 * (5.95 / 100), 9);
    expect(cost.parts.dynamodb).toBe(0.625);
    expect(cost.parts.eventBridge).toBe(1);
    // Full batches of 100 records: 0.01 invocations a request, each 10 chunks × 20 ms at 256 MB.
    expect(cost.parts.consumer).toBeCloseTo(1e6 * 0.01 * (0.2 / 1e6 + 0.25 * 0.2 * 0.0000133334), 9);
    // A KB of logs a request at $0.50 a GB; two metric filters at $0.30 a month each, over 259.2 million requests.
    expect(cost.parts.logs).toBeCloseTo((1e6 * 1024 * 0.5) / 1024 ** 3, 12);
    expect(cost.parts.metricFilters).toBeCloseTo(0.6 / 259.2, 12);
    expect(cost.total).toBeCloseTo(6.592222518 + 0.476837158 + 0.002314815, 8);
  });

  it('fixed monthly costs and the trace reservoir weigh less per request at a higher rate', () => {
    const at500 = costPerMillion(api(CREATE), STACK, AWS, ASSUMED, 500);
    expect(at500.parts.waf).toBeCloseTo(0.6 + 10 / 1296, 9);
    expect(at500.parts.xray).toBeCloseTo(5 * ((1 + 499 * 0.05) / 500), 9);
    // 1,296 million calls a month: API Gateway's tiers lower its average below the first tier's $3.50.
    const gateway = (333 * 3.5 + 667 * 2.8 + 296 * 2.38) / 1296;
    expect(at500.parts.apiGateway).toBeCloseTo(gateway, 12);
    expect(at500.total).toBeCloseTo(6.52335832 - 3.5 + gateway + (1e6 * 1024 * 0.5) / 1024 ** 3 + 0.6 / 1296, 8);
  });

  it('reads, writes and events each at their price; a stage without WAF pays no WAF', () => {
    const demand = { ...CREATE, tables: { users: { writeUnits: 2, readUnits: 3 } }, events: 2, consumerRecords: 2 };
    const cost = costPerMillion(api(demand), { ...STACK, waf: false }, AWS, ASSUMED, 100);
    expect(cost.parts.dynamodb).toBeCloseTo(2 * 0.625 + 3 * 0.125, 12);
    expect(cost.parts.eventBridge).toBe(2);
    expect(cost.parts.waf).toBeUndefined();
  });

  it("a sign-in's cost: its writes, the consumer it wakes, and the tool's compute priced as Lambda at one vCPU", () => {
    const cost = costPerMillion(SIGN_IN, STACK, AWS, ASSUMED, 2000);
    expect(cost.parts.toolCompute).toBeCloseTo(1e6 * (1769 / 1024) * 0.013 * 0.0000133334, 9);
    expect(cost.parts.dynamodb).toBe(1.25);
    // 2,000 a second fill batches of 100: 0.02 invocations a request, 1 ms billed each (nothing to publish).
    expect(cost.parts.consumer).toBeCloseTo(1e6 * 0.02 * (0.2 / 1e6 + 0.25 * 0.001 * 0.0000133334), 9);
    expect(cost.total).toBeCloseTo(1.553508268, 8);
    expect(Object.keys(cost.parts).sort()).toEqual(['consumer', 'dynamodb', 'toolCompute']);
  });
});

describe('hot keys', () => {
  const item: HotItem = { item: 'profile', reachedBy: 'resets', bytes: 1500, access: 'write', methods: 3 };

  it('a 1,500-byte item takes 2 write units: its partition serves 500 such writes a second; one key sends 50 (3,000 a minute)', () => {
    const row = hotKeyRow(item, STACK, AWS);
    expect([row.units, row.partitionRps, row.oneKeyRps, row.keyBelowPartition]).toEqual([2, 500, 50, true]);
  });

  it("a key limit of 60,000 a minute, with 400 a second on each of 3 methods, lets one key pass the partition's 500", () => {
    const row = hotKeyRow(item, { ...STACK, wafKeyLimit: 60_000, throttleRateLimit: 400 }, AWS);
    expect([row.oneKeyRps, row.keyBelowPartition]).toEqual([1000, false]);
  });

  it('reads: 4 KB a unit, half for an eventually consistent read; a cap bounds what one key reaches; no key in front: no comparison', () => {
    expect(hotKeyRow({ ...item, bytes: 5000, access: 'strong-read' }, STACK, AWS).partitionRps).toBe(1500);
    expect(hotKeyRow({ ...item, bytes: 5000, access: 'eventual-read' }, STACK, AWS).partitionRps).toBe(3000);
    expect(hotKeyRow({ ...item, cap: { rps: 20, why: 'cache' } }, STACK, AWS).oneKeyRps).toBe(20);
    expect(hotKeyRow({ ...item, methods: 0 }, STACK, AWS)).toMatchObject({ oneKeyRps: null, keyBelowPartition: null });
  });
});
