import { randomBytes } from 'node:crypto';
import { type Algorithm, hash, verify } from '@node-rs/argon2';
import type { Argon2Setting, PasswordPolicy } from '#platform/config';

/** The options of an argon2id hash at `setting`; the hash is a PHC string that names them. */
const argon2idOptions = (setting: Argon2Setting) => ({
  // Algorithm is a const enum with no runtime object, which isolated-module builds cannot inline.
  algorithm: 2 as Algorithm.Argon2id,
  memoryCost: setting.memoryCost,
  timeCost: setting.timeCost,
  parallelism: setting.parallelism,
});

/** Hashes a password with argon2id at the deployment's setting: the UTF-8 bytes of exactly this string. */
export const hashPassword = (password: string, setting: Argon2Setting): Promise<string> => hash(password, argon2idOptions(setting));

/** Checks a password against a stored argon2 PHC string, whatever setting made it. */
export const verifyPassword = (phc: string, password: string): Promise<boolean> => verify(phc, password);

/**
 * A password for a user created without one: 24 characters from the CSPRNG (base64url, 6 bits
 * each, 144 bits), or the policy's minimum when that is higher, never more than its maximum.
 */
export function generatePassword(policy: PasswordPolicy): string {
  const length = Math.min(Math.max(24, policy.minLength), policy.maxLength);
  return randomBytes(Math.ceil((length * 3) / 4))
    .toString('base64url')
    .slice(0, length);
}
