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

/** Runs `fn` `warmup` times untimed, then `runs` times one after another; returns each run's milliseconds. */
export async function timeEach(runs: number, fn: (i: number) => Promise<unknown>, warmup = 3): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

/** Progress goes to stderr, so that `--json` leaves exactly one object on stdout. */
export const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);
