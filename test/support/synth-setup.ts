/**
 * The global setup of the projects that hold infra tests: the base stages synthesized into the
 * synthesis cache (test/infra/synth-cache.ts) before the first test, once per change of what they
 * are built from. A run of no such project synthesizes nothing.
 */

import { synthCacheDir } from '../infra/synth-cache';

export default function synthSetup(): void {
  synthCacheDir();
}
