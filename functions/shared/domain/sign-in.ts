/**
 * The tool's sign-in, as plain rules over a port: the sign-in package (packages/sign-in/src/index.ts) runs
 * them in the tool's back end on the users table. NFC first, then the string as given; every accepted hash
 * format within the import's ceilings, the costly ones in a bounded lane; each attempt counted before
 * it is verified, with growing waits and NIST's hard limit (sign-in-attempts.ts), the same way for an
 * e-mail no user has; a success clears the count and upgrades the hash, unless a reset came first.
 */

import { randomUUID } from 'node:crypto';
import { type Argon2Setting, DEFAULT_PASSWORD_POLICY, formatArgon2Setting } from '#platform/config';
import type { CostlyLane, LanePlace } from './costly-lane';
import { normalizeEmail } from './email';
import { isCostly, verificationCost } from './hash-cost';
import { verifyHash } from './password-hashes';
import type { OwnerPasswordPolicy } from './password-policy';
import { hashPassword } from './passwords';
import { type IssuedSession, issueSession } from './sessions';
import { type AttemptState, decideAttempt, hashTag, UNTRUSTED_FAILURE_LIMIT } from './sign-in-attempts';
import { isCurrentHash, matchedOnPrefixOnly, oversized, passwordForms } from './sign-in-inputs';
import { accountKey, type SignInMemory } from './sign-in-memory';
import {
  type DeviceRecord,
  issueDeviceCookie,
  looksLikeDeviceCookie,
  openDeviceCookie,
  type PresentedDevice,
  passwordBinding,
  trusts,
} from './trusted-devices';

export {
  BCRYPT_MAX_BYTES,
  BYTES_PER_CODE_POINT,
  isCurrentHash,
  MAX_EMAIL_OCTETS,
  matchedOnPrefixOnly,
  oversized,
  passwordForms,
} from './sign-in-inputs';

/** What a sign-in needs of a user's profile. */
export interface SignInProfile {
  readonly passwordHash: string;
  readonly shouldResetPassword: boolean;
  /** The profile's `created_at` and `updated_at` (ISO instants), what a device cookie is bound to (trusted-devices.ts). */
  readonly createdAt?: string;
  readonly updatedAt?: string;
}

/** The profile (absent: no user has the e-mail), the attempt state (absent: none kept) and the device named, read together. */
export interface SignInRead {
  readonly profile?: SignInProfile;
  readonly state?: AttemptState;
  /** The record of the device a sealed cookie names, when one was asked for and exists. */
  readonly device?: DeviceRecord;
}

/** A fresh device cookie's record, as a success writes it. */
export interface NewDevice {
  readonly deviceId: string;
  readonly secretDigest: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
  readonly binding: string;
  /** ISO instant: the record's last use (and, for a new record, its creation). */
  readonly at: string;
}

/**
 * What a success writes besides the profile: the untrusted state cleared (an untrusted success) or kept (a
 * trusted one), and the device: a fresh cookie's record (`replaces`: the
 * digest the trusted record holds now, rotated on that condition; absent: a new record), or a trusted
 * record's failures cleared without a new cookie (`clear`).
 */
export interface Success {
  readonly upgradedHash?: string;
  readonly clearsUntrusted: boolean;
  readonly device?:
    | { readonly issue: NewDevice; readonly replaces?: string }
    | { readonly clear: { readonly deviceId: string; readonly secretDigest: string } };
}

/** How a success's write ended: done; not done because the hash is no longer the verified one; or because the trusted record changed. */
export type SuccessWrite = 'done' | 'hash' | 'device';

/** What a sign-in needs from storage (the port); functions/shared/store/sign-in-store.ts implements it on DynamoDB. */
export interface SignInStore {
  /** The profile, the attempt state and (with `deviceId`) that device's record, in one strongly consistent read. */
  read(ownerId: string, email: string, deviceId?: string): Promise<SignInRead>;
  /**
   * Stores `next` on condition that the stored state is still `expected` (absent: none). When it is
   * not, nothing is written and the state found comes back, to decide again.
   */
  count(
    ownerId: string,
    email: string,
    expected: AttemptState | undefined,
    next: AttemptState,
  ): Promise<{ readonly counted: true } | { readonly counted: false; readonly found: AttemptState | undefined }>;
  /**
   * Counts a trusted attempt, in one write apart from the untrusted state: one more failure on the device's
   * own record, on condition that it still holds `device.secretDigest` (with `previous`: as the cookie its
   * last rotation replaced, within the grace, which the write then ends), has failed fewer than
   * DEVICE_FAILURE_LIMIT times and has not expired. False, with nothing written, when the condition fails.
   */
  countTrusted(
    ownerId: string,
    email: string,
    device: { readonly deviceId: string; readonly secretDigest: string },
    now: number,
    previous?: boolean,
  ): Promise<boolean>;
  /**
   * After a verified password: the profile checked (or its hash upgraded) on condition that the hash is still
   * `verifiedHash`, and `success` written, in one write; after a new device record, the user's records past
   * MAX_DEVICES_PER_USER deleted, least recently used first.
   */
  succeed(ownerId: string, email: string, verifiedHash: string, success: Success): Promise<SuccessWrite>;
  /** changePassword's write: the new hash, `updated_at` = `at`, the reset flag cleared, the state and budget removed, the device written; on the same condition. */
  changePassword(
    ownerId: string,
    email: string,
    verifiedHash: string,
    newHash: string,
    at: string,
    success: Omit<Success, 'upgradedHash' | 'clearsUntrusted'>,
  ): Promise<SuccessWrite>;
  /** The owner's password policy as `admin set-password-policy` last set it; undefined when never set. */
  ownerPolicy(ownerId: string): Promise<OwnerPasswordPolicy | undefined>;
  /** The owner's device key (made on first use), which seals its tools' device cookies. */
  ownerDeviceKey(ownerId: string): Promise<Buffer>;
  /** Every device record kept for the user (trusted or not any more). */
  devices(ownerId: string, email: string): Promise<readonly DeviceRecord[]>;
  /** Deletes the user's device records (one, with `deviceId`); how many there were. */
  revokeDevices(ownerId: string, email: string, deviceId?: string): Promise<number>;
}

/** A fresh device cookie, returned on every success: the tool keeps it in the browser until `deviceCookieExpiresAt`. */
export interface IssuedCookie {
  readonly deviceCookie: string;
  /** ISO instant: the cookie's Expires. */
  readonly deviceCookieExpiresAt: string;
}

/** How a sign-in ends: an outcome, never an error, for a wrong password, an unknown e-mail or a refusal. */
export type SignInResult =
  | ({ readonly outcome: 'ok' } & IssuedCookie & IssuedSession)
  | { readonly outcome: 'wrong' }
  | ({ readonly outcome: 'must-reset' } & IssuedCookie)
  | { readonly outcome: 'throttled'; readonly retryAfterSeconds: number }
  | { readonly outcome: 'locked' }
  | { readonly outcome: 'busy'; readonly retryAfterSeconds: number };

/** The outcomes that refuse before or instead of a verified password. */
export type SignInRefusal = Extract<SignInResult, { outcome: 'wrong' | 'throttled' | 'locked' | 'busy' }>;

export interface SignInDeps {
  readonly store: SignInStore;
  /** The stage's argon2id setting: what upgraded hashes and the dummy hash use, and what "costly" is measured against. */
  readonly setting: Argon2Setting;
  /** Where costly verifications wait and run (costly-lane.ts). */
  readonly lane: CostlyLane;
  /** The clock (epoch ms); tests inject a fake one. @default Date.now */
  readonly now?: () => number;
  /** Verifies a password against a stored hash, costly or not; tests wrap it to see or to time what was tried. */
  readonly verify?: (stored: string, password: string) => Promise<boolean>;
  /** The stage's password lengths: `maxLength` bounds what a sign-in reads at all ({@link oversized}). @default DEFAULT_PASSWORD_POLICY */
  readonly passwordPolicy?: { readonly maxLength: number };
  /**
   * The process's memory of refusals, verification times and owners' imported mixes (sign-in-memory.ts);
   * without it every attempt reads, a cheaper hash is not padded and an unknown e-mail is verified at the stage's setting.
   */
  readonly memory?: SignInMemory;
}

export interface SignInInput {
  readonly ownerId: string;
  readonly email: string;
  readonly password: string;
  /** The device cookie the browser holds for this account, if any (trusted-devices.ts). */
  readonly deviceCookie?: string;
}

const dummies = new Map<string, Promise<string>>();
/**
 * A hash at the stage's setting of a password nobody knows, made once per setting and process;
 * the sign-in module starts it when it is built, so not even the first unknown e-mail waits for it.
 */
export function dummyHash(setting: Argon2Setting): Promise<string> {
  const key = formatArgon2Setting(setting);
  let dummy = dummies.get(key);
  if (!dummy) {
    dummy = hashPassword(randomUUID(), setting);
    dummies.set(key, dummy);
  }
  return dummy;
}

/** Tries to count before deciding otherwise: a burst of parallel attempts on one e-mail settles in fewer rounds than this. */
const COUNT_TRIES = 12;

/** A verified attempt: the profile it was verified on, the form of the password that matched, and the trusted device it came with. */
export interface Verified {
  readonly profile: SignInProfile;
  readonly matched: string;
  readonly forms: readonly string[];
  readonly device?: PresentedDevice;
  /** The device's previous cookie, in its grace: the success makes a new record and leaves the current cookie valid. */
  readonly grace?: true;
}

/** The first form of the password that `stored` accepts, or undefined. */
async function firstMatch(stored: string, forms: readonly string[], verify: (stored: string, password: string) => Promise<boolean>) {
  for (const form of forms) if (await verify(stored, form)) return form;
  return undefined;
}

/** Waits until `deadline` (performance.now() ms): a timer for most of it, then turns of the event loop, so it ends close to the deadline. */
async function waitUntil(deadline: number): Promise<void> {
  const coarse = deadline - performance.now() - 2;
  if (coarse > 0) await new Promise((resolve) => setTimeout(resolve, coarse));
  while (performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether a stored hash costs less to verify than one at the stage's setting (then a `wrong` is padded to the stage's time). */
export function isCheaper(stored: string, setting: Argon2Setting): boolean {
  const cost = verificationCost(stored);
  if (!cost || isCurrentHash(stored, setting)) return false;
  return cost.work < setting.memoryCost * setting.timeCost * setting.parallelism;
}

/**
 * The verification an attempt makes: `verify` itself for a costly hash (in its lane place) or one dearer than the
 * stage's; timed, for the memory, for a hash at the stage's setting; for a cheaper one, padded by waiting to a time drawn
 * among the recent stage verifications (and, before any are known, followed by a verification of the stage's dummy).
 */
function timedVerify(deps: SignInDeps, verify: (stored: string, password: string) => Promise<boolean>) {
  const { memory } = deps;
  if (!memory) return verify;
  return async (stored: string, password: string): Promise<boolean> => {
    const start = performance.now();
    if (isCurrentHash(stored, deps.setting)) {
      const ok = await verify(stored, password);
      memory.recordStageVerification(performance.now() - start);
      return ok;
    }
    if (!isCheaper(stored, deps.setting)) return verify(stored, password);
    const target = memory.drawStageVerification();
    const ok = await verify(stored, password);
    if (target === undefined) await verifyHash(await dummyHash(deps.setting), password);
    else await waitUntil(start + target);
    return ok;
  };
}

/** The device a cookie names, when it carries this owner's seal for this e-mail (trusted-devices.ts); else undefined, as no cookie. */
async function presentedDevice(deps: SignInDeps, ownerId: string, email: string, cookie: string | undefined) {
  if (!looksLikeDeviceCookie(cookie)) return undefined;
  return openDeviceCookie(await deps.store.ownerDeviceKey(ownerId), ownerId, email, cookie);
}

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

/**
 * After a verified attempt, settles it with `write` (which clears the state, on condition that the
 * hash is still the verified one). When a reset or another sign-in's upgrade replaced the hash in
 * between, the password is verified again against the hash now stored: the old password of a reset
 * answers `wrong`, never `ok`; the same password upgraded by a parallel sign-in still passes.
 */
export async function settle<T>(
  deps: SignInDeps,
  input: SignInInput,
  verified: Verified,
  write: (current: Verified) => Promise<T | undefined>,
): Promise<T | { readonly outcome: 'wrong' }> {
  const email = normalizeEmail(input.email);
  let current = verified;
  for (let round = 0; round < 3; round++) {
    const done = await write(current);
    if (done !== undefined) return done;
    const { profile } = await deps.store.read(input.ownerId, email);
    if (!profile) break;
    const matched = await firstMatch(profile.passwordHash, current.forms, deps.verify ?? verifyHash);
    if (matched === undefined) break;
    // The password changed in between (a reset to the same password): the device's trust was for the one before.
    const sameBinding =
      passwordBinding(profile.createdAt, profile.updatedAt) === passwordBinding(current.profile.createdAt, current.profile.updatedAt);
    const { device: _void, ...untrusted } = current;
    current = sameBinding ? { ...current, profile, matched } : { ...untrusted, profile, matched };
  }
  return { outcome: 'wrong' };
}

/**
 * Writes a success with a fresh device cookie: the trusted device's record rotated (its id kept), or a new
 * record. Undefined when the hash is no longer the verified one; `distrusted` when the trusted record changed
 * meanwhile (the owner revoked it, or a parallel success rotated it): the device's trust is gone, so the
 * attempt must be decided again as a stranger's (never a new record written past a lock).
 */
export async function succeedWithCookie(
  deps: SignInDeps,
  ownerId: string,
  email: string,
  verified: Verified,
  write: (success: Success & { readonly device: { readonly issue: NewDevice } }) => Promise<SuccessWrite>,
  binding: string,
): Promise<(IssuedCookie & IssuedSession) | 'distrusted' | undefined> {
  const now = (deps.now ?? Date.now)();
  const ownerKey = await deps.store.ownerDeviceKey(ownerId);
  // The previous cookie in its grace gets a new record: the current cookie (perhaps in a lost response) stays valid.
  const rotate = verified.grace ? undefined : verified.device;
  const cookie = issueDeviceCookie(ownerKey, ownerId, email, now, rotate?.deviceId);
  const issue: NewDevice = { ...cookie, binding, at: new Date(now).toISOString() };
  const written = await write({
    clearsUntrusted: verified.device === undefined,
    device: { issue, ...(rotate && { replaces: rotate.secretDigest }) },
  });
  if (written === 'hash') return undefined;
  if (written === 'device' && rotate) return 'distrusted';
  if (written === 'device') throw new Error('a new device record was refused: its id was taken');
  if (!verified.device) deps.memory?.forget(accountKey(ownerId, email));
  const session = issueSession(ownerKey, ownerId, email, binding, cookie.deviceId, now);
  return { deviceCookie: cookie.value, deviceCookieExpiresAt: new Date(cookie.expiresAt * 1000).toISOString(), session };
}

/** Signs a user of the owner's tool in: an outcome, never an error, for a wrong password, an unknown e-mail or a refusal. */
export async function signIn(deps: SignInDeps, input: SignInInput): Promise<SignInResult> {
  const result = await attempt(deps, input);
  if (!('verified' in result)) return result;
  const email = normalizeEmail(input.email);
  const settled = await settle(deps, input, result.verified, async (verified): Promise<SignInResult | 'distrusted' | undefined> => {
    const { profile, matched, forms } = verified;
    const stored = profile.passwordHash;
    // bcrypt checked the first 72 bytes only: the rest may be a typo, so it never becomes the password.
    const mustReset = profile.shouldResetPassword || matchedOnPrefixOnly(stored, matched);
    // Upgraded: another format or setting, or a hash of the password before NFC (then one verify suffices next time).
    const upgrade = !mustReset && (matched !== forms[0] || !isCurrentHash(stored, deps.setting));
    const upgradedHash = upgrade ? await hashPassword(forms[0]!, deps.setting) : undefined;
    const cookie = await succeedWithCookie(
      deps,
      input.ownerId,
      email,
      verified,
      (success) => deps.store.succeed(input.ownerId, email, stored, { ...success, ...(upgradedHash && { upgradedHash }) }),
      passwordBinding(profile.createdAt, profile.updatedAt),
    );
    if (cookie === 'distrusted' || !cookie) return cookie;
    const { session, ...issued } = cookie;
    return mustReset ? { outcome: 'must-reset', ...issued } : { outcome: 'ok', ...issued, session };
  });
  // The device's record changed while its attempt was verified (revoked, or rotated by a parallel success): the
  // attempt is a stranger's now, counted and decided again as one, so a revocation in flight never answers ok past a lock.
  return settled === 'distrusted' ? signIn(deps, { ownerId: input.ownerId, email: input.email, password: input.password }) : settled;
}
