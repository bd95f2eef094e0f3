/**
 * The tool's sign-in, as plain rules over a port: the sign-in package (packages/sign-in/src/index.ts) runs
 * them in the tool's back end on the users table. NFC first, then the string as given; every accepted hash
 * format within the import's ceilings, the costly ones in a bounded lane; each attempt counted before
 * it is verified, with growing waits and NIST's hard limit (sign-in-attempts.ts), the same way for an
 * e-mail no user has; a success clears the count and upgrades the hash, unless a reset came first.
 */

import { normalizeEmail } from '@white-label-user-management/shared/domain/email';
import { verifyHash } from '@white-label-user-management/shared/domain/password-hashes';
import { hashPassword } from '@white-label-user-management/shared/domain/passwords';
import { type IssuedSession, issueSession } from './sessions';
import { attempt } from './sign-in-attempt';
import { isCurrentHash, matchedOnPrefixOnly } from './sign-in-inputs';
import { accountKey } from './sign-in-memory';
import type { IssuedDeviceCookie, NewDevice, SignInDeps, SignInInput, SignInResult, Success, SuccessWrite, Verified } from './sign-in-port';
import { firstMatch } from './sign-in-verify';
import { issueDeviceCookie, passwordBinding } from './trusted-devices';

export { attempt } from './sign-in-attempt';
export {
  BCRYPT_MAX_BYTES,
  BYTES_PER_CODE_POINT,
  isCurrentHash,
  MAX_EMAIL_OCTETS,
  matchedOnPrefixOnly,
  oversized,
  passwordForms,
} from './sign-in-inputs';
export type * from './sign-in-port';
export { dummyHash, isCheaper } from './sign-in-verify';

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
): Promise<(IssuedDeviceCookie & IssuedSession) | 'distrusted' | undefined> {
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
