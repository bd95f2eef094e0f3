/** One counted attempt, trusted or untrusted, up to a verified password or a refusal (sign-in.ts settles it). */

import { normalizeEmail } from '@white-label-user-management/shared/domain/email';
import { verifyHash } from '@white-label-user-management/shared/domain/password-hashes';
import { DEFAULT_PASSWORD_POLICY } from '@white-label-user-management/shared/platform/config';
import type { LanePlace } from './costly-lane';
import { isCostly } from './hash-cost';
import { type AttemptState, decideAttempt, hashTag, UNTRUSTED_FAILURE_LIMIT } from './sign-in-attempts';
import { oversized, passwordForms } from './sign-in-inputs';
import { accountKey } from './sign-in-memory';
import type { SignInDeps, SignInInput, SignInRead, SignInRefusal, Verified } from './sign-in-port';
import { dummyHash, firstMatch, presentedDevice, timedVerify } from './sign-in-verify';
import { type PresentedDevice, passwordBinding, trusts } from './trusted-devices';

/** Tries to count before deciding otherwise: a burst of parallel attempts on one e-mail settles in fewer rounds than this. */
const COUNT_TRIES = 12;

type AttemptResult = SignInRefusal | { readonly verified: Verified };

/**
 * One counted attempt, shared by signIn and changePassword. With a cookie sealed for this account, a
 * trusted attempt first ({@link trustedAttempt}); any other attempt, or a trusted one its record no longer
 * trusts, is untrusted ({@link untrustedAttempt}).
 */
export async function attempt(deps: SignInDeps, input: SignInInput): Promise<AttemptResult> {
  // Past any user's password or address: answered alike for every e-mail, before any normalisation or read.
  if (oversized(input, (deps.passwordPolicy ?? DEFAULT_PASSWORD_POLICY).maxLength)) return { outcome: 'wrong' };
  const email = normalizeEmail(input.email);
  const forms = passwordForms(input.password);
  const presented = await presentedDevice(deps, input.ownerId, email, input.deviceCookie);
  if (!presented) return untrustedAttempt(deps, input.ownerId, email, forms);
  const trusted = await trustedAttempt(deps, input.ownerId, email, forms, presented);
  return 'untrusted' in trusted ? untrustedAttempt(deps, input.ownerId, email, forms, trusted.untrusted) : trusted;
}

/**
 * An attempt with a sealed cookie: read the profile, the state and the device's record together; when the
 * record trusts the cookie, take the device's own place in the costly lane when the hash needs one, count the
 * failure on the device and the user's trusted budget (never on the untrusted state, which an attacker's
 * attempts write), then verify. The account's waits and lock do not refuse it. When the record does not trust
 * the cookie, or its count is refused, the attempt goes on untrusted with what was read.
 */
async function trustedAttempt(
  deps: SignInDeps,
  ownerId: string,
  email: string,
  forms: readonly string[],
  presented: PresentedDevice,
): Promise<AttemptResult | { readonly untrusted: SignInRead }> {
  const now = deps.now ?? Date.now;
  const laneKey = `${accountKey(ownerId, email)}#${presented.deviceId}`;
  const taken = deps.lane.busyFor(laneKey);
  if (taken && 'busy' in taken) return { outcome: 'busy', retryAfterSeconds: taken.retryAfterSeconds };
  const read = await deps.store.read(ownerId, email, presented.deviceId);
  const { profile, device } = read;
  const trust = profile && trusts(device, presented, passwordBinding(profile.createdAt, profile.updatedAt), now());
  if (!profile || !device || !trust) return { untrusted: read };
  let place: LanePlace | undefined;
  try {
    if (isCostly(profile.passwordHash, deps.setting)) {
      const entry = await deps.lane.enter(laneKey, device.failures, profile.passwordHash);
      if ('busy' in entry) return { outcome: 'busy', retryAfterSeconds: entry.retryAfterSeconds };
      place = entry.place;
    }
    if (!(await deps.store.countTrusted(ownerId, email, presented, now(), trust === 'previous'))) return { untrusted: read };
    const verify = timedVerify(deps, deps.verify ?? (place ? place.verify : verifyHash));
    const matched = await firstMatch(profile.passwordHash, forms, verify);
    if (matched === undefined) return { outcome: 'wrong' };
    return { verified: { profile, matched, forms, device: presented, ...(trust === 'previous' && { grace: true as const }) } };
  } finally {
    place?.release();
  }
}

/**
 * An untrusted attempt: answer from memory a refusal this process already knows of (no read; not when a
 * trusted attempt has just read); read the profile and the state; refuse unverified when locked or waiting;
 * take the account's one place in the costly lane when the hash needs one (`busy` at once when it has one
 * already, or past the deadline, uncounted); count the attempt as a failure on condition that the state is
 * still the one read (deciding again when it is not); then verify. An e-mail no user has goes the same way,
 * its verification against a dummy drawn from the owner's imported mix (sign-in-memory.ts).
 */
async function untrustedAttempt(
  deps: SignInDeps,
  ownerId: string,
  email: string,
  forms: readonly string[],
  alreadyRead?: SignInRead,
): Promise<AttemptResult> {
  const now = deps.now ?? Date.now;
  const { memory } = deps;
  const key = accountKey(ownerId, email);
  if (!alreadyRead) {
    const recalled = memory?.recall(key, now());
    if (recalled) return recalled;
    // The account's one place in the costly lane is taken: busy at once, uncounted, with no read.
    const taken = deps.lane.busyFor(key);
    if (taken && 'busy' in taken) return { outcome: 'busy', retryAfterSeconds: taken.retryAfterSeconds };
  }
  let read = alreadyRead ?? (await deps.store.read(ownerId, email));
  let place: LanePlace | undefined;
  try {
    let target: string | undefined;
    let targetOf: string | null = null;
    let next: AttemptState | undefined;
    for (let tries = 0; ; tries++) {
      const tag = hashTag(read.profile?.passwordHash);
      const decision = decideAttempt(read.state, tag, now());
      if ('refused' in decision) {
        const refusal: SignInRefusal =
          decision.refused === 'locked' ? { outcome: 'locked' } : { outcome: 'throttled', retryAfterSeconds: decision.retryAfterSeconds };
        memory?.remember(
          key,
          {
            locked: decision.refused === 'locked',
            waitUntil: now() + (refusal.outcome === 'throttled' ? refusal.retryAfterSeconds * 1000 : 0),
          },
          now(),
        );
        return refusal;
      }
      if (tries >= COUNT_TRIES) return { outcome: 'throttled', retryAfterSeconds: 1 };
      if (target === undefined || targetOf !== (read.profile?.passwordHash ?? null)) {
        targetOf = read.profile?.passwordHash ?? null;
        if (read.profile) memory?.observe(ownerId, key, read.profile.passwordHash);
        target =
          read.profile?.passwordHash ??
          (memory ? await memory.dummyFor(ownerId, key, () => dummyHash(deps.setting)) : await dummyHash(deps.setting));
      }
      if (!place && isCostly(target, deps.setting)) {
        const entry = await deps.lane.enter(key, decision.next.failures - 1, target, !read.profile);
        if ('busy' in entry) return { outcome: 'busy', retryAfterSeconds: entry.retryAfterSeconds };
        place = entry.place;
        // The wait may have been long: decide again at the time of counting.
        continue;
      }
      const counted = await deps.store.count(ownerId, email, read.state, decision.next);
      if (counted.counted) {
        next = decision.next;
        break;
      }
      // Counted against another hash meanwhile: the profile changed since it was read.
      read = counted.found && counted.found.tag !== tag ? await deps.store.read(ownerId, email) : { ...read, state: counted.found };
    }
    const { profile } = read;
    const verify = timedVerify(deps, deps.verify ?? (place ? place.verify : verifyHash));
    const matched = await firstMatch(target, forms, verify);
    if (profile && matched !== undefined) return { verified: { profile, matched, forms } };
    // The failure just counted may have started a wait, or reached the limit: known here, the next attempts need no read.
    if (next && (next.waitUntil > now() || next.failures >= UNTRUSTED_FAILURE_LIMIT))
      memory?.remember(key, { locked: next.failures >= UNTRUSTED_FAILURE_LIMIT, waitUntil: next.waitUntil }, now());
    return { outcome: 'wrong' };
  } finally {
    place?.release();
  }
}
