/**
 * A user's new password, chosen after `must-reset` (or at any time): the current password is verified
 * as a sign-in verifies it (counted, throttled, locked alike), the new one meets the owner's policy
 * through the service's one password-policy module, and one conditional write stores its NFC hash at
 * the stage's setting, clears `should_reset_password` and the count. The stream then emits one
 * `UserPasswordReset`, as for an API reset.
 */

import { passwordBreached, passwordGuessable, passwordOutOfPolicy } from '@white-label-user-management/shared/contract/messages';
import { normalizeEmail } from '@white-label-user-management/shared/domain/email';
import { type BreachCheck, checkPasswordOnline, limitsFor } from '@white-label-user-management/shared/domain/password-policy';
import { hashPassword } from '@white-label-user-management/shared/domain/passwords';
import type { PasswordPolicy } from '@white-label-user-management/shared/platform/config';
import type { ChangePasswordResult } from '../types';
import { attempt, BYTES_PER_CODE_POINT, type SignInDeps, settle, succeedWithCookie } from './sign-in';
import { accountKey } from './sign-in-memory';
import { passwordBinding } from './trusted-devices';

export interface ChangePasswordInput {
  readonly ownerId: string;
  readonly email: string;
  readonly currentPassword: string;
  readonly newPassword: string;
  /** The device cookie the browser holds for this account, if any: a trusted attempt at the current password. */
  readonly deviceCookie?: string;
}

/** The field the refusal messages name: the API's own for a new password (resetUserPassword's). */
export const NEW_PASSWORD_FIELD = 'new_password';

// How a change ends: changed, refused by the policy (the contract's reason and message), or a sign-in's refusal of the
// current password; declared once, in the package's public types (../types.ts).
export type { ChangePasswordResult } from '../types';

export interface ChangePasswordDeps extends SignInDeps {
  /** The stage's length limits (PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH); the owner's minimum replaces the first. */
  readonly passwordPolicy: PasswordPolicy;
  /** The stage's online check, when it has one. */
  readonly breachCheck?: BreachCheck;
}

/** Changes a user's password after verifying the current one: an outcome, never an error, for every expected case. */
export async function changePassword(deps: ChangePasswordDeps, input: ChangePasswordInput): Promise<ChangePasswordResult> {
  const signIn = {
    ownerId: input.ownerId,
    email: input.email,
    password: input.currentPassword,
    ...(input.deviceCookie !== undefined && { deviceCookie: input.deviceCookie }),
  };
  const result = await attempt(deps, signIn);
  if (!('verified' in result)) return result;
  const email = normalizeEmail(input.email);
  // Read only once the current password is known: no policy (the owner's blocked words) answers a stranger.
  const owner = await deps.store.ownerPolicy(input.ownerId);
  const limits = limitsFor(deps.passwordPolicy, owner);
  // Past 4 bytes a code point of the maximum, no NFC form can fit: refused before normalising it.
  const maxBytes = BYTES_PER_CODE_POINT * limits.maxLength;
  const pastAnyLength = input.newPassword.length > maxBytes || Buffer.byteLength(input.newPassword, 'utf8') > maxBytes;
  const verdict = pastAnyLength
    ? 'length'
    : await checkPasswordOnline(
        input.newPassword,
        { limits, email, ...(owner?.blockedWords && { blockedWords: owner.blockedWords }) },
        deps.breachCheck,
      );
  if (verdict !== 'ok') {
    const refused: ChangePasswordResult = {
      outcome: 'refused',
      reason: verdict,
      message:
        verdict === 'length'
          ? passwordOutOfPolicy(NEW_PASSWORD_FIELD, limits)
          : verdict === 'guessable'
            ? passwordGuessable(NEW_PASSWORD_FIELD)
            : passwordBreached(NEW_PASSWORD_FIELD),
    };
    // The current password was right: the attempt counted before verifying is cleared, as a sign-in's.
    return settle(deps, signIn, result.verified, async ({ profile, device }) => {
      const written = await deps.store.succeed(input.ownerId, email, profile.passwordHash, {
        clearsUntrusted: device === undefined,
        ...(device && { device: { clear: device } }),
      });
      return written === 'hash' ? undefined : refused;
    });
  }
  const newHash = await hashPassword(input.newPassword.normalize('NFC'), deps.setting);
  const settled = await settle(
    deps,
    signIn,
    result.verified,
    async (verified): Promise<ChangePasswordResult | 'distrusted' | undefined> => {
      // The new password's version: every device cookie bound to the one before is void; the one returned is bound to it.
      const at = new Date((deps.now ?? Date.now)()).toISOString();
      const cookie = await succeedWithCookie(
        deps,
        input.ownerId,
        email,
        verified,
        ({ device }) => deps.store.changePassword(input.ownerId, email, verified.profile.passwordHash, newHash, at, { device }),
        passwordBinding(verified.profile.createdAt, at),
      );
      if (!cookie || cookie === 'distrusted') return cookie;
      // The write removed the untrusted state with the old password: nothing of it is remembered either.
      deps.memory?.forget(accountKey(input.ownerId, email));
      return { outcome: 'changed', ...cookie };
    },
  );
  // The device was revoked (or rotated elsewhere) meanwhile: decided again as a stranger's attempt (sign-in.ts's signIn).
  if (settled !== 'distrusted') return settled;
  const { deviceCookie: _revoked, ...untrusted } = input;
  return changePassword(deps, untrusted);
}
