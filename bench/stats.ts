/** Small statistics and timing helpers shared by the benchmark's sections. */

/** The p-th percentile (0..100) of the samples, nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

/** Rounds to `digits` decimals, for reports. */
export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Runs `work` `concurrency` at a time, each caller starting its next as its last ends, for `ms`; completions per second. */
export async function perSecond(concurrency: number, ms: number, work: () => Promise<unknown>): Promise<number> {
  let done = 0;
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await work();
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/** Progress goes to stderr, so that `--json` leaves exactly one object on stdout. */
export const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** A figure measured once per round: its median, its range (min–max) and every round's value. */
export interface Spread {
  /** The median of the rounds (the mean of the middle two for an even count). */
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** Each round's value, in the order measured. */
  readonly rounds: readonly number[];
}

/** The fewest rounds a figure reported as a spread is measured over. */
export const MIN_ROUNDS = 5;

/** The median, min and max of one value per round, each rounded to `digits` decimals (the rounds too). */
export function spread(rounds: readonly number[], digits = 3): Spread {
  if (rounds.length === 0) throw new Error('a spread needs at least one round');
  const sorted = [...rounds].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return {
    median: round(median, digits),
    min: round(sorted[0]!, digits),
    max: round(sorted.at(-1)!, digits),
    rounds: rounds.map((value) => round(value, digits)),
  };
}

/** "0.412 (0.3 to 0.51)": a spread's median, then its range (" to ", as either end may be negative). */
export const formatSpread = (s: Spread) => `${s.median} (${s.min} to ${s.max})`;
