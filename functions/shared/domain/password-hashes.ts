/**
 * The password hashes another system may hand over on import, recognised by their shape. Only
 * argon2id hashes are ever made here; the others are kept as they are until the user's next
 * sign-in (the data contract's rehash) or a reset replaces them with argon2id.
 */

export type HashFormat = 'argon2id' | 'argon2i' | 'bcrypt' | 'pbkdf2_sha256';

/** `$argon2id$v=19$m=<KiB>,t=<n>,p=<n>$<salt>$<hash>`, base64 without padding, as the PHC string format writes them. */
const ARGON2 = /^\$(argon2id|argon2i)\$v=19\$m=([1-9]\d{0,7}),t=([1-9]\d{0,3}),p=([1-9]\d{0,2})\$[A-Za-z0-9+/]{11,}\$[A-Za-z0-9+/]{16,}$/;
/** `$2a$`, `$2b$` or `$2y$`, a two-digit cost from 04 to 31, then 53 characters of bcrypt's base64 (salt and hash). */
const BCRYPT = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;
/** Django's `pbkdf2_sha256$<iterations>$<salt>$<base64 of the 32-byte key>`. */
const PBKDF2_SHA256 = /^pbkdf2_sha256\$([1-9]\d{0,8})\$([A-Za-z0-9./+_-]{1,128})\$([A-Za-z0-9+/]{43}=)$/;

/** The format of a stored hash, or undefined when it is none the service accepts. */
export function hashFormat(hash: string): HashFormat | undefined {
  const argon2 = ARGON2.exec(hash);
  if (argon2) return argon2[1] as 'argon2id' | 'argon2i';
  if (BCRYPT.test(hash)) return 'bcrypt';
  if (PBKDF2_SHA256.test(hash)) return 'pbkdf2_sha256';
  return undefined;
}
