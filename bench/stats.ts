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
