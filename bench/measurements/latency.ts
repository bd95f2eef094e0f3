/**
 * Wall clock at concurrency 1 against the bare work back to back (a hash then the write, with the
 * service's own client): each round sends each operation over HTTP to the local server (its
 * process's CPU read around each run), then calls the handler in process as Lambda would, each
 * call beside the bare work (the bare work first on even calls, the handler first on odd ones).
 * Each ratio is taken round by round and reported as the median over the rounds with its range.
 */

import { randomUUID } from 'node:crypto';
import { floorProbe } from '../floor';
import { atMost, type Measurement, resultIn } from '../measurement';
import { OPERATIONS, type Operation } from '../operations';
import { table } from '../report';
import { formatSpread, MIN_ROUNDS, median, percentile, round, type Spread, spread } from '../stats';
import { cpuBetween, threadCpu } from '../thread-cpu';
import { argon2 } from './argon2';

const OPS = OPERATIONS;
type Op = Operation;
/** The operations with a floor here: a hash then the write. */
const FLOORED = ['createUser', 'resetUserPassword'] as const;
type Floored = (typeof FLOORED)[number];
const FLOOR_NAME = { createUser: 'hash then PutItem', resetUserPassword: 'hash then UpdateItem' } as const;

const HANDLER_LIMIT = 1.03;
const HTTP_LIMIT = 1.15;
/** A whole create's CPU in the server process over one hash at the setting used before the five were measured. */
const OLD_SETTING = 'm=19456,t=2,p=1';
const CREATE_CPU_LIMIT = 1.1;

export interface Latency {
  readonly rounds: number;
  readonly requestsPerRound: number;
  /** The bare work back to back, p50 over every round. */
  readonly floor: Record<'hashThenPut' | 'hashThenUpdate', { readonly p50Ms: number }>;
  /** The handler in process: its p50, and per round the median of each call's ratio to the bare work beside it. */
  readonly handler: Record<Floored, { readonly p50Ms: number; readonly overFloor: Spread }>;
  /** Over HTTP at concurrency 1; per round the p50 over the bare work's p50 in the same round. */
  readonly http: Record<
    Op,
    {
      readonly requests: number;
      readonly errors: number;
      readonly perS: number;
      readonly p50Ms: number;
      readonly p99Ms: number;
      readonly overFloor?: Spread;
    }
  >;
  /** The server process's CPU per request over HTTP: the hash (libuv's pool) and the rest. */
  readonly httpCpu: Record<
    Op,
    { readonly requests: number; readonly cpuMs: number; readonly hashCpuMs: number; readonly nonHashCpuMs: number }
  >;
}

export const latency: Measurement<Latency> = {
  name: 'latency',
  title: 'concurrency 1, in rounds: over HTTP, then in process, each beside its bare work back to back',
  needs: ['dynamodb', 'server'],
  async run(context) {
    const { dynamodb, server } = context;
    const inProcess = await import('../in-process');
    const apiKey = dynamodb.owner.apiKey;
    const rounds = context.quick ? MIN_ROUNDS : 16;
    const perRound = context.scaled(25);
    // The service's own client: the floor and the handlers in this process share its connections.
    const floor = floorProbe(dynamodb.stores.client, dynamodb.tables.usersTableName, context.setting);
    const newUser = () => ({ user_email: `u-${randomUUID().slice(0, 13)}@example.com`, user_password: 'correct horse battery staple' });
    for (let i = 0; i < 10; i++) await floor.hashThenPut();
    await inProcess.timeCall('createUser', apiKey, newUser());

    const perOp = <T>(make: () => T) => Object.fromEntries(OPS.map((op) => [op, make()])) as Record<Op, T>;
    const http = perOp(() => [] as number[][]);
    const errors = perOp(() => 0);
    const cpu = perOp(() => ({ pool: 0, rest: 0, requests: 0 }));
    const handler = { createUser: [] as number[][], resetUserPassword: [] as number[][] };
    const bare = { createUser: [] as number[][], resetUserPassword: [] as number[][] };
    /** `perRound` requests of `op` over HTTP, their latencies into `into`, the server's CPU around them added to the op's. */
    const overHttp = async (op: Op, body: (i: number) => object | undefined, into: number[]) => {
      const before = threadCpu(server.pid);
      const result = await server.load({ path: `/v1/${op}`, concurrency: 1, body, maxRequests: perRound, maxMs: 20_000, record: into });
      const after = threadCpu(server.pid);
      errors[op] += result.errors;
      if (before && after) {
        const spent = cpuBetween(before, after);
        cpu[op] = { pool: cpu[op].pool + spent.pool, rest: cpu[op].rest + spent.rest, requests: cpu[op].requests + result.requests };
      }
    };
    /** The bare work, timed as the floor probe times it. */
    const bareCall = async (name: 'hashThenPut' | 'hashThenUpdate', into: number[]) => {
      await (name === 'hashThenPut' ? floor.hashThenPut() : floor.hashThenUpdate());
      into.push(floor.samples()[name].at(-1)!);
    };

    for (let r = 0; r < rounds; r++) {
      const pool: string[] = [];
      const create = () => {
        const body = newUser();
        pool.push(body.user_email);
        return body;
      };
      const from = (i: number, body: (email: string) => object) => (i < pool.length ? body(pool[i]!) : undefined);
      for (const op of OPS) http[op].push([]);
      const reset = (i: number) => from(i, (user_email) => ({ user_email, new_password: 'a brand new passphrase' }));
      await overHttp('createUser', create, http.createUser[r]!);
      await overHttp('resetUserPassword', reset, http.resetUserPassword[r]!);
      await overHttp('deleteUser', (i) => from(i, (user_email) => ({ user_email })), http.deleteUser[r]!);
      for (const op of FLOORED) {
        handler[op].push([]);
        bare[op].push([]);
      }
      for (let i = 0; i < perRound; i++) {
        const body = newUser();
        const resetBody = { user_email: body.user_email, new_password: 'a brand new passphrase' };
        const pairs = [
          [
            () => bareCall('hashThenPut', bare.createUser[r]!),
            async () => handler.createUser[r]!.push(await inProcess.timeCall('createUser', apiKey, body)),
          ],
          [
            () => bareCall('hashThenUpdate', bare.resetUserPassword[r]!),
            async () => handler.resetUserPassword[r]!.push(await inProcess.timeCall('resetUserPassword', apiKey, resetBody)),
          ],
        ];
        for (const pair of pairs) for (const step of i % 2 === 0 ? pair : [...pair].reverse()) await step();
      }
    }

    const all = (perRoundSamples: number[][]) => perRoundSamples.flat();
    const p50 = (samples: number[]) => round(percentile(samples, 50), 3);
    const httpOf = (op: Op) => {
      const samples = all(http[op]);
      return {
        requests: samples.length,
        errors: errors[op],
        perS: round(samples.length / (samples.reduce((a, b) => a + b, 0) / 1000), 1),
        p50Ms: p50(samples),
        p99Ms: round(percentile(samples, 99), 3),
      };
    };
    // Each call against the bare work made next to it: the median ratio of a round, then the rounds' spread.
    const pairedRatio = (op: Floored) => spread(handler[op].map((calls, r) => median(calls.map((ms, i) => ms / bare[op][r]![i]!))));
    const httpRatio = (op: Floored) => spread(http[op].map((samples, r) => percentile(samples, 50) / percentile(bare[op][r]!, 50)));
    return {
      rounds,
      requestsPerRound: perRound,
      floor: { hashThenPut: { p50Ms: p50(all(bare.createUser)) }, hashThenUpdate: { p50Ms: p50(all(bare.resetUserPassword)) } },
      handler: {
        createUser: { p50Ms: p50(all(handler.createUser)), overFloor: pairedRatio('createUser') },
        resetUserPassword: { p50Ms: p50(all(handler.resetUserPassword)), overFloor: pairedRatio('resetUserPassword') },
      },
      http: {
        createUser: { ...httpOf('createUser'), overFloor: httpRatio('createUser') },
        resetUserPassword: { ...httpOf('resetUserPassword'), overFloor: httpRatio('resetUserPassword') },
        deleteUser: httpOf('deleteUser'),
      },
      httpCpu: perOpFrom(cpu, (c) => ({
        requests: c.requests,
        cpuMs: round((c.pool + c.rest) / c.requests, 3),
        hashCpuMs: round(c.pool / c.requests, 3),
        nonHashCpuMs: round(c.rest / c.requests, 3),
      })),
    };
  },
  targets(r, report) {
    const oldHash = resultIn(report, argon2).settings[OLD_SETTING];
    const createCpu = oldHash ? round(r.httpCpu.createUser.cpuMs / oldHash.cpuMs, 3) : Number.NaN;
    return {
      ...Object.fromEntries(
        FLOORED.map((op) => [
          `handlerOverFloor.${op}`,
          atMost(
            `handler over back-to-back floor, ${op} <= ${HANDLER_LIMIT}`,
            HANDLER_LIMIT,
            r.handler[op].overFloor.median,
            `handler ${r.handler[op].p50Ms} ms p50 over ${FLOOR_NAME[op]} back to back; median of ${r.rounds} rounds, range ${r.handler[op].overFloor.min} to ${r.handler[op].overFloor.max}`,
          ),
        ]),
      ),
      ...Object.fromEntries(
        FLOORED.map((op) => [
          `httpOverFloor.${op}`,
          atMost(
            `local HTTP over back-to-back floor, ${op} <= ${HTTP_LIMIT}`,
            HTTP_LIMIT,
            r.http[op].overFloor!.median,
            `local server at concurrency 1: ${r.http[op].p50Ms} ms p50; median of ${r.rounds} rounds, range ${r.http[op].overFloor!.min} to ${r.http[op].overFloor!.max}`,
          ),
        ]),
      ),
      createCpuOverOldHash: atMost(
        `a whole create over the local server, CPU over one m=19456,t=2 hash <= ${CREATE_CPU_LIMIT}`,
        CREATE_CPU_LIMIT,
        createCpu,
        `server process ${r.httpCpu.createUser.cpuMs} ms per create; one m=19456,t=2 hash ${oldHash?.cpuMs} ms`,
      ),
    };
  },
  render(r) {
    const ratio = (s: Spread) => `${formatSpread(s)} ×`;
    return `## The service over its floor

The SDK floor: the service's own document client sending the operation's bare DynamoDB calls after one hash at the service's setting, back to back, no pipeline, no HTTP: ${r.floor.hashThenPut.p50Ms} ms for a hash then the PutItem, ${r.floor.hashThenUpdate.p50Ms} ms for a hash then the UpdateItem (p50). ${r.rounds} rounds of ${r.requestsPerRound} requests of each; each ratio is the median over the rounds, its range in brackets.

- The handler alone, called in process as Lambda calls it, alternating with that bare work (per round, the median of each call's ratio to the bare work beside it): createUser ${r.handler.createUser.p50Ms} ms (${ratio(r.handler.createUser.overFloor)}), resetUserPassword ${r.handler.resetUserPassword.p50Ms} ms (${ratio(r.handler.resetUserPassword.overFloor)}) p50.
- Over HTTP at concurrency 1 (the local server in its own process; per round, its p50 over the bare work's): ${OPS.map((op) => `${op} ${r.http[op].p50Ms} ms${r.http[op].overFloor ? ` (${ratio(r.http[op].overFloor)})` : ''}`).join(', ')} p50.

${table(
  ['operation', 'c=1 p50 ms', 'c=1 p99 ms', 'c=1 req/s', 'errors', 'server CPU ms', 'server non-hash CPU ms'],
  OPS.map((op) => [
    op,
    r.http[op].p50Ms,
    r.http[op].p99Ms,
    r.http[op].perS,
    r.http[op].errors,
    r.httpCpu[op].cpuMs,
    r.httpCpu[op].nonHashCpuMs,
  ]),
)}`;
  },
};

/** The record's values mapped, with their keys. */
function perOpFrom<T, U>(record: Record<Op, T>, fn: (value: T) => U): Record<Op, U> {
  return Object.fromEntries(OPS.map((op) => [op, fn(record[op])])) as Record<Op, U>;
}
