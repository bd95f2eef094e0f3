/**
 * Throughput: createUser over HTTP at a few concurrencies (the best wins) against what the
 * service's setting hashes alone with every core busy, in windows just before and after, and the
 * bare work (a hash then the PutItem with the SDK, no service) at the same concurrency, with
 * DynamoDB Local's CPU per write in the same windows: it shares the cores with the hash.
 */

import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { hashesPerSecond } from '../argon2';
import { floorProbe } from '../floor';
import { atLeast, type Measurement } from '../measurement';
import { table } from '../report';
import { round } from '../stats';
import { processCpu } from '../thread-cpu';

const LIMIT = 0.75;

export interface AtConcurrency {
  readonly createPerS: number;
  readonly createErrors: number;
  /** The bare hash then PutItem, no service. */
  readonly bareHashThenPutPerS: number;
  /** The service's setting hashing alone, every core busy: the mean of the windows before and after. */
  readonly hashesPerS: number;
  /** DynamoDB Local's process CPU per write, in the create window and in the bare window. */
  readonly engineCpuMsPerWrite: { readonly create: number; readonly bare: number };
}

export interface Throughput extends AtConcurrency {
  /** The concurrency whose createUser throughput was best; its figures are the ones above. */
  readonly concurrency: number;
  readonly createVsHashLimit: number;
  readonly bareVsHashLimit: number;
  /** One hash's CPU with every core hashing: cores over hashes per second. */
  readonly hashCpuMs: number;
  /** Every concurrency tried, by concurrency. */
  readonly byConcurrency: Record<string, AtConcurrency>;
}

export const throughput: Measurement<Throughput> = {
  name: 'throughput',
  title: 'saturation: createUser over HTTP and the bare hash then PutItem, between windows of hashing alone',
  needs: ['dynamodb', 'server'],
  async run(context) {
    const { dynamodb, server, setting } = context;
    const floor = floorProbe(dynamodb.stores.client, dynamodb.tables.usersTableName, setting);
    const newUser = () => ({ user_email: `t-${randomUUID().slice(0, 13)}@example.com`, user_password: 'correct horse battery staple' });
    // DynamoDB Local's CPU (all its threads) per write in a window: the engine's share of the cores.
    const engineCpuPerWrite = async <T>(run: () => Promise<T>, writes: (result: T, ms: number) => number) => {
      const before = processCpu(dynamodb.pid);
      const started = performance.now();
      const result = await run();
      const after = processCpu(dynamodb.pid);
      const ms = before !== undefined && after !== undefined ? (after - before) / writes(result, performance.now() - started) : Number.NaN;
      return { result, engineMs: ms };
    };
    const byConcurrency: Record<string, AtConcurrency> = {};
    for (const concurrency of context.quick ? [4] : [4, 8, 16]) {
      const hashBefore = await hashesPerSecond(setting);
      const create = await engineCpuPerWrite(
        () => server.load({ path: '/v1/createUser', concurrency, body: newUser, maxRequests: 100_000, maxMs: 3_000 }),
        (r) => r.requests,
      );
      const bare = await engineCpuPerWrite(
        () => floor.saturate(concurrency, 3_000),
        (perS, ms) => (perS * ms) / 1000,
      );
      const hashes = (hashBefore + (await hashesPerSecond(setting))) / 2;
      byConcurrency[concurrency] = {
        createPerS: create.result.per_s,
        createErrors: create.result.errors,
        bareHashThenPutPerS: round(bare.result, 1),
        hashesPerS: round(hashes, 1),
        engineCpuMsPerWrite: { create: round(create.engineMs, 3), bare: round(bare.engineMs, 3) },
      };
      const at = byConcurrency[concurrency];
      context.progress(
        `  c=${concurrency}: createUser ${at.createPerS}/s (${at.createErrors} errors), bare ${at.bareHashThenPutPerS}/s, hashing alone ${at.hashesPerS}/s; DynamoDB Local ${at.engineCpuMsPerWrite.create} and ${at.engineCpuMsPerWrite.bare} ms CPU per write`,
      );
    }
    const [concurrency, best] = Object.entries(byConcurrency).sort(([, a], [, b]) => b.createPerS - a.createPerS)[0]!;
    return {
      concurrency: Number(concurrency),
      ...best,
      createVsHashLimit: round(best.createPerS / best.hashesPerS, 3),
      bareVsHashLimit: round(best.bareHashThenPutPerS / best.hashesPerS, 3),
      hashCpuMs: round((availableParallelism() * 1000) / best.hashesPerS, 3),
      byConcurrency,
    };
  },
  targets: (r) => ({
    createVsHashLimit: atLeast(
      `create throughput over hash throughput >= ${LIMIT}`,
      LIMIT,
      r.createVsHashLimit,
      `${r.createPerS} creates/s against ${r.hashesPerS} hashes/s; the bare hash then PutItem (no service) ${r.bareVsHashLimit} ×${r.bareVsHashLimit < LIMIT ? ': the limit is below the floor' : ''}`,
    ),
  }),
  render: (r) => `## Throughput

At concurrency ${r.concurrency}: createUser over HTTP **${r.createPerS}/s** (${r.createErrors} errors), ${r.createVsHashLimit} × the ${r.hashesPerS} hashes/s of the service's setting alone, every core busy, in windows just before and after; the bare work (a hash then the PutItem with the SDK, no service) ${r.bareHashThenPutPerS}/s, ${r.bareVsHashLimit} × hashing alone. DynamoDB Local shares the cores: its CPU per write is part of every figure but the last, and was measured in the same windows: ${r.engineCpuMsPerWrite.create} ms per create, ${r.engineCpuMsPerWrite.bare} ms per bare write, against ${r.hashCpuMs} ms of CPU per hash (the cores over the hashes per second).

${table(
  [
    'concurrency',
    'createUser/s',
    'errors',
    'bare hash then PutItem/s',
    'hashes/s alone',
    'DynamoDB Local CPU ms per create',
    'per bare write',
  ],
  Object.entries(r.byConcurrency).map(([c, at]) => [
    c,
    at.createPerS,
    at.createErrors,
    at.bareHashThenPutPerS,
    at.hashesPerS,
    at.engineCpuMsPerWrite.create,
    at.engineCpuMsPerWrite.bare,
  ]),
)}`,
};
