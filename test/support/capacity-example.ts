/**
 * A fixed bench run as the capacity model reads it: the bench's own example report
 * (test/support/bench-report-example.ts, each result typed as its measurement returns it, the
 * request-units measurement's included) with the sign-in's CPU by outcome added. The figures are made up,
 * close to a real run's. The sign-in's keys (`signIn.phases.<outcome>`) are the model's guess at
 * issue 35's measurement until it lands: then type them here as that module returns them.
 */

import { exampleBenchReport } from './bench-report-example';

export const EXAMPLE_SIGN_IN = {
  phases: {
    ok: { cpuMs: 10.4, wallMsP50: 13.1 },
    wrong: { cpuMs: 10.3, wallMsP50: 11.8 },
    unknown: { cpuMs: 10.5, wallMsP50: 11.6 },
  },
};

/** The example run, as bench/RESULTS.json would hold it: a copy of its own, free to change. */
export async function exampleCapacityRun(): Promise<Record<string, unknown>> {
  return structuredClone({ ...(await exampleBenchReport()), signIn: EXAMPLE_SIGN_IN });
}
