/**
 * The password hashes this service accepts from another system on import, and the one place that
 * verifies a stored hash: the import checks a hash here before writing it, and the sign-in module
 * the tool imports (sign-in/) verifies with it, so both hold the same formats and the same
 * ceilings. Only argon2id hashes are ever made here; the others are kept until the user's next
 * sign-in upgrades them or a reset replaces them.
 */

import { pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { verify as argon2Verify } from '@node-rs/argon2';
import { compare as bcryptCompare } from 'bcryptjs';

export type HashFormat = 'argon2id' | 'argon2i' | 'bcrypt' | 'pbkdf2_sha256';

/**
 * What one verification may cost the tool (docs/adr/0017-sign-in-module.md has each ceiling's
 * measured cost): past any of these a single import line could make a sign-in a denial of service.
 */
export const HASH_CEILINGS = {
  argon2: { memoryKiB: 262_144, passes: 10, lanes: 8 },
  bcryptCost: 14,
  pbkdf2Iterations: 2_000_000,
} as const;

/** A stored hash the service accepts, with the parameters that set its cost. */
export type AcceptedHash =
  | { readonly format: 'argon2id' | 'argon2i'; readonly memoryKiB: number; readonly passes: number; readonly lanes: number }
  | { readonly format: 'bcrypt'; readonly cost: number }
  | { readonly format: 'pbkdf2_sha256'; readonly iterations: number; readonly salt: string; readonly key: Buffer };

/** A hash's verdict: accepted, or why not (`unsupported`: it can never verify; `too-costly`: past a ceiling). */
export type HashVerdict = { readonly accepted: AcceptedHash } | { readonly refused: 'unsupported' | 'too-costly' };

/** A decimal count as the formats write it: no sign, no leading zero. */
const COUNT = '(0|[1-9][0-9]*)';
/** `$argon2id$v=19$m=<KiB>,t=<n>,p=<n>$<salt>$<hash>`, base64 without padding (the PHC string format). */
const ARGON2 = new RegExp(`^\\$(argon2id|argon2i)\\$v=19\\$m=${COUNT},t=${COUNT},p=${COUNT}\\$([A-Za-z0-9+/]+)\\$([A-Za-z0-9+/]+)$`);
/** `$2a$`, `$2b$` or `$2y$`, a two-digit cost, 22 characters of salt and 31 of hash in bcrypt's base64. */
const BCRYPT = /^\$2[aby]\$([0-9]{2})\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;
const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Django's `pbkdf2_sha256$<iterations>$<salt>$<base64 of the 32-byte key>`. */
const PBKDF2_SHA256 = new RegExp(`^pbkdf2_sha256\\$${COUNT}\\$([A-Za-z0-9./+_-]{1,128})\\$([A-Za-z0-9+/]{43}=)$`);

/**
 * Argon2's own bounds (RFC 9106, section 3.1): salt at least 8 bytes, tag at least 4, lanes below 2^24, 32-bit counts;
 * 64 bytes at most for salt and tag (BLAKE2b's whole output; tools write 8 to 32 and 16 to 64 bytes).
 */
const ARGON2_LIMITS = { saltBytes: [8, 64], tagBytes: [4, 64], maxLanes: 0xff_ffff, maxCount: 0xffff_ffff } as const;

/** The bytes of unpadded base64 when it is canonical (what encoding them gives back), else undefined. */
function canonicalBase64(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64').replace(/=+$/, '') === text.replace(/=+$/, '') ? bytes : undefined;
}

const within = (value: number, [min, max]: readonly [number, number]) => value >= min && value <= max;
const UNSUPPORTED: HashVerdict = { refused: 'unsupported' };
const TOO_COSTLY: HashVerdict = { refused: 'too-costly' };

function argon2Verdict(match: RegExpExecArray): HashVerdict {
  const [, format, m, t, p, salt, tag] = match;
  const [memoryKiB, passes, lanes] = [Number(m), Number(t), Number(p)];
  const saltBytes = canonicalBase64(salt!);
  const tagBytes = canonicalBase64(tag!);
  if (!saltBytes || !within(saltBytes.length, ARGON2_LIMITS.saltBytes) || !tagBytes || !within(tagBytes.length, ARGON2_LIMITS.tagBytes)) {
    return UNSUPPORTED;
  }
  // Below these it cannot verify at all (`Memory cost is too small`); above them it could, at a price.
  if (passes < 1 || lanes < 1 || memoryKiB < 8 * lanes) return UNSUPPORTED;
  if (memoryKiB > ARGON2_LIMITS.maxCount || passes > ARGON2_LIMITS.maxCount || lanes > ARGON2_LIMITS.maxLanes) return UNSUPPORTED;
  const ceiling = HASH_CEILINGS.argon2;
  if (memoryKiB > ceiling.memoryKiB || passes > ceiling.passes || lanes > ceiling.lanes) return TOO_COSTLY;
  return { accepted: { format: format as 'argon2id' | 'argon2i', memoryKiB, passes, lanes } };
}

function bcryptVerdict(match: RegExpExecArray): HashVerdict {
  const [, costText, salt, hash] = match;
  const cost = Number(costText);
  // 16 salt bytes fill 22 characters with 4 bits to spare, 23 hash bytes fill 31 with 2: a string
  // whose spare bits are set is one no bcrypt wrote, and can never compare equal.
  const spare = (text: string, bits: number) => BCRYPT_ALPHABET.indexOf(text.at(-1)!) % 2 ** bits !== 0;
  if (cost < 4 || cost > 31 || spare(salt!, 4) || spare(hash!, 2)) return UNSUPPORTED;
  if (cost > HASH_CEILINGS.bcryptCost) return TOO_COSTLY;
  return { accepted: { format: 'bcrypt', cost } };
}

function pbkdf2Verdict(match: RegExpExecArray): HashVerdict {
  const [, iterationsText, salt, keyText] = match;
  const iterations = Number(iterationsText);
  const key = canonicalBase64(keyText!);
  if (iterations < 1 || !key || key.length !== 32) return UNSUPPORTED;
  if (iterations > HASH_CEILINGS.pbkdf2Iterations) return TOO_COSTLY;
  return { accepted: { format: 'pbkdf2_sha256', iterations, salt: salt!, key } };
}

/**
 * Whether a stored hash is one this service accepts: of a known format, decodable, of the lengths
 * the format allows, and within the ceilings. Decided from the string alone, without verifying.
 */
export function checkHash(hash: string): HashVerdict {
  const argon2 = ARGON2.exec(hash);
  if (argon2) return argon2Verdict(argon2);
  const bcrypt = BCRYPT.exec(hash);
  if (bcrypt) return bcryptVerdict(bcrypt);
  const pbkdf2 = PBKDF2_SHA256.exec(hash);
  if (pbkdf2) return pbkdf2Verdict(pbkdf2);
  return UNSUPPORTED;
}

const pbkdf2Async = promisify(pbkdf2);

/**
 * Whether `password` (its UTF-8 bytes, exactly as given) matches the stored hash. Every format is
 * verified off the event loop or in slices (argon2 on libuv's pool, PBKDF2 with the asynchronous
 * `crypto.pbkdf2`, bcrypt with bcryptjs's asynchronous compare); a hash the service does not
 * accept, or past a ceiling, never matches and costs nothing.
 */
export async function verifyHash(stored: string, password: string): Promise<boolean> {
  const verdict = checkHash(stored);
  if (!('accepted' in verdict)) return false;
  const hash = verdict.accepted;
  switch (hash.format) {
    case 'argon2id':
    case 'argon2i':
      return argon2Verify(stored, password);
    case 'bcrypt':
      // bcrypt reads at most the first 72 bytes of the password (docs/migration.md says so).
      return bcryptCompare(password, stored);
    case 'pbkdf2_sha256': {
      const derived = await pbkdf2Async(password, hash.salt, hash.iterations, hash.key.length, 'sha256');
      return timingSafeEqual(derived, hash.key);
    }
  }
}
