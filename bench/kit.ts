/**
 * What every measurement shares: a target (a figure against its limit, with its floor and spread),
 * rounds of paired calls, and the floor made of a request's own DynamoDB calls replayed bare.
 *
 * A figure is measured against its floor in the same run: each step of a round times the subject
 * and its floor one after the other, a round's figure is the median of its steps' differences, and
 * the figure reported is the median of the rounds with their range. Other work on a shared machine
 * comes and goes; it meets both sides of a difference alike.
 */

import * as DynamoDB from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Env } from './env';

export interface Target {
  /** What is measured, and the bound, in words. */
  readonly target: string;
  readonly unit: string;
  /** null for a figure shown beside the targets and judged against nothing. */
  readonly limit: number | null;
  /** The median over the rounds. */
  readonly value: number;
  /** The rounds' range, when the figure is a median of rounds. */
  readonly range?: readonly [number, number];
  /** The floor's own figure in the same run (what the value is measured against), when there is one. */
  readonly floor?: number;
  /** true when value <= limit (or >= for an `atLeast` target); null for a figure without a limit. */
  readonly met: boolean | null;
}

export interface Measurement {
  /** What it measures, one line. */
  readonly title: string;
  run(env: Env): Promise<Target[]>;
}

export const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median over the rounds and their range. */
export interface Spread {
  readonly median: number;
  readonly range: readonly [number, number];
}

export const spread = (rounds: readonly number[]): Spread => ({
  median: round(median(rounds)),
  range: [round(Math.min(...rounds)), round(Math.max(...rounds))],
});

/** A target met when the value is at most the limit. */
export const atMost = (target: string, unit: string, limit: number, value: Spread | number, floor?: number): Target =>
  figure(target, unit, limit, value, floor, 'max');
/** A target met when the value is at least the limit. */
export const atLeast = (target: string, unit: string, limit: number, value: Spread | number, floor?: number): Target =>
  figure(target, unit, limit, value, floor, 'min');

/** A figure shown beside the targets, judged against nothing. */
export const shown = (target: string, unit: string, value: Spread | number, floor?: number): Target =>
  figure(target, unit, null, value, floor, 'max');

function figure(
  target: string,
  unit: string,
  limit: number | null,
  value: Spread | number,
  floor: number | undefined,
  bound: 'max' | 'min',
): Target {
  const s = typeof value === 'number' ? { median: round(value) } : value;
  return {
    target,
    unit,
    limit,
    value: s.median,
    ...('range' in s && { range: s.range }),
    ...(floor !== undefined && { floor: round(floor) }),
    met: limit === null ? null : bound === 'max' ? s.median <= limit : s.median >= limit,
  };
}

/** Milliseconds `work` took. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/**
 * Milliseconds `work` took, and milliseconds of this process's CPU (every thread's: the SDK's, and
 * argon2's on libuv's pool) meanwhile. DynamoDB Local's own CPU is another process's.
 */
export async function cpuTimed(work: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const ms = await timed(work);
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/**
 * `rounds` rounds of `perRound` steps; each step returns the milliseconds of each of its arms. The
 * result: per arm, per round, each step's milliseconds.
 */
export async function inRounds(
  env: Env,
  label: string,
  step: (i: number) => Promise<Record<string, number>>,
  size = env.size,
): Promise<Record<string, number[][]>> {
  const samples: Record<string, number[][]> = {};
  for (let r = 0; r < size.rounds; r++) {
    for (let i = 0; i < size.perRound; i++) {
      for (const [arm, ms] of Object.entries(await step(r * size.perRound + i))) {
        samples[arm] ??= [];
        const rounds = samples[arm];
        const steps = rounds[r] ?? [];
        rounds[r] = steps;
        steps.push(ms);
      }
    }
  }
  env.progress(`  ${label}: ${size.rounds} rounds of ${size.perRound}`);
  return samples;
}

/** `arm` over `floor`: per round the median of the steps' differences, then the spread of the rounds; and the floor's median. */
export function over(
  samples: Record<string, number[][]>,
  arm: string,
  floor: string,
): { difference: Spread; floorMs: number; armMs: number } {
  const a = samples[arm]!;
  const f = samples[floor]!;
  return {
    difference: spread(a.map((steps, r) => median(steps.map((ms, i) => ms - f[r]![i]!)))),
    floorMs: median(f.flat()),
    armMs: median(a.flat()),
  };
}

/** One DynamoDB request as it went on the wire: its operation (`PutItem`) and its JSON body (the low-level command's input). */
export interface WireRequest {
  readonly operation: string;
  readonly body: string;
}

/** A request as the SDK hands it to its HTTP handler, as a WireRequest (its body a string or bytes). */
export const wireRequest = (request: { headers: Record<string, string>; body: unknown }): WireRequest => ({
  operation: request.headers['x-amz-target']!.split('.')[1]!,
  body: typeof request.body === 'string' ? request.body : Buffer.from(request.body as Uint8Array).toString('utf8'),
});

type Recorder = { during<T>(work: () => Promise<T>): Promise<{ result: T; requests: WireRequest[] }> };
const recorders = new WeakMap<object, Recorder>();

/**
 * Records every request `client` sends during `work` (retries too, as sent: at the finalizeRequest
 * step); the floor replays them. One recorder per client.
 */
export function recordRequests(client: DynamoDB.DynamoDBClient | DynamoDBDocumentClient): Recorder {
  const known = recorders.get(client);
  if (known) return known;
  let into: WireRequest[] | undefined;
  client.middlewareStack.add(
    (next) => async (args) => {
      into?.push(wireRequest(args.request as { headers: Record<string, string>; body: unknown }));
      return next(args);
    },
    { step: 'finalizeRequest', name: 'benchRecorder' },
  );
  const recorder: Recorder = {
    async during(work) {
      const requests: WireRequest[] = [];
      into = requests;
      try {
        return { result: await work(), requests };
      } finally {
        into = undefined;
      }
    },
  };
  recorders.set(client, recorder);
  return recorder;
}

/** The module's users (`…-m-<id>@example.com`) and their twins (`…-f-<id>@example.com`): same length, same items. */
export const twinEmails = (tag: string) => {
  const id = crypto.randomUUID().replaceAll('-', '').slice(0, 12);
  // Lower case: the service stores e-mails normalised, and a seeded user must be found.
  const name = tag.toLowerCase();
  return { module: `${name}-m-${id}@example.com`, twin: `${name}-f-${id}@example.com` };
};

/**
 * The floor of a request: its own DynamoDB requests, replayed with the bare SDK client on the twin of
 * each user it touched (a user created, and every request made, alike on both), so the twin's items
 * go through the same states and every condition holds or fails as it did for the module.
 */
export function replayer(client: DynamoDB.DynamoDBClient) {
  const commands = DynamoDB as unknown as Record<
    string,
    new (
      input: unknown,
    ) => DynamoDB.DynamoDBClient extends { send(c: infer C): unknown } ? C : never
  >;
  return async (requests: readonly WireRequest[]): Promise<void> => {
    for (const { operation, body } of requests) {
      const Command = commands[`${operation}Command`];
      if (!Command) throw new Error(`no SDK command for ${operation}`);
      try {
        const input = JSON.parse(body.replace(/-m-([0-9a-f]{12})@example\.com/g, '-f-$1@example.com'));
        // The twin's transaction is another one: the module's token would name a different request.
        delete input.ClientRequestToken;
        await client.send(new Command(input) as never);
      } catch (error) {
        // A condition refused for the module is refused for the twin: the same round trip.
        const name = (error as Error).name;
        if (name !== 'ConditionalCheckFailedException' && name !== 'TransactionCanceledException') throw error;
      }
    }
  };
}
