/**
 * The global setup of the projects that hold infra tests: the base stages synthesized into the
 * synthesis cache (test/infra/synth-cache.ts) before the first test, once per change of what they
 * are built from. A run of no such project synthesizes nothing.
 */

import { synthCacheDir } from '../infra/synth-cache';

export default function synthSetup(): void {
  try {
    synthCacheDir();
  } catch (error) {
    // Not the run's end: each test that reads the cache tries again and fails with the reason, the others run.
    console.warn((error as Error).message);
  }
}
