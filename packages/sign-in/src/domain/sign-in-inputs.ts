/**
 * What a sign-in makes of its input before any read: the forms of the password to try, and the inputs
 * past anything a user can have; and what a stored hash says about the match (sign-in.ts).
 */

import { checkHash } from '@white-label-user-management/shared/domain/password-hashes';
import type { Argon2Setting } from '@white-label-user-management/shared/platform/config';
import { formatArgon2Setting } from '@white-label-user-management/shared/platform/config';

/** The forms of a password to try, in order: NFC (how the service hashes), then as given when it differs. */
export const passwordForms = (password: string): readonly string[] => {
  const nfc = password.normalize('NFC');
  return nfc === password ? [nfc] : [nfc, password];
};

/** Whether a stored hash is argon2id at `setting`: anything else is upgraded after a sign-in. */
export const isCurrentHash = (stored: string, setting: Argon2Setting) =>
  stored.startsWith(`$argon2id$v=19$${formatArgon2Setting(setting)}$`);

/** bcrypt reads at most this many bytes of a password. */
export const BCRYPT_MAX_BYTES = 72;

/**
 * Whether `stored` is bcrypt and `password` as long as what bcrypt reads or longer: then bcrypt cannot tell
 * the password from its first 72 bytes (a 72-byte prefix of a longer password matches as the whole does),
 * so the match never becomes the password.
 */
export const matchedOnPrefixOnly = (stored: string, password: string): boolean => {
  const verdict = checkHash(stored);
  return 'accepted' in verdict && verdict.accepted.format === 'bcrypt' && Buffer.byteLength(password, 'utf8') >= BCRYPT_MAX_BYTES;
};

/** RFC 5321's limit on a forward path, in octets: no longer e-mail can be anyone's address. */
export const MAX_EMAIL_OCTETS = 254;

/** How many UTF-8 bytes past the stage's maximum length a password may have: 4 (a code point's most). */
export const BYTES_PER_CODE_POINT = 4;

/**
 * Whether the input is past anything a user can have: a password over 4 × the stage's maximum length in
 * UTF-8 bytes (no string of `maxLength` code points, NFC or not, is longer), or an e-mail over 254 octets.
 * Decided before any normalisation, from the length in UTF-16 code units first (never more than the UTF-8
 * bytes), so an 8 MiB password costs no pass over its text; the answer is `wrong`, with nothing read.
 */
export function oversized(input: { readonly email: string; readonly password: string }, maxLength: number): boolean {
  const maxBytes = BYTES_PER_CODE_POINT * maxLength;
  if (input.password.length > maxBytes || input.email.length > MAX_EMAIL_OCTETS) return true;
  return Buffer.byteLength(input.password, 'utf8') > maxBytes || Buffer.byteLength(input.email, 'utf8') > MAX_EMAIL_OCTETS;
}
