/**
 * What a measurement's `inLambda` part gets inside the Lambda stand-in (bench/lambda-process.ts):
 * the owner's key, the SDK floor on the service's own client, handler calls built as Lambda's
 * runtime hands them over, and `measureRounds`, which reads the process's CPU per thread around
 * each call, so a call's CPU splits into the hash (libuv's pool, where argon2 runs) and the rest
 * (the main thread: pipeline, SDK, HTTP to DynamoDB, logging, JSON; V8's GC helpers).
 * Import it only inside the stand-in, after the parent set the environment.
 */

import { type FloorProbe, floorProbe } from './floor';
import type { Operation } from './in-process';
import { MIN_ROUNDS, median, round, type Spread, spread } from './stats';
import { cpuBetween, threadCpu } from './thread-cpu';

/** One phase's figures: CPU per call (mean) split by thread, the wall clock (p50), and the CPU per call round by round. */
export interface PhaseCpu {
  readonly requests: number;
  /** Calls answered other than 200 (a loaded machine can time a DynamoDB Local call out); counted, not hidden. */
  readonly errors: number;
  readonly cpuMs: number;
  readonly hashCpuMs: number;
  readonly nonHashCpuMs: number;
  readonly wallMsP50: number;
  /** CPU per call in each round (the mean of that round's calls), less what measuring a call costs. */
  readonly cpuMsRounds: Spread;
  readonly nonHashCpuMsRounds: Spread;
}

/** Measures `call` as phase `phase` (its CPU and wall clock added to that phase in the current round). */
export type Measure = (phase: string, call: () => Promise<boolean>) => Promise<void>;

/** The phase every round measures beside its calls: a call that does nothing, measured as every call is. */
export const NOTHING = 'nothing';
export const nothing = async () => true;

export interface StandIn {
  readonly apiKey: string;
  /** The SDK floor (bench/floor.ts) on the service's own client, so both go over the same connections. */
  readonly floor: FloorProbe;
  /** A handler call with its event built now, as Lambda's runtime hands the function a parsed event: true on a 200. */
  handlerCall(operation: Operation, body: object): () => Promise<boolean>;
  /**
   * Runs `round` once with `warmupCalls` calls unrecorded (the JIT, the key cache, the connections),
   * then `rounds` times with `perRound` calls, recording each call `measure` makes. A round must
   * measure `NOTHING` too: what reading /proc around a call costs (its mean over the run) is taken
   * off every other phase. Returns each phase's figures by name.
   */
  measureRounds(
    options: { readonly rounds: number; readonly perRound: number; readonly warmupCalls?: number },
    round: (measure: Measure, calls: number) => Promise<void>,
  ): Promise<Record<string, PhaseCpu>>;
}

export async function createStandIn(apiKey: string): Promise<StandIn> {
  // The handlers read their configuration when they load; the parent set it in our environment.
  const { apiEvent, handlerFor, lambdaContext } = await import('./in-process');
  const { processStores } = await import('#store/stores');
  const { readPasswordSettings } = await import('#platform/config');
  return {
    apiKey,
    floor: floorProbe(processStores().stores.client, process.env.USERS_TABLE_NAME!, readPasswordSettings().argon2),
    handlerCall(operation, body) {
      const event = apiEvent(operation, apiKey, body);
      const context = lambdaContext();
      const handler = handlerFor(operation);
      return async () => (await handler(event, context)).statusCode === 200;
    },
    measureRounds,
  };
}

interface PhaseTotals {
  /** Per round: pool and rest milliseconds, and calls. */
  readonly pool: number[];
  readonly rest: number[];
  readonly calls: number[];
  readonly walls: number[];
  errors: number;
}

/** `StandIn.measureRounds`, in whatever process calls it (the stand-in; a test). */
export async function measureRounds(
  { rounds, perRound, warmupCalls = 10 }: { readonly rounds: number; readonly perRound: number; readonly warmupCalls?: number },
  oneRound: (measure: Measure, calls: number) => Promise<void>,
): Promise<Record<string, PhaseCpu>> {
  if (rounds < MIN_ROUNDS)
    throw new Error(`a figure reported over rounds is measured over at least ${MIN_ROUNDS} rounds (asked for ${rounds})`);
  const totals = new Map<string, PhaseTotals>();
  let current = -1;
  const measure: Measure = async (phase, call) => {
    if (current < 0) {
      await call();
      return;
    }
    let entry = totals.get(phase);
    if (!entry) {
      entry = { pool: Array(rounds).fill(0), rest: Array(rounds).fill(0), calls: Array(rounds).fill(0), walls: [], errors: 0 };
      totals.set(phase, entry);
    }
    const before = threadCpu();
    if (!before) throw new Error('per-thread CPU needs Linux /proc');
    const started = performance.now();
    const ok = await call();
    entry.walls.push(performance.now() - started);
    const spent = cpuBetween(before, threadCpu()!);
    entry.pool[current]! += spent.pool;
    entry.rest[current]! += spent.rest;
    entry.calls[current]!++;
    if (!ok) entry.errors++;
  };
  await oneRound(measure, warmupCalls);
  for (current = 0; current < rounds; current++) await oneRound(measure, perRound);

  const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
  const idle = totals.get(NOTHING);
  if (!idle) throw new Error(`a round measures '${NOTHING}' beside its calls`);
  const overhead = { pool: sum(idle.pool) / sum(idle.calls), rest: sum(idle.rest) / sum(idle.calls) };
  const result: Record<string, PhaseCpu> = {};
  for (const [phase, entry] of totals) {
    // Per call, less what measuring a call costs (the `nothing` phase's own figures stay as measured).
    const less = phase === NOTHING ? { pool: 0, rest: 0 } : overhead;
    const n = sum(entry.calls);
    const pool = sum(entry.pool) / n - less.pool;
    const rest = sum(entry.rest) / n - less.rest;
    const perRoundRest = entry.rest.map((ms, r) => ms / entry.calls[r]! - less.rest);
    result[phase] = {
      requests: n,
      errors: entry.errors,
      cpuMs: round(pool + rest, 3),
      hashCpuMs: round(pool, 3),
      nonHashCpuMs: round(rest, 3),
      wallMsP50: round(median(entry.walls), 3),
      cpuMsRounds: spread(entry.pool.map((ms, r) => ms / entry.calls[r]! - less.pool + perRoundRest[r]!)),
      nonHashCpuMsRounds: spread(perRoundRest),
    };
  }
  return result;
}
