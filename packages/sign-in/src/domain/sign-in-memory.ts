/**
 * What a sign-in process keeps in memory between attempts, all of it bounded and none of it a secret
 * (docs/adr/0027-fair-lane-and-migrated-users.md):
 *
 * - **Refusals it already knows of.** After an attempt that was refused (`throttled`, `locked`) or
 *   that started a wait, the next untrusted attempts at that e-mail are answered from memory, with no
 *   read, for at most REFUSAL_MEMORY.ms (so a reset made elsewhere is seen within it), for a known and
 *   an unknown e-mail alike: a flood of refused guesses costs the main thread a map look-up instead of
 *   a strongly consistent read, and no longer starves the costly lane's worker.
 * - **Recent verification times at the stage's setting**, from which a `wrong` against a hash cheaper
 *   than the stage's is padded by waiting (never computing) to a time drawn among them: it follows the
 *   load as the stage's own verification does.
 * - **Each owner's mix of imported hashes dearer than the stage's**, as read from the profiles of the
 *   last users this process saw; an e-mail no user has is verified against a dummy of a format and cost
 *   drawn from that mix by a keyed hash of the e-mail (the key is this process's own), so that the
 *   answer for an unknown e-mail is as slow as a migrated user's.
 */

import { createHash, createHmac, pbkdf2, randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { hash as argon2Hash } from '@node-rs/argon2';
import { checkHash } from '@white-label-user-management/shared/domain/password-hashes';
import type { Argon2Setting } from '@white-label-user-management/shared/platform/config';
import { hash as bcryptHash } from 'bcryptjs';
import { verificationCost } from './hash-cost';

/** How long a remembered refusal answers without a read, and how many e-mails are remembered at most. */
export const REFUSAL_MEMORY = { ms: 2_000, entries: 10_000 } as const;

/** Stage verification times kept (the most recent), and how many are needed before a pad is drawn from them. */
export const VERIFY_TIMES = { kept: 64, needed: 8 } as const;

/** Owners whose mix is kept, users per owner in it, and dummy hashes (one per format and cost) at most. */
export const OWNER_MIX = { owners: 1_000, usersPerOwner: 64, dummies: 32 } as const;

/**
 * The stated bound of what this module holds, in MiB: REFUSAL_MEMORY.entries fixed-size entries, the owners'
 * mixes (OWNER_MIX.owners × usersPerOwner short keys) and the dummies (strings under 200 bytes each); the
 * test measures the heap they take.
 */
export const SIGN_IN_MEMORY_BOUND_MIB = 16;

/** A refusal remembered: `locked`, or `throttled` until `waitUntil` (epoch ms); `at` is when it was learnt. */
interface Remembered {
  readonly locked: boolean;
  readonly waitUntil: number;
  readonly at: number;
}

/** What to answer from memory, if anything. */
export type Recalled = { readonly outcome: 'locked' } | { readonly outcome: 'throttled'; readonly retryAfterSeconds: number };

/** A fixed-size key for an e-mail of an owner: memory per entry does not grow with the e-mail's length. */
export const accountKey = (ownerId: string, email: string): string =>
  createHash('sha256').update(ownerId).update('\0').update(email).digest('base64url').slice(0, 22);

const pbkdf2Async = promisify(pbkdf2);

/** A hash of a password nobody knows, in the format and at the cost `like` has. */
async function dummyLike(like: string): Promise<string | undefined> {
  const verdict = checkHash(like);
  if (!('accepted' in verdict)) return undefined;
  const hash = verdict.accepted;
  const secret = randomUUID();
  switch (hash.format) {
    case 'bcrypt':
      return bcryptHash(secret, hash.cost);
    case 'pbkdf2_sha256': {
      const salt = randomBytes(9).toString('base64url');
      const key = await pbkdf2Async(secret, salt, hash.iterations, 32, 'sha256');
      return `pbkdf2_sha256$${hash.iterations}$${salt}$${key.toString('base64')}`;
    }
    case 'argon2id':
    case 'argon2i':
      return argon2Hash(secret, {
        algorithm: hash.format === 'argon2id' ? 2 : 1,
        memoryCost: hash.memoryKiB,
        timeCost: hash.passes,
        parallelism: hash.lanes,
      });
  }
}

/** The class of a stored hash for the mix: its format and cost when dearer than the stage's, else `stage`. */
export function costClass(stored: string, setting: Argon2Setting): string {
  const cost = verificationCost(stored);
  const stage = setting.memoryCost * setting.timeCost * setting.parallelism;
  if (!cost || (cost.work <= stage && cost.memoryKiB <= setting.memoryCost)) return 'stage';
  // The parameters, without salt or hash: `$2b$10`, `pbkdf2_sha256$600000`, `$argon2id$v=19$m=..,t=..,p=..`.
  const fields = stored.startsWith('pbkdf2_sha256$') ? 2 : stored.startsWith('$argon2') ? 4 : 3;
  return stored.split('$').slice(0, fields).join('$');
}

export interface SignInMemory {
  /** The refusal to answer without a read, if this process knows of one in force for the account. */
  recall(key: string, now: number): Recalled | undefined;
  /** Remembers that the account is locked, or waiting until `waitUntil`. */
  remember(key: string, refusal: { readonly locked: boolean; readonly waitUntil: number }, now: number): void;
  /** Forgets the account (a success). */
  forget(key: string): void;
  /** Records how long a verification at the stage's setting took, as seen by the sign-in (ms). */
  recordStageVerification(ms: number): void;
  /** A time drawn among the recent stage verifications (ms), or undefined while too few are known. */
  drawStageVerification(): number | undefined;
  /** Records the hash the owner's user `key` has now (read from the profile). */
  observe(ownerId: string, key: string, stored: string): void;
  /**
   * The hash an e-mail no user has is verified against: a dummy of the class drawn from the owner's mix
   * by a keyed hash of `key`, or `stageDummy` when that class is the stage's (or no mix is known).
   */
  dummyFor(ownerId: string, key: string, stageDummy: () => Promise<string>): Promise<string>;
  /** Entries held now (for tests and measurements). */
  readonly size: { readonly refusals: number; readonly owners: number; readonly dummies: number };
}

/** Sets `key` to `value` as the newest entry, dropping the oldest past `max`. */
function touch<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

export function createSignInMemory(setting: Argon2Setting): SignInMemory {
  const refusals = new Map<string, Remembered>();
  const times: number[] = [];
  let nextTime = 0;
  /** Per owner: the class of the hash of each user seen, newest last. */
  const mixes = new Map<string, Map<string, string>>();
  /** Per class: an example hash of it (from a profile), then the dummy made like it. */
  const examples = new Map<string, string>();
  const dummies = new Map<string, Promise<string | undefined>>();
  const drawKey = randomBytes(32);

  return {
    recall(key, now) {
      const remembered = refusals.get(key);
      if (!remembered) return undefined;
      if (now - remembered.at >= REFUSAL_MEMORY.ms || now < remembered.at) {
        refusals.delete(key);
        return undefined;
      }
      if (remembered.locked) return { outcome: 'locked' };
      if (now < remembered.waitUntil)
        return { outcome: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((remembered.waitUntil - now) / 1000)) };
      refusals.delete(key);
      return undefined;
    },
    remember(key, refusal, now) {
      touch(refusals, key, { locked: refusal.locked, waitUntil: refusal.waitUntil, at: now }, REFUSAL_MEMORY.entries);
    },
    forget(key) {
      refusals.delete(key);
    },
    recordStageVerification(ms) {
      if (times.length < VERIFY_TIMES.kept) times.push(ms);
      else times[nextTime] = ms;
      nextTime = (nextTime + 1) % VERIFY_TIMES.kept;
    },
    drawStageVerification() {
      if (times.length < VERIFY_TIMES.needed) return undefined;
      return times[Math.floor(Math.random() * times.length)];
    },
    observe(ownerId, key, stored) {
      const cls = costClass(stored, setting);
      if (cls !== 'stage' && !examples.has(cls) && examples.size < OWNER_MIX.dummies) examples.set(cls, stored);
      let mix = mixes.get(ownerId);
      if (!mix) mix = new Map();
      touch(mix, key, cls, OWNER_MIX.usersPerOwner);
      touch(mixes, ownerId, mix, OWNER_MIX.owners);
    },
    async dummyFor(ownerId, key, stageDummy) {
      const mix = mixes.get(ownerId);
      if (!mix || mix.size === 0) return stageDummy();
      // Sorted, so that the class an e-mail draws stays its own while the mix's proportions hold.
      const classes = [...mix.values()].sort();
      const u = createHmac('sha256', drawKey).update(ownerId).update('\0').update(key).digest().readUInt32BE(0) / 2 ** 32;
      const cls = classes[Math.floor(u * classes.length)]!;
      const example = examples.get(cls);
      if (cls === 'stage' || !example) return stageDummy();
      let dummy = dummies.get(cls);
      if (!dummy) {
        dummy = dummyLike(example).catch(() => undefined);
        dummies.set(cls, dummy);
      }
      return (await dummy) ?? stageDummy();
    },
    get size() {
      return { refusals: refusals.size, owners: mixes.size, dummies: dummies.size };
    },
  };
}
