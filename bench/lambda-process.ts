/**
 * A process that stands in for one warm Lambda execution environment: it calls the handlers as
 * Lambda does (event built beforehand, warm, one request at a time) and reads its own CPU per
 * thread, so a request's CPU splits into the hash (libuv's pool, where argon2 runs) and the rest
 * (the main thread: pipeline, SDK, HTTP to DynamoDB, logging, JSON; V8's GC helpers). It runs in
 * its own process so that nothing else (load generator, floor probe, DynamoDB Local) is counted,
 * logs at INFO as a deployed function does (its stdout goes nowhere), and reports over IPC.
 * The parent sets the environment (endpoint, tables) and sends a `LambdaCpuRequest`.
 */

import { randomUUID } from 'node:crypto';
import { formatArgon2Setting, OWASP_ARGON2ID_SETTINGS, readPasswordSettings } from '#platform/config';
import { hashAt } from './argon2';
import { floorProbe } from './floor';
import { type PasswordChecks, passwordChecks } from './password-checks';
import { median, round } from './stats';
import { cpuBetween, threadCpu } from './thread-cpu';

export interface LambdaCpuRequest {
  readonly apiKey: string;
  /** Requests per phase in each round; rounds interleave the phases so that all meet the same machine. */
  readonly perRound: number;
  readonly rounds: number;
  /** Batches of 1,000 passwords through the password checks, after the rounds (0: none). */
  readonly passwordCheckBatches: number;
}

/** One phase's figures: CPU per request (mean) split by thread, and the wall clock (p50). */
export interface PhaseCpu {
  readonly requests: number;
  readonly cpu_ms: number;
  readonly hash_cpu_ms: number;
  readonly non_hash_cpu_ms: number;
  readonly wall_ms_p50: number;
  /** Requests answered other than 200 (a loaded machine can time a DynamoDB Local call out); counted, not hidden. */
  readonly errors: number;
}

/** One hash at each of OWASP's five settings, named `argon2 m=…,t=…,p=1`. */
type SettingPhase = `argon2 ${string}`;
const SETTING_PHASES: SettingPhase[] = OWASP_ARGON2ID_SETTINGS.map((setting) => `argon2 ${formatArgon2Setting(setting)}` as const);

/** Each operation beside its SDK floor, in the order their users need (deletes take the users put before them). */
const PAIRS = [
  // A call that does nothing, measured the same way: what reading /proc around a call costs, taken off every phase.
  ['nothing', 'nothing'],
  ['hashThenPut', 'createUser'],
  ['hashThenUpdate', 'resetUserPassword'],
  ['queryThenDelete', 'deleteUser'],
] as const;
const FIXED_PHASES = [...new Set(PAIRS.flat())];
export type LambdaCpuPhase = SettingPhase | (typeof FIXED_PHASES)[number];
export type LambdaCpuResult = Record<(typeof FIXED_PHASES)[number], PhaseCpu> & { readonly [phase: SettingPhase]: PhaseCpu | undefined };

/** What the stand-in reports: each phase's CPU, and the password checks measured in the same process. */
export interface LambdaStandInResult {
  readonly phases: LambdaCpuResult;
  readonly passwordChecks: PasswordChecks;
}

process.once('message', (message: LambdaCpuRequest) => {
  run(message).then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (error: Error) => process.send?.({ error: error.stack ?? error.message }, () => process.exit(1)),
  );
});

async function run({ apiKey, perRound, rounds, passwordCheckBatches }: LambdaCpuRequest): Promise<LambdaStandInResult> {
  // The handlers read their configuration when they load; the parent set it in our environment.
  const { apiEvent, handlerFor, lambdaContext } = await import('./in-process');
  const { processStores } = await import('#store/stores');
  // The service's own client: the floor and the handlers share its connections.
  const floor = floorProbe(processStores().stores.client, process.env.USERS_TABLE_NAME!, readPasswordSettings().argon2);
  const totals = new Map<LambdaCpuPhase, { pool: number; rest: number; walls: number[]; errors: number }>();

  /** One call, timed, its threads' CPU added to the phase's totals (reading /proc costs every phase alike). */
  const measure = async (name: LambdaCpuPhase, call: () => Promise<boolean>) => {
    const entry = totals.get(name) ?? { pool: 0, rest: 0, walls: [], errors: 0 };
    totals.set(name, entry);
    const before = threadCpu();
    if (!before) throw new Error('per-thread CPU needs Linux /proc');
    const started = performance.now();
    const ok = await call();
    entry.walls.push(performance.now() - started);
    const spent = cpuBetween(before, threadCpu()!);
    entry.pool += spent.pool;
    entry.rest += spent.rest;
    if (!ok) entry.errors++;
  };

  const handlerCall = (operation: Parameters<typeof handlerFor>[0], body: object) => {
    // Built before the clock starts, as Lambda's runtime hands the function a parsed event.
    const event = apiEvent(operation, apiKey, body);
    const context = lambdaContext();
    const handler = handlerFor(operation);
    return async () => (await handler(event, context)).statusCode === 200;
  };

  const password = 'correct horse battery staple';
  const batch = (warmup: boolean): Map<LambdaCpuPhase, (() => Promise<boolean>)[]> => {
    const users = Array.from({ length: warmup ? 10 : perRound }, () => `cpu-${randomUUID().slice(0, 13)}@example.com`);
    return new Map<LambdaCpuPhase, (() => Promise<boolean>)[]>([
      ...OWASP_ARGON2ID_SETTINGS.map(
        (setting, i) => [SETTING_PHASES[i]!, users.map(() => () => hashAt(setting).then(() => true))] as const,
      ),
      ['nothing', users.map(() => async () => true)],
      ['hashThenPut', users.map(() => () => floor.hashThenPut())],
      ['hashThenUpdate', users.map(() => () => floor.hashThenUpdate())],
      ['queryThenDelete', users.map(() => () => floor.queryThenDelete())],
      ['createUser', users.map((user_email) => handlerCall('createUser', { user_email, user_password: password }))],
      [
        'resetUserPassword',
        users.map((user_email) => handlerCall('resetUserPassword', { user_email, new_password: 'a brand new passphrase' })),
      ],
      // Users without associated items: one Query and one DeleteItem each.
      ['deleteUser', users.map((user_email) => handlerCall('deleteUser', { user_email }))],
    ]);
  };

  /**
   * A round: the five settings' hashes in turn, then each operation call by call beside its floor, the floor
   * first on even calls and the operation first on odd ones, so that both meet the same machine and
   * the GC's work lands on either in proportion to the garbage they make.
   */
  const runRound = async (calls: Map<LambdaCpuPhase, (() => Promise<boolean>)[]>, record: boolean) => {
    const run = (name: LambdaCpuPhase, call: () => Promise<boolean>) => (record ? measure(name, call) : call());
    // One hash of each setting in turn, starting from a different one each time.
    const hashes = SETTING_PHASES.map((name) => calls.get(name)!);
    for (let i = 0; i < hashes[0]!.length; i++) {
      for (let k = 0; k < SETTING_PHASES.length; k++) {
        const which = (i + k) % SETTING_PHASES.length;
        await run(SETTING_PHASES[which]!, hashes[which]![i]!);
      }
    }
    for (const [floorName, operationName] of PAIRS) {
      const floorCalls = calls.get(floorName)!;
      const operationCalls = calls.get(operationName)!;
      for (let i = 0; i < floorCalls.length; i++) {
        const pair = [() => run(floorName, floorCalls[i]!), () => run(operationName, operationCalls[i]!)];
        if (i % 2 === 1) pair.reverse();
        for (const step of pair) await step();
      }
    }
  };
  // Warm up: the JIT, the key cache, the connections. Then the rounds.
  await runRound(batch(true), false);
  for (let r = 0; r < rounds; r++) await runRound(batch(false), true);

  const result = {} as Record<LambdaCpuPhase, PhaseCpu>;
  const nothing = totals.get('nothing')!;
  const overhead = { pool: nothing.pool / nothing.walls.length, rest: nothing.rest / nothing.walls.length };
  for (const name of [...SETTING_PHASES, ...FIXED_PHASES]) {
    const { walls, errors } = totals.get(name)!;
    const n = walls.length;
    // Per call, less what measuring a call costs (the `nothing` phase's own figures stay as measured).
    const pool = totals.get(name)!.pool / n - (name === 'nothing' ? 0 : overhead.pool);
    const rest = totals.get(name)!.rest / n - (name === 'nothing' ? 0 : overhead.rest);
    result[name] = {
      requests: n,
      cpu_ms: round(pool + rest, 3),
      hash_cpu_ms: round(pool, 3),
      non_hash_cpu_ms: round(rest, 3),
      wall_ms_p50: round(median(walls), 3),
      errors,
    };
  }
  // The checks a create or reset makes, in the process that just served them, beside the service share.
  return { phases: result as LambdaCpuResult, passwordChecks: await passwordChecks(passwordCheckBatches) };
}
