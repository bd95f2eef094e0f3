/** The two argon2 bindings side by side, at the project's parameters, with no service around them. */

import { availableParallelism } from 'node:os';
import type { Algorithm } from '@node-rs/argon2';
import * as nodeRs from '@node-rs/argon2';
import argon2 from 'argon2';

/** The setting this module measures. */
const ARGON2_OPTIONS = { algorithm: 2 as Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 };

import { median, round, timeEach } from './stats';

export type Binding = 'argon2' | '@node-rs/argon2';

/** The binding the service uses (functions/shared/passwords.ts). */
export const CHOSEN: Binding = '@node-rs/argon2';

const PASSWORD = 'correct horse battery staple';

/** One hash at m=19456 KiB, t=2, p=1 with each binding. */
const HASHERS: Record<Binding, (password: string) => Promise<string>> = {
  argon2: (password) =>
    argon2.hash(password, {
      type: argon2.argon2id,
      memoryCost: ARGON2_OPTIONS.memoryCost,
      timeCost: ARGON2_OPTIONS.timeCost,
      parallelism: ARGON2_OPTIONS.parallelism,
    }),
  '@node-rs/argon2': (password) => nodeRs.hash(password, ARGON2_OPTIONS),
};

/** One hash with the binding. */
export const hashOnce = (binding: Binding) => HASHERS[binding](PASSWORD);

/** Median of sequential hashes: one hash's latency on an otherwise idle process. */
export async function hashMsP50(binding: Binding, runs = 20): Promise<number> {
  return median(await timeEach(runs, () => HASHERS[binding](PASSWORD)));
}

/**
 * Hashes per second with every core busy for `durationMs`. Both bindings hash on libuv's thread
 * pool (4 threads unless UV_THREADPOOL_SIZE says otherwise); two hashes in flight per core keep
 * a core from idling between one hash's end and the next one's start.
 */
export async function hashesPerSecond(binding: Binding, durationMs = 1_500): Promise<number> {
  const hash = HASHERS[binding];
  const workers = 2 * availableParallelism();
  await Promise.all(Array.from({ length: workers }, () => hash(PASSWORD)));
  let done = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < deadline) {
        await hash(PASSWORD);
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

export interface Argon2Result {
  readonly parameters: { readonly m_kib: number; readonly t: number; readonly p: number };
  readonly cores: number;
  readonly bindings: Record<Binding, { hash_ms_p50: number; hashes_per_s: number; cross_verifies: boolean }>;
  readonly chosen: Binding;
}

/**
 * Both bindings: latency, throughput with all cores busy, and whether each verifies the other's
 * hashes. The chosen binding's throughput comes in measured beside the service's saturation runs.
 */
export async function measureArgon2(chosenHashesPerS: number): Promise<Argon2Result> {
  const crossVerifies = {
    argon2: await nodeRs.verify(await HASHERS.argon2(PASSWORD), PASSWORD),
    '@node-rs/argon2': await argon2.verify(await HASHERS['@node-rs/argon2'](PASSWORD), PASSWORD),
  };
  const bindings = {} as Argon2Result['bindings'];
  for (const binding of Object.keys(HASHERS) as Binding[]) {
    bindings[binding] = {
      hash_ms_p50: round(await hashMsP50(binding)),
      hashes_per_s: round(binding === CHOSEN ? chosenHashesPerS : await hashesPerSecond(binding, 2_500), 1),
      cross_verifies: crossVerifies[binding],
    };
  }
  return {
    parameters: { m_kib: ARGON2_OPTIONS.memoryCost, t: ARGON2_OPTIONS.timeCost, p: ARGON2_OPTIONS.parallelism },
    cores: availableParallelism(),
    bindings,
    chosen: CHOSEN,
  };
}
