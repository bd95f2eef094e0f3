import { randomBytes } from 'node:crypto';
import { type Algorithm, hash, verify } from '@node-rs/argon2';
import type { PasswordPolicy } from '#platform/config';

/** argon2id at OWASP's minimum (m=19456 KiB, t=2, p=1); the hash is a PHC string. */
export const ARGON2_OPTIONS = {
  // Algorithm is a const enum with no runtime object, which isolated-module builds cannot inline.
  algorithm: 2 as Algorithm.Argon2id,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

/** Hashes a password with argon2id. */
export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2_OPTIONS);

/** Checks a password against a stored PHC string. */
export const verifyPassword = (phc: string, password: string): Promise<boolean> => verify(phc, password);

/**
 * A password for a user created without one: at least 20 characters from the
 * CSPRNG (base64url, 6 bits each), and long enough for the deployment's policy.
 */
export function generatePassword(policy: PasswordPolicy): string {
  const length = Math.min(Math.max(24, policy.minLength), policy.maxLength);
  return randomBytes(Math.ceil((length * 3) / 4))
    .toString('base64url')
    .slice(0, length);
}
