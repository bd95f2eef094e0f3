/**
 * What verifying a stored hash costs, estimated from its parameters alone, against the stage's own
 * argon2id setting: the sign-in sends the dear ones (imported hashes past a few times the stage's)
 * to its bounded lane (costly-lane.ts) instead of letting them stall everyone else.
 *
 * The unit is argon2's own work, KiB of memory times passes times lanes (m·t·p). bcrypt's and
 * PBKDF2's work is converted with the CPU each took per verification in ADR 17's measurements
 * (one machine, one verification at a time): argon2id m=7168,t=5 14 ms (0.39 µs per unit); bcrypt
 * cost 12 312 ms and cost 14 1,370 ms (about 200 units per round, 2^cost rounds); PBKDF2-SHA256
 * 2,000,000 iterations 430 ms (about 0.55 units per iteration). An estimate within a factor of two
 * is enough: it only decides which side of a threshold four times the stage's a hash falls on.
 */

import { checkHash } from '@white-label-user-management/shared/domain/password-hashes';
import type { Argon2Setting } from '@white-label-user-management/shared/platform/config';

/** argon2 units per bcrypt round (2^cost rounds per verification). */
const BCRYPT_UNITS_PER_ROUND = 200;
/** argon2 units per PBKDF2-SHA256 iteration. */
const PBKDF2_UNITS_PER_ITERATION = 0.55;

/** A hash is costly when its work or its memory is more than this many times the stage's own hash. */
export const COSTLY_FACTOR = 4;

/** The estimated work (argon2 m·t·p units) and memory (KiB) of one verification; undefined for a hash that never verifies. */
export function verificationCost(stored: string): { readonly work: number; readonly memoryKiB: number } | undefined {
  const verdict = checkHash(stored);
  if (!('accepted' in verdict)) return undefined;
  const hash = verdict.accepted;
  switch (hash.format) {
    case 'argon2id':
    case 'argon2i':
      return { work: hash.memoryKiB * hash.passes * hash.lanes, memoryKiB: hash.memoryKiB };
    case 'bcrypt':
      return { work: 2 ** hash.cost * BCRYPT_UNITS_PER_ROUND, memoryKiB: 4 };
    case 'pbkdf2_sha256':
      return { work: hash.iterations * PBKDF2_UNITS_PER_ITERATION, memoryKiB: 0 };
  }
}

/** Whether verifying `stored` costs more than COSTLY_FACTOR times a hash at the stage's `setting`, in work or in memory. */
export function isCostly(stored: string, setting: Argon2Setting): boolean {
  const cost = verificationCost(stored);
  if (!cost) return false;
  const stage = setting.memoryCost * setting.timeCost * setting.parallelism;
  return cost.work > COSTLY_FACTOR * stage || cost.memoryKiB > COSTLY_FACTOR * setting.memoryCost;
}

/** bcrypt's cost 12, the dearest of the usual migrations ({@link isUsualMigration}). */
const USUAL_BCRYPT_COST = 12;

/**
 * Whether `stored` is a usual migration's hash: no more work than bcrypt at cost 12 (PBKDF2-SHA256 up to about
 * 1.5 million iterations) and no more than `maxMemoryKiB` of memory. Those are what the costly lane's fresh place verifies.
 */
export function isUsualMigration(stored: string, maxMemoryKiB: number): boolean {
  const cost = verificationCost(stored);
  return cost !== undefined && cost.work <= 2 ** USUAL_BCRYPT_COST * BCRYPT_UNITS_PER_ROUND && cost.memoryKiB <= maxMemoryKiB;
}
