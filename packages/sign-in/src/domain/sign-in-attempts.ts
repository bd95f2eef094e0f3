/**
 * Consecutive failed sign-ins, as plain rules: the count, the growing wait before the next attempt,
 * the hard limit, and what is kept for an e-mail no user has. The sign-in (sign-in.ts) decides with
 * these on the state it read, and writes the next state on condition that the stored one is still
 * what it read, so parallel attempts can never count past the allowance.
 *
 * NIST SP 800-63B-4, section 3.2.2: the verifier "SHALL limit consecutive failed authentication
 * attempts ... on a single subscriber account to no more than 100", and names the way to keep the
 * limit from locking the subscriber out: "Requiring the claimant to wait after a failed attempt for a
 * period of time that increases as the subscriber account approaches its maximum allowance for
 * consecutive failed attempts (e.g., 30 seconds up to an hour)" (docs/adr/0018-sign-in-for-real-users.md).
 */

import { createHash } from 'node:crypto';
import { TRUSTED_FAILURES_AT_MOST } from './trusted-devices';

/** NIST's limit: consecutive failures between two successes never pass 100. */
export const MAX_FAILED_SIGN_INS = 100;

/**
 * The untrusted failures (U) that lock the account until a reset: NIST's 100 less what the user's
 * trusted devices can fail (trusted-devices.ts: C devices × L each), so that C × L + U, every failure
 * between two successes, stays within the 100.
 */
export const UNTRUSTED_FAILURE_LIMIT = MAX_FAILED_SIGN_INS - TRUSTED_FAILURES_AT_MOST;

/** Failures after which the next attempt may follow at once; from the next one on, each failure imposes a wait. */
export const FREE_FAILURES = 5;

/** The wait after the first failure that imposes one, and after the last before the lock (NIST's "30 seconds up to an hour"). */
export const WAIT_RANGE_SECONDS = { first: 30, last: 3600 } as const;

/** How long the state of an e-mail no user has is kept after its last counted attempt (DynamoDB's TTL). */
export const UNKNOWN_STATE_DAYS = 30;

/** The tag of "no profile": what the state of an e-mail no user has is counted against. */
export const NO_PROFILE_TAG = 'none';

/** What an e-mail no user has digests instead of a hash: as long as an argon2id PHC string at a stage setting. */
const NO_PROFILE_STAND_IN = '$argon2id$v=19$m=7168,t=5,p=1$'.padEnd(97, 'A');

/**
 * The wait, in seconds, that the `failures`-th consecutive failure imposes before the next attempt:
 * none up to FREE_FAILURES, then growing in equal steps from 30 s (the 6th) to an hour (the one before
 * UNTRUSTED_FAILURE_LIMIT). The UNTRUSTED_FAILURE_LIMIT-th locks instead.
 */
export function waitAfterFailure(failures: number): number {
  const first = FREE_FAILURES + 1;
  const last = UNTRUSTED_FAILURE_LIMIT - 1;
  if (failures < first || failures > last) return 0;
  const { first: shortest, last: longest } = WAIT_RANGE_SECONDS;
  return shortest + Math.round(((failures - first) * (longest - shortest)) / (last - first));
}

/**
 * The shortest time, in seconds, in which anyone, with any number of clients, can bring an account from
 * no failures to `locked`: the first FREE_FAILURES + 1 attempts at once, then each at the end of its wait.
 */
export const fastestLockoutSeconds = (): number => {
  let total = 0;
  for (let failures = 1; failures < UNTRUSTED_FAILURE_LIMIT; failures++) total += waitAfterFailure(failures);
  return total;
};

/** The stored state of an e-mail's attempts, as read (absent: none yet). */
export interface AttemptState {
  /** Consecutive failed attempts counted (each attempt is counted before it is verified). */
  readonly failures: number;
  /** Epoch milliseconds before which an attempt is refused unverified (`throttled`). */
  readonly waitUntil: number;
  /** The tag of the password hash the failures were counted against ({@link hashTag}); a reset changes the hash, and so voids them. */
  readonly tag: string;
  /** Epoch seconds after which the state is void and DynamoDB's TTL deletes it: set only when no user has the e-mail. */
  readonly expiresAt?: number;
}

/**
 * A short digest of the stored hash, so that the count is tied to the password it was counted against:
 * a reset, a changed password or a new user of that e-mail makes another hash, and the count starts
 * again from zero without the reset having to touch the state. NO_PROFILE_TAG when no user has the e-mail.
 */
export const hashTag = (passwordHash: string | undefined): string => {
  // The same digest work for an e-mail no user has (of a stand-in as long as a stage hash), so no refusal's time tells them apart.
  const digest = createHash('sha256')
    .update(passwordHash ?? NO_PROFILE_STAND_IN)
    .digest('base64url')
    .slice(0, 16);
  return passwordHash === undefined ? NO_PROFILE_TAG : digest;
};

/** What an attempt may do: refused unverified (`locked`, `throttled`), or counted with this next state first. */
export type AttemptDecision =
  | { readonly refused: 'locked' }
  | { readonly refused: 'throttled'; readonly retryAfterSeconds: number }
  | { readonly next: AttemptState };

/** The count in force: none when the state was counted against another hash, or has expired. */
export function inForce(stored: AttemptState | undefined, tag: string, now: number): { failures: number; waitUntil: number } {
  if (!stored || stored.tag !== tag || (stored.expiresAt !== undefined && stored.expiresAt * 1000 <= now))
    return { failures: 0, waitUntil: 0 };
  return stored;
}

/**
 * Decides an attempt at `now` (epoch ms) on the state read, for a profile whose hash has `tag`:
 * locked at the limit, throttled during a wait, otherwise counted as a failure before verifying
 * (a success clears the state afterwards). The same rule for a known and an unknown e-mail.
 */
export function decideAttempt(stored: AttemptState | undefined, tag: string, now: number): AttemptDecision {
  const current = inForce(stored, tag, now);
  if (current.failures >= UNTRUSTED_FAILURE_LIMIT) return { refused: 'locked' };
  if (now < current.waitUntil) return { refused: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((current.waitUntil - now) / 1000)) };
  const failures = current.failures + 1;
  return {
    next: {
      failures,
      waitUntil: now + waitAfterFailure(failures) * 1000,
      tag,
      ...(tag === NO_PROFILE_TAG && { expiresAt: Math.ceil(now / 1000) + UNKNOWN_STATE_DAYS * 86_400 }),
    },
  };
}
