/**
 * The one polling helper of the tests: where no event tells a test that a background write,
 * a delivery or a process's output has landed, it asks again every 10 ms until it has.
 * It measures on the monotonic clock, so a test that fakes Date still gets its timeout.
 */

/** Polls until `find` gives something (resolving with it and the time waited), or fails after `timeoutMs`. */
export async function waitFor<T>(
  find: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<{ value: T; waitedMs: number }> {
  const started = performance.now();
  for (;;) {
    const value = await find();
    if (value !== undefined) return { value, waitedMs: performance.now() - started };
    if (performance.now() - started > timeoutMs) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
