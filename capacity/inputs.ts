/**
 * What the capacity model reads from the committed bench run (bench/RESULTS.json): every key is named
 * here and nowhere else, and a missing or malformed one fails with one line that names it.
 */

import { OPERATIONS, type Operation } from '../bench/operations';
import type { Demand, TableUnits } from './model';

/**
 * The operations the model covers: the registry's that the bench measures (bench/operations.ts). One
 * the bench does not measure yet has no inputs, and the model says so (UNMEASURED).
 */
export { OPERATIONS, type Operation, UNMEASURED } from '../bench/operations';
/** The sign-in outcomes whose cost differs: a known user's right and wrong password, and an unknown e-mail. */
export const SIGN_IN_OUTCOMES = ['ok', 'wrong', 'unknown'] as const;
export type SignInOutcome = (typeof SIGN_IN_OUTCOMES)[number];
/** The items whose size the model needs (bench/measurements/request-units.ts measures them): hot keys, and the ledger entry the consumer writes. */
export const ITEMS = ['profile', 'ownerAccount', 'apiKey', 'idempotencyRecord', 'ledgerEntry'] as const;
export type Item = (typeof ITEMS)[number];

/**
 * Every key the model reads, with what for: `{op}`, `{outcome}` and `{item}` stand for each value of
 * the lists above. The first four come from the bench's measurements of the three operations, the
 * sign-in's CPU from the bench's sign-in measurement (bench/measurements/sign-in.ts).
 */
export const BENCH_KEYS = [
  { key: 'meta.date', for: 'when the run was made, printed with the table' },
  { key: 'serviceShare.phases.{op}.cpuMs', for: "the operation's CPU per request in the Lambda stand-in (hash and the rest)" },
  { key: 'serviceShare.phases.{op}.wallMsP50', for: "the operation's wall clock p50 in the stand-in (its wait is wall less CPU)" },
  { key: 'requestUnits.operations.{op}', for: 'request units by table, stream records and events of one request' },
  { key: 'requestUnits.withIdempotencyKey.{op}', for: 'the same with an Idempotency-Key header' },
  { key: 'requestUnits.signIn.{outcome}', for: "a sign-in's request units and stream records" },
  { key: 'requestUnits.items.{item}', for: "the item's size in bytes (hot keys)" },
  { key: 'signIn.phases.{outcome}.cpuMs', for: "the sign-in's CPU per attempt in the tool's process (bench/measurements/sign-in.ts)" },
  { key: 'signIn.phases.{outcome}.wallMsP50', for: "the sign-in's wall clock p50 (its wait is wall less CPU)" },
] as const;

/** Each key of {@link BENCH_KEYS} with its placeholders filled in, as `{ key, for }`. */
export function benchKeys(): { key: string; for: string }[] {
  const fill: Record<string, readonly string[]> = { '{op}': OPERATIONS, '{outcome}': SIGN_IN_OUTCOMES, '{item}': ITEMS };
  return BENCH_KEYS.flatMap((entry) => {
    const placeholder = Object.keys(fill).find((p) => entry.key.includes(p));
    return placeholder ? fill[placeholder]!.map((value) => ({ key: entry.key.replace(placeholder, value), for: entry.for })) : [entry];
  });
}

/** A bench run that lacks a key the model reads, or holds it in the wrong shape: its message is the one line printed. */
export class BenchKeyError extends Error {
  override name = 'BenchKeyError';
}

/** The value at a dotted key, or undefined. */
export function valueAt(report: unknown, key: string): unknown {
  let value: unknown = report;
  for (const part of key.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A request's footprint as bench/measurements/request-units.ts records it. */
export interface Footprint {
  readonly units: Readonly<Record<string, TableUnits>>;
  /** Records the users table's stream got. */
  readonly streamRecords: number;
  /** Of them, the ones the consumer's filter passes. */
  readonly consumerRecords: number;
  readonly events: number;
  readonly ledgerWrites: number;
}

export interface BenchInputs {
  /** When the run was made (ISO 8601). */
  readonly date: string;
  readonly operations: Readonly<Record<Operation, { readonly cpuMs: number; readonly waitMs: number; readonly footprint: Footprint }>>;
  readonly withIdempotencyKey: Readonly<Record<Operation, Footprint>>;
  readonly signIn: Readonly<Record<SignInOutcome, { readonly cpuMs: number; readonly waitMs: number; readonly footprint: Footprint }>>;
  readonly itemBytes: Readonly<Record<Item, number>>;
}

/** Reads every key the model needs from a bench run (bench/RESULTS.json parsed); throws {@link BenchKeyError} naming the first missing one. */
export function readBench(report: unknown, source = 'bench/RESULTS.json'): BenchInputs {
  const missing = benchKeys().find(({ key }) => valueAt(report, key) === undefined);
  if (missing) throw new BenchKeyError(`${source} has no "${missing.key}" (${missing.for}): run npm run bench, see docs/capacity.md.`);
  const number = (key: string): number => {
    const value = valueAt(report, key);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new BenchKeyError(`${source}: "${key}" is ${JSON.stringify(value)}, not a number of at least 0.`);
    }
    return value;
  };
  const footprint = (key: string): Footprint => {
    const units = valueAt(report, `${key}.units`);
    if (typeof units !== 'object' || units === null) throw new BenchKeyError(`${source}: "${key}.units" is not an object of tables.`);
    return {
      units: Object.fromEntries(
        Object.keys(units).map((table) => [
          table,
          { writeUnits: number(`${key}.units.${table}.writeUnits`), readUnits: number(`${key}.units.${table}.readUnits`) },
        ]),
      ),
      streamRecords: number(`${key}.streamRecords`),
      consumerRecords: number(`${key}.consumerRecords`),
      events: number(`${key}.events`),
      ledgerWrites: number(`${key}.ledgerWrites`),
    };
  };
  const timed = (cpuKey: string, wallKey: string) => {
    const cpuMs = number(cpuKey);
    return { cpuMs, waitMs: Math.max(0, number(wallKey) - cpuMs) };
  };
  const byOperation = <T>(fn: (op: Operation) => T) => Object.fromEntries(OPERATIONS.map((op) => [op, fn(op)])) as Record<Operation, T>;
  const date = valueAt(report, 'meta.date');
  if (typeof date !== 'string' || Number.isNaN(Date.parse(date))) throw new BenchKeyError(`${source}: "meta.date" is not a date.`);
  return {
    date,
    operations: byOperation((op) => ({
      ...timed(`serviceShare.phases.${op}.cpuMs`, `serviceShare.phases.${op}.wallMsP50`),
      footprint: footprint(`requestUnits.operations.${op}`),
    })),
    withIdempotencyKey: byOperation((op) => footprint(`requestUnits.withIdempotencyKey.${op}`)),
    signIn: Object.fromEntries(
      SIGN_IN_OUTCOMES.map((outcome) => [
        outcome,
        {
          ...timed(`signIn.phases.${outcome}.cpuMs`, `signIn.phases.${outcome}.wallMsP50`),
          footprint: footprint(`requestUnits.signIn.${outcome}`),
        },
      ]),
    ) as BenchInputs['signIn'],
    itemBytes: Object.fromEntries(ITEMS.map((item) => [item, number(`requestUnits.items.${item}`)])) as Record<Item, number>,
  };
}

/** The model's demand of one request from its timing and footprint. */
export const demandOf = (timing: { cpuMs: number; waitMs: number }, footprint: Footprint): Demand => ({
  cpuMs: timing.cpuMs,
  waitMs: timing.waitMs,
  tables: footprint.units,
  consumerRecords: footprint.consumerRecords,
  events: footprint.events,
  ledgerWrites: footprint.ledgerWrites,
});
