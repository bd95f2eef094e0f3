/** The hash the service makes: argon2id at one of OWASP's five settings, with the service's binding (@node-rs/argon2). */

import { availableParallelism } from 'node:os';
import { type Algorithm, hash } from '@node-rs/argon2';
import type { Argon2Setting } from '#platform/config';
import { perSecond } from './stats';

const PASSWORD = 'correct horse battery staple';

/** One hash at `setting`, as domain/passwords.ts makes it. */
export const hashAt = (setting: Argon2Setting) => hash(PASSWORD, { algorithm: 2 as Algorithm.Argon2id, ...setting });

/**
 * Hashes per second with every core busy for `durationMs`. The binding hashes on libuv's thread pool
 * (4 threads unless UV_THREADPOOL_SIZE says otherwise); two hashes in flight per core keep a core
 * from idling between one hash's end and the next one's start.
 */
export async function hashesPerSecond(setting: Argon2Setting, durationMs = 1_500): Promise<number> {
  const workers = 2 * availableParallelism();
  await Promise.all(Array.from({ length: workers }, () => hashAt(setting)));
  return perSecond(workers, durationMs, () => hashAt(setting));
}
