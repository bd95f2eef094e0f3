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
import { CHOSEN, hashOnce } from './argon2';
import { floorProbe } from './floor';
import { median, round } from './stats';
import { cpuBetween, threadCpu } from './thread-cpu';

export interface LambdaCpuRequest {
  readonly apiKey: string;
  /** Requests per phase in each round; rounds interleave the phases so that both meet the same machine. */
  readonly perRound: number;
  readonly rounds: number;
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

/** The phases, in the order each round runs them (the floors first, then the operations). */
const PHASES = [
  'hash',
  'hashThenNodeHttpPut',
  'hashThenPut',
  'hashThenUpdate',
  'nodeHttpQueryThenDelete',
  'queryThenDelete',
  'createUser',
  'resetUserPassword',
  'deleteUser',
] as const;
export type LambdaCpuPhase = (typeof PHASES)[number];
export type LambdaCpuResult = Record<LambdaCpuPhase, PhaseCpu>;

process.once('message', (message: LambdaCpuRequest) => {
  run(message).then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (error: Error) => process.send?.({ error: error.stack ?? error.message }, () => process.exit(1)),
  );
});

async function run({ apiKey, perRound, rounds }: LambdaCpuRequest): Promise<LambdaCpuResult> {
  // The handlers read their configuration when they load; the parent set it in our environment.
  const { apiEvent, handlerFor, lambdaContext } = await import('./in-process');
  const floor = floorProbe(process.env.DYNAMODB_ENDPOINT!, process.env.USERS_TABLE_NAME!);
  const totals = new Map<LambdaCpuPhase, { pool: number; rest: number; walls: number[]; errors: number }>();

  /** Runs `calls` one after another, each timed, and adds their CPU to the phase's totals. */
  const phase = async (name: LambdaCpuPhase, calls: (() => Promise<boolean>)[]) => {
    const entry = totals.get(name) ?? { pool: 0, rest: 0, walls: [], errors: 0 };
    totals.set(name, entry);
    const before = threadCpu();
    if (!before) throw new Error('per-thread CPU needs Linux /proc');
    for (const call of calls) {
      const started = performance.now();
      const ok = await call();
      entry.walls.push(performance.now() - started);
      if (!ok) entry.errors++;
    }
    const spent = cpuBetween(before, threadCpu()!);
    entry.pool += spent.pool;
    entry.rest += spent.rest;
  };

  const handlerCall = (operation: Parameters<typeof handlerFor>[0], body: object) => {
    // Built before the clock starts, as Lambda's runtime hands the function a parsed event.
    const event = apiEvent(operation, apiKey, body);
    const context = lambdaContext();
    const handler = handlerFor(operation);
    return async () => (await handler(event, context)).statusCode === 200;
  };

  const password = 'correct horse battery staple';
  const batch = (warmup: boolean) => {
    const users = Array.from({ length: warmup ? 10 : perRound }, () => `cpu-${randomUUID().slice(0, 13)}@example.com`);
    return {
      hash: users.map(() => () => hashOnce(CHOSEN).then(() => true)),
      hashThenNodeHttpPut: users.map(() => () => floor.hashThenNodeHttpPut()),
      hashThenPut: users.map(() => () => floor.hashThenPut().then(() => true)),
      hashThenUpdate: users.map(() => () => floor.hashThenUpdate().then(() => true)),
      nodeHttpQueryThenDelete: users.map(() => () => floor.nodeHttpQueryThenDelete()),
      queryThenDelete: users.map(() => () => floor.queryThenDelete()),
      createUser: users.map((user_email) => handlerCall('createUser', { user_email, user_password: password })),
      resetUserPassword: users.map((user_email) =>
        handlerCall('resetUserPassword', { user_email, new_password: 'a brand new passphrase' }),
      ),
      // Users without associated items: one Query and one DeleteItem each.
      deleteUser: users.map((user_email) => handlerCall('deleteUser', { user_email })),
    };
  };

  // Warm up: the JIT, the key cache, the connections. Then rounds, each phase in turn.
  const warm = batch(true);
  for (const name of PHASES) for (const call of warm[name]) await call();
  for (let r = 0; r < rounds; r++) {
    const calls = batch(false);
    for (const name of PHASES) await phase(name, calls[name]);
  }
  floor.close();

  const result = {} as LambdaCpuResult;
  for (const name of PHASES) {
    const { pool, rest, walls, errors } = totals.get(name)!;
    const n = walls.length;
    result[name] = {
      requests: n,
      cpu_ms: round((pool + rest) / n, 3),
      hash_cpu_ms: round(pool / n, 3),
      non_hash_cpu_ms: round(rest / n, 3),
      wall_ms_p50: round(median(walls), 3),
      errors,
    };
  }
  return result;
}
