/**
 * What a measurement of `npm run bench` is: a small named unit (bench/measurements/<name>.ts) that
 * says what it needs from the shared context, measures, returns a plain JSON-able result, judges
 * its targets (each with its limit beside it) and renders its section of bench/RESULTS.md. The
 * runner (bench/run.ts) starts what the list needs, runs each in turn, and keeps every result
 * under its measurement's name in the report, which is written as bench/RESULTS.json and rendered
 * as bench/RESULTS.md.
 */

import type { Argon2Setting, Config } from '#platform/config';
import type { Stores } from '#store/stores';
import type { LoadOptions, LoadResult } from './http-load';
import type { StandIn } from './stand-in';

/**
 * What a measurement can ask the runner for. `dynamodb`: DynamoDB Local in memory with the bench's
 * tables, warmed up, this process's stores on it and an owner with a key. `server`: the local
 * server in its own process, warmed up (needs `dynamodb`). `lambda`: the Lambda stand-in
 * (bench/lambda-process.ts), a process calling the handlers as a warm Lambda does (needs
 * `dynamodb`). Each is started before the first measurement that needs it and stopped after the last.
 */
export type Need = 'dynamodb' | 'server' | 'lambda';

export interface BenchDynamoDb {
  readonly endpoint: string;
  /** DynamoDB Local's process, for reading its CPU. */
  readonly pid: number;
  readonly tables: {
    readonly usersTableName: string;
    readonly ownersTableName: string;
    readonly idempotencyTableName: string;
    readonly signInTableName: string;
  };
  /** This process's configuration and stores (the handlers called in process use the same ones). */
  readonly config: Config;
  readonly stores: Stores;
  readonly owner: { readonly email: string; readonly apiKey: string; readonly ownerId: string };
}

export interface BenchServer {
  /** The server's process, for reading its CPU. */
  readonly pid: number;
  /** A closed-loop load against it with the owner's key (bench/http-load.ts). */
  load(options: Omit<LoadOptions, 'baseUrl' | 'apiKey'>): Promise<LoadResult>;
}

export interface BenchLambda {
  /**
   * Runs the function exported as `inLambda` by the module at `moduleUrl` (a measurement passes its
   * own `import.meta.url`) inside the stand-in, with `args`, and returns what it returns.
   */
  run<F extends InLambda>(moduleUrl: string, args: Parameters<F>[1]): Promise<Awaited<ReturnType<F>>>;
}

/** The part of a measurement that runs inside the Lambda stand-in; its result crosses IPC, so plain data. */
// biome-ignore lint/suspicious/noExplicitAny: each measurement types its own arguments.
export type InLambda = (standIn: StandIn, args: any) => Promise<unknown>;

export interface BenchContext {
  readonly root: string;
  /** `--quick`: about a third of the requests, for a busy machine. */
  readonly quick: boolean;
  /** `n`, or about a third of it (at least 2) for `--quick`. */
  scaled(n: number): number;
  /** The argon2id setting the service runs with (ARGON2_SETTING, else the default). */
  readonly setting: Argon2Setting;
  /** Each throws unless the measurement declared it in `needs`. */
  readonly dynamodb: BenchDynamoDb;
  readonly server: BenchServer;
  readonly lambda: BenchLambda;
  /** The result of a measurement run earlier in the list. */
  resultOf<R extends object>(measurement: Measurement<R>): R;
  /** A line of progress on stderr. */
  progress(message: string): void;
}

/** A target judged: the figure measured against its limit. */
export interface Target {
  /** The target in words, its limit included, as the report's table shows it. */
  readonly target: string;
  /** The limit the value is judged against. */
  readonly limit: number | string;
  readonly value: number | string;
  readonly met: boolean;
  /** What the figure is made of. */
  readonly note?: string;
}

/** When a run was made, where, and how. */
export interface RunMeta {
  readonly date: string;
  readonly node: string;
  readonly cpu: string;
  readonly cores: number;
  /** A `--quick` run: about a third of the requests. */
  readonly quick: boolean;
  readonly durationS: number;
  /** The machine's load averages (1, 5 and 15 minutes) before and after: other work skews every figure. */
  readonly loadAverage: { readonly before: LoadAverage; readonly after: LoadAverage };
  /** The argon2id setting the service ran with. */
  readonly argon2Setting: string;
  /** The commit measured (null outside a git checkout), and whether files other than the results differed from it. */
  readonly gitCommit: string | null;
  readonly gitDirty: boolean | null;
  /** `--only`: the measurements run, when not all of them (such a run does not rewrite bench/RESULTS.*). */
  readonly only?: readonly string[];
}

export interface LoadAverage {
  readonly oneMinute: number;
  readonly fiveMinutes: number;
  readonly fifteenMinutes: number;
}

/**
 * The whole report, as bench/RESULTS.json holds it: `meta`, then `targets` (by measurement, then by
 * target), then each measurement's result under its name, in the list's order.
 */
export type BenchReport = {
  meta: RunMeta;
  targets: Record<string, Record<string, Target>>;
} & { [measurement: string]: unknown };

export interface Measurement<R extends object> {
  /** Its key in the report (camelCase). */
  readonly name: string;
  /** What it does, for the progress line. */
  readonly title: string;
  readonly needs: readonly Need[];
  run(context: BenchContext): Promise<R>;
  /** Its targets by id, judged once every measurement has run (so a target may read another's result). */
  targets(result: R, report: BenchReport): Record<string, Target>;
  /** Its section of bench/RESULTS.md, from its result (and the report, for figures it sets beside its own). */
  render(result: R, report: BenchReport): string;
}

/** A measurement's result in a report (the JSON object, or one read back from bench/RESULTS.json). */
export function resultIn<R extends object>(report: BenchReport, measurement: Measurement<R>): R {
  const result = report[measurement.name];
  if (result === undefined) throw new Error(`the report has no ${measurement.name}`);
  return result as R;
}

/** The target is met when `value <= limit`. */
export const atMost = (target: string, limit: number, value: number, note?: string): Target => ({
  target,
  limit,
  value,
  met: value <= limit,
  ...(note === undefined ? {} : { note }),
});

/** The target is met when `value >= limit`. */
export const atLeast = (target: string, limit: number, value: number, note?: string): Target => ({
  target,
  limit,
  value,
  met: value >= limit,
  ...(note === undefined ? {} : { note }),
});

/** A target that is not a number against a bound: the limit in words, and whether it holds. */
export const holds = (target: string, limit: string, value: number | string, met: boolean, note?: string): Target => ({
  target,
  limit,
  value,
  met,
  ...(note === undefined ? {} : { note }),
});
