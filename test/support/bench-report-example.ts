/**
 * A fixed bench report, shaped as `npm run bench` writes bench/RESULTS.json: each measurement's
 * result typed as its module returns it (so a renamed key fails to compile here), the derived ones
 * computed by the modules' own code (the shares from the phases, the Lambda memory model), and the
 * report assembled and its targets judged by the runner's. The figures are made up, close to a
 * real run's; tests of code that reads a bench run use it as fixed input.
 */

import { OPERATIONS as FUNCTIONS } from '#contract/operations';
import type { Idle } from '../../bench/idle';
import type { ImportThroughput } from '../../bench/import-throughput';
import type { BenchContext, Measurement, RunMeta } from '../../bench/measurement';
import type { Argon2 } from '../../bench/measurements/argon2';
import type { Bundles } from '../../bench/measurements/bundles';
import type { DdbCalls } from '../../bench/measurements/ddb-calls';
import type { DeleteScaling } from '../../bench/measurements/delete-scaling';
import { MEASUREMENTS } from '../../bench/measurements/index';
import { lambdaMemory } from '../../bench/measurements/lambda-memory';
import type { Latency } from '../../bench/measurements/latency';
import type { PasswordChecks } from '../../bench/measurements/password-checks';
import type { RequestUnits } from '../../bench/measurements/request-units';
import { type ServiceShare, sharesFrom } from '../../bench/measurements/service-share';
import type { SignInBench } from '../../bench/measurements/sign-in';
import type { Throughput } from '../../bench/measurements/throughput';
import { assembleReport } from '../../bench/report';
import type { PhaseCpu } from '../../bench/stand-in';
import { round, spread } from '../../bench/stats';

/** A phase measured over as many rounds as `nonHashRounds` has, 60 calls each. */
export const examplePhase = (hashCpuMs: number, nonHashRounds: number[], wallMsP50: number): PhaseCpu => {
  const nonHash = nonHashRounds.reduce((a, b) => a + b, 0) / nonHashRounds.length;
  return {
    requests: 60 * nonHashRounds.length,
    errors: 0,
    cpuMs: round(hashCpuMs + nonHash, 3),
    hashCpuMs,
    nonHashCpuMs: round(nonHash, 3),
    wallMsP50,
    cpuMsRounds: spread(nonHashRounds.map((ms) => ms + hashCpuMs)),
    nonHashCpuMsRounds: spread(nonHashRounds),
  };
};

export const EXAMPLE_META: RunMeta = {
  date: '2026-11-25T22:19:42.889Z',
  node: 'v24.21.0',
  cpu: 'AMD EPYC',
  cores: 2,
  quick: false,
  durationS: 200.1,
  loadAverage: {
    before: { oneMinute: 0.12, fiveMinutes: 0.3, fifteenMinutes: 0.41 },
    after: { oneMinute: 1.81, fiveMinutes: 0.9, fifteenMinutes: 0.6 },
  },
  argon2Setting: 'm=7168,t=5,p=1',
  gitCommit: '1727df2a3c2b6e1d0f9e8d7c6b5a4f3e2d1c0b9a',
  gitDirty: false,
};

const rounds = (...values: number[]) => values;

const argon2: Argon2 = {
  serviceSetting: 'm=7168,t=5,p=1',
  defaultSetting: 'm=7168,t=5,p=1',
  fastest: 'm=7168,t=5,p=1',
  rounds: 5,
  hashesPerRound: 60,
  settings: {
    'm=47104,t=1,p=1': examplePhase(16.472, rounds(0.36, 0.37, 0.38, 0.35, 0.37), 14.006),
    'm=19456,t=2,p=1': examplePhase(14.135, rounds(0.41, 0.42, 0.4, 0.43, 0.42), 14.401),
    'm=12288,t=3,p=1': examplePhase(11.096, rounds(0.43, 0.42, 0.44, 0.43, 0.43), 11.717),
    'm=9216,t=4,p=1': examplePhase(11.071, rounds(0.37, 0.38, 0.38, 0.37, 0.38), 11.139),
    'm=7168,t=5,p=1': examplePhase(10.353, rounds(0.35, 0.36, 0.36, 0.35, 0.37), 10.64),
  },
};

const phases: ServiceShare['phases'] = {
  nothing: examplePhase(0, rounds(0.3, 0.31, 0.3, 0.3, 0.31), 0.001),
  hashThenPut: examplePhase(10.357, rounds(2.5, 2.6, 2.55, 2.52, 2.57), 14.375),
  // One round strayed (2.1 ms above its floor): the median stays below the target, the max does not.
  createUser: examplePhase(10.124, rounds(2.9, 3.0, 4.65, 2.95, 2.99), 14.432),
  hashThenUpdate: examplePhase(10.499, rounds(2.5, 2.55, 2.53, 2.5, 2.58), 14.595),
  resetUserPassword: examplePhase(10.167, rounds(2.9, 2.96, 2.95, 2.9, 3.0), 14.816),
  queryThenDelete: examplePhase(0, rounds(3.0, 2.98, 2.99, 3.01, 2.97), 4.915),
  deleteUser: examplePhase(0, rounds(3.36, 3.35, 3.37, 3.34, 3.36), 5.217),
};
const serviceShare: ServiceShare = { rounds: 5, callsPerRound: 60, phases, share: sharesFrom(phases) };

const ratio = (...values: number[]) => spread(values);
const latency: Latency = {
  rounds: 16,
  requestsPerRound: 25,
  floor: { hashThenPut: { p50Ms: 12.894 }, hashThenUpdate: { p50Ms: 13.236 } },
  handler: {
    createUser: { p50Ms: 13.116, overFloor: ratio(1.01, 1.02, 1.018, 1.025, 1.015) },
    resetUserPassword: { p50Ms: 13.513, overFloor: ratio(1.02, 1.03, 1.026, 1.021, 1.028) },
  },
  http: {
    createUser: { requests: 400, errors: 0, perS: 68, p50Ms: 13.886, p99Ms: 26.981, overFloor: ratio(1.07, 1.08, 1.077, 1.09, 1.06) },
    resetUserPassword: {
      requests: 400,
      errors: 0,
      perS: 66.6,
      p50Ms: 14.371,
      p99Ms: 25.908,
      overFloor: ratio(1.08, 1.09, 1.086, 1.1, 1.07),
    },
    deleteUser: { requests: 400, errors: 0, perS: 177.1, p50Ms: 4.601, p99Ms: 23.612 },
  },
  httpCpu: {
    createUser: { requests: 400, cpuMs: 12.727, hashCpuMs: 9.791, nonHashCpuMs: 2.936 },
    resetUserPassword: { requests: 400, cpuMs: 12.682, hashCpuMs: 10.011, nonHashCpuMs: 2.671 },
    deleteUser: { requests: 400, cpuMs: 3.601, hashCpuMs: 0, nonHashCpuMs: 3.601 },
  },
};

const passwordChecks: PasswordChecks = {
  checks: { checked: 200_000, accepted: 200_000, cpuMsP50: 0.0022, cpuMsP99: 0.01 },
  online: { calls: 400, wallMsP50: 1.087, cpuMsPerCall: 1.87 },
};

const atFour = {
  createPerS: 110.2,
  createErrors: 0,
  bareHashThenPutPerS: 100.1,
  hashesPerS: 146,
  engineCpuMsPerWrite: { create: 1.3, bare: 2.1 },
};
const atEight = {
  createPerS: 115.6,
  createErrors: 0,
  bareHashThenPutPerS: 102.9,
  hashesPerS: 145.3,
  engineCpuMsPerWrite: { create: 1.271, bare: 2.045 },
};
const throughput: Throughput = {
  concurrency: 8,
  ...atEight,
  createVsHashLimit: 0.796,
  bareVsHashLimit: 0.708,
  hashCpuMs: 13.766,
  byConcurrency: { 4: atFour, 8: atEight },
};

const ddbCalls: DdbCalls = {
  warm: {
    createUser: { total: 1, byCommand: { PutItem: 1 }, capacityUnits: { read: 0, write: 1 } },
    resetUserPassword: { total: 1, byCommand: { UpdateItem: 1 }, capacityUnits: { read: 0, write: 1 } },
    deleteUser: { total: 3, byCommand: { Query: 2, DeleteItem: 1 }, capacityUnits: { read: 1, write: 1 } },
  },
  firstCallWithKey: {
    createUser: { total: 4, byCommand: { GetItem: 2, UpdateItem: 1, PutItem: 1 }, capacityUnits: { read: 1, write: 2 } },
    resetUserPassword: { total: 4, byCommand: { GetItem: 2, UpdateItem: 2 }, capacityUnits: { read: 1, write: 2 } },
    deleteUser: {
      total: 6,
      byCommand: { GetItem: 2, UpdateItem: 1, Query: 2, DeleteItem: 1 },
      capacityUnits: { read: 2, write: 2 },
    },
  },
};

const users = (writeUnits: number, readUnits = 0) => ({ users: { writeUnits, readUnits } });
const withKey = (units: Record<string, { writeUnits: number; readUnits: number }>) => ({
  ...units,
  idempotency: { writeUnits: 2, readUnits: 0 },
});
const footprint = (
  units: Record<string, { writeUnits: number; readUnits: number }>,
  records: number,
  events: number,
  ledgerWrites = 0,
  localUnits = units,
) => ({
  units,
  localUnits,
  streamRecords: records,
  consumerRecords: records,
  events,
  ledgerWrites,
});
export const EXAMPLE_REQUEST_UNITS: RequestUnits = {
  operations: {
    createUser: footprint(users(1), 1, 1),
    resetUserPassword: footprint(users(1), 1, 1),
    deleteUser: footprint(users(1, 1), 1, 1, 1),
  },
  withIdempotencyKey: {
    createUser: footprint(withKey(users(1)), 1, 1),
    resetUserPassword: footprint(withKey(users(1)), 1, 1),
    deleteUser: footprint(withKey(users(1, 1)), 1, 1, 1),
  },
  signIn: {
    ok: footprint(users(5, 2), 2, 0, 0, users(3, 1)),
    wrong: footprint(users(1, 2), 1, 0, 0, users(1, 1)),
    unknown: footprint(users(1, 2), 1, 0, 0, users(1, 0)),
  },
  items: { profile: 263, signInState: 120, ownerAccount: 241, apiKey: 232, idempotencyRecord: 421, ledgerEntry: 236 },
};

const signInPhases = {
  nothing: examplePhase(0, rounds(0.01, 0.01, 0.01, 0.01, 0.01, 0.01), 0.02),
  ok: examplePhase(10.7, rounds(4.61, 4.55, 4.7, 4.58, 4.66, 4.52), 18.2),
  floorOk: examplePhase(10.7, rounds(4.31, 4.29, 4.4, 4.33, 4.35, 4.27), 17.6),
  wrong: examplePhase(10.7, rounds(3.02, 2.98, 3.1, 3.05, 2.99, 3.04), 14.1),
  floorWrong: examplePhase(10.7, rounds(2.81, 2.77, 2.9, 2.84, 2.79, 2.83), 13.8),
  unknown: examplePhase(10.7, rounds(2.97, 2.95, 3.06, 3.01, 2.96, 3.0), 14.0),
  floorUnknown: examplePhase(10.7, rounds(2.8, 2.76, 2.88, 2.83, 2.78, 2.82), 13.7),
  throttled: examplePhase(0, rounds(1.12, 1.1, 1.16, 1.13, 1.11, 1.14), 2.1),
  floorThrottled: examplePhase(0, rounds(0.98, 0.97, 1.01, 0.99, 0.98, 1.0), 1.9),
  trustedOk: examplePhase(10.7, rounds(5.02, 4.97, 5.1, 5.04, 4.99, 5.06), 19.4),
  floorTrustedOk: examplePhase(10.7, rounds(4.71, 4.69, 4.8, 4.74, 4.7, 4.73), 18.9),
};
const signInShare = (outcome: 'ok' | 'wrong' | 'unknown' | 'throttled' | 'trustedOk', floor: keyof typeof signInPhases, name: string) => ({
  floor: name,
  signInMs: signInPhases[outcome].nonHashCpuMs,
  floorMs: signInPhases[floor].nonHashCpuMs,
  shareMs: spread(signInPhases[outcome].nonHashCpuMsRounds.rounds.map((ms, r) => ms - signInPhases[floor].nonHashCpuMsRounds.rounds[r]!)),
});
const signIn: SignInBench = {
  rounds: 6,
  callsPerRound: 24,
  phases: signInPhases,
  share: {
    ok: signInShare('ok', 'floorOk', 'verify, BatchGetItem, UpdateItem, TransactWriteItems (ConditionCheck, Delete, Delete, Update)'),
    wrong: signInShare('wrong', 'floorWrong', 'verify, BatchGetItem, UpdateItem'),
    unknown: signInShare('unknown', 'floorUnknown', 'verify, BatchGetItem, UpdateItem'),
    throttled: signInShare('throttled', 'floorThrottled', 'BatchGetItem'),
    trustedOk: signInShare(
      'trustedOk',
      'floorTrustedOk',
      'verify, BatchGetItem (with the device), TransactWriteItems (Update, Update), TransactWriteItems (ConditionCheck, Delete, Update)',
    ),
  },
  ddbCalls: {
    ok: { BatchGetItem: 1, UpdateItem: 1, TransactWriteItems: 1 },
    wrong: { BatchGetItem: 1, UpdateItem: 1 },
    unknown: { BatchGetItem: 1, UpdateItem: 1 },
    throttled: { BatchGetItem: 1 },
    trustedOk: { BatchGetItem: 1, TransactWriteItems: 2 },
  },
  stream: { signIns: 1000, records: 760, passing: 0, perThousand: 0 },
};

const deleteScaling: DeleteScaling = {
  items: {
    0: { ms: 5.89, msPerItem: null, calls: 2, callsBound: 2 },
    25: { ms: 21.28, msPerItem: 0.8513, calls: 3, callsBound: 3 },
    250: { ms: 93.02, msPerItem: 0.3721, calls: 12, callsBound: 12 },
    2500: { ms: 581.08, msPerItem: 0.2324, calls: 102, callsBound: 102 },
  },
};

const bundle = (bytes: number, importMsP50: number) => ({
  bytes,
  importMsP50,
  packageBytes: bytes + 1_691_169,
  packageZipBytes: 1_379_416,
});
const measuredBundles: Partial<Bundles['functions']> = {
  createUser: bundle(289_719, 114.1),
  resetUserPassword: bundle(289_422, 113.7),
  deleteUser: bundle(289_410, 122.2),
};
// The bundles measurement covers every function of the registry: one added since gets a bundle like the others'.
const bundles: Bundles = {
  imports: 10,
  functions: Object.fromEntries(FUNCTIONS.map((name) => [name, measuredBundles[name] ?? bundle(289_500, 115)])) as Bundles['functions'],
};

/** The example report, as the runner assembles it. */
export async function exampleBenchReport() {
  const results = new Map<string, object>([
    ['latency', latency],
    ['argon2', argon2],
    ['serviceShare', serviceShare],
    ['passwordChecks', passwordChecks],
  ]);
  // The derived measurement runs its own code on the results before it.
  const context = {
    resultOf: <R extends object>(measurement: Measurement<R>) => results.get(measurement.name) as R,
  } as BenchContext;
  results.set('lambdaMemory', await lambdaMemory.run(context));
  results.set('throughput', throughput);
  results.set('importThroughput', {
    rows: 6000,
    concurrency: 16,
    importS: 7.1,
    importUsersPerS: 844.6,
    bareRunsPerS: [2844.9, 3145.7],
    bareBatchWritePerS: 3145.7,
    importVsBare: 0.268,
    barePutPerS: 634.8,
    importVsBarePut: 1.33,
  } satisfies ImportThroughput);
  results.set('ddbCalls', ddbCalls);
  results.set('requestUnits', EXAMPLE_REQUEST_UNITS);
  results.set('signIn', signIn);
  results.set('deleteScaling', deleteScaling);
  results.set('npmStartIdle', { windowS: 5, nodeCoreShare: 0.016, dynamodbLocalCoreShare: 0.056 } satisfies Idle);
  results.set('bundles', bundles);
  return assembleReport(EXAMPLE_META, MEASUREMENTS, results);
}
