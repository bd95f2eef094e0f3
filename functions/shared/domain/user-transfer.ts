/**
 * Moving users in and out of an owner's tool: each import line's outcome, decided before anything
 * is written, and the line an export writes. Plain rules; the admin CLI reads and writes the files.
 */

import { validators } from '#contract/generated/validators';
import type { PasswordPolicy } from '#platform/config';
import { normalizeEmail } from './email';
import { hashFormat } from './password-hashes';
import { checkPassword, limitsFor, type OwnerPasswordPolicy } from './password-policy';
import type { UserRecord } from './users';

/** Why an import line writes nothing: the contract's reasons, exactly. */
export const IMPORT_REASONS = {
  notJson: 'not JSON',
  invalidEmail: 'invalid user_email',
  noPassword: 'password_hash or user_password required',
  bothPasswords: 'password_hash and user_password both given',
  unsupportedHash: 'unsupported password_hash format',
  passwordPolicy: 'user_password outside the password policy',
  passwordGuessable: 'user_password too easy to guess',
  /** Only where the online check runs (the import does not call it). */
  passwordBreached: 'user_password found in a data breach',
  shouldReset: 'should_reset_password must be a boolean',
  createdAt: 'invalid created_at',
  whiteLabel: 'white label user',
  duplicate: (line: number) => `duplicate of line ${line}`,
} as const;

/** A line that may be imported: the user, with the hash it brings or the password to hash. */
export interface ImportCandidate {
  readonly email: string;
  readonly passwordHash?: string;
  readonly password?: string;
  readonly shouldResetPassword: boolean;
  readonly createdAt?: string;
}

export type LineDecision = { readonly candidate: ImportCandidate } | { readonly failed: string; readonly userEmail: string | null };

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * What one line of an import file asks for, or why it fails; a line that holds no JSON object is
 * `not JSON`. Fields other than the contract's are ignored, so another system's export imports as
 * it is. Checked in the contract's order; the first failure is the reason.
 */
export function decideLine(text: string, policy: PasswordPolicy, ownerEmail: string, ownerPolicy?: OwnerPasswordPolicy): LineDecision {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { failed: IMPORT_REASONS.notJson, userEmail: null };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { failed: IMPORT_REASONS.notJson, userEmail: null };
  const line = value as Record<string, unknown>;
  const given = typeof line.user_email === 'string' ? line.user_email : null;
  const fail = (reason: string): LineDecision => ({ failed: reason, userEmail: given });
  // The API's own e-mail rule (trimmed, lower-cased, at most 254 characters).
  if (given === null || !validators.deleteUser({ user_email: given })) return fail(IMPORT_REASONS.invalidEmail);
  const email = normalizeEmail(given);
  const { password_hash: hash, user_password: password, should_reset_password: shouldReset, created_at: createdAt } = line;
  if (hash === undefined && password === undefined) return fail(IMPORT_REASONS.noPassword);
  if (hash !== undefined && password !== undefined) return fail(IMPORT_REASONS.bothPasswords);
  if (hash !== undefined && (typeof hash !== 'string' || hashFormat(hash) === undefined)) return fail(IMPORT_REASONS.unsupportedHash);
  if (password !== undefined) {
    // The API's rules: NFC, the length in code points, the blocklist, the e-mail, the owner's words.
    if (typeof password !== 'string' || !password.isWellFormed()) return fail(IMPORT_REASONS.passwordPolicy);
    const verdict = checkPassword(password, { limits: limitsFor(policy, ownerPolicy), email, blockedWords: ownerPolicy?.blockedWords });
    if (verdict === 'length') return fail(IMPORT_REASONS.passwordPolicy);
    if (verdict === 'guessable') return fail(IMPORT_REASONS.passwordGuessable);
  }
  if (shouldReset !== undefined && typeof shouldReset !== 'boolean') return fail(IMPORT_REASONS.shouldReset);
  if (createdAt !== undefined && (typeof createdAt !== 'string' || !ISO_INSTANT.test(createdAt) || Number.isNaN(Date.parse(createdAt)))) {
    return fail(IMPORT_REASONS.createdAt);
  }
  if (email === normalizeEmail(ownerEmail)) return fail(IMPORT_REASONS.whiteLabel);
  return {
    candidate: {
      email,
      ...(typeof hash === 'string' && { passwordHash: hash }),
      // NFC, as the API hashes it.
      ...(typeof password === 'string' && { password: password.normalize('NFC') }),
      shouldResetPassword: shouldReset === true,
      ...(typeof createdAt === 'string' && { createdAt: new Date(Date.parse(createdAt)).toISOString() }),
    },
  };
}

/** A user as the export writes it, one JSON line each: what another owner or stage imports unchanged. */
export interface ExportedUser {
  readonly user_email: string;
  readonly password_hash: string;
  readonly should_reset_password: boolean;
  readonly created_at: string;
}

/** The counts an import ends with. */
export interface ImportCounts {
  imported: number;
  exists: number;
  failed: number;
}

/** What moving users needs from storage (the port); functions/shared/store/user-transfer-store.ts implements it. */
export interface UserTransferStore {
  /** The same conditional create as the API's: false when the e-mail is already a user of this owner. */
  createUser(user: UserRecord): Promise<boolean>;
  userExists(ownerId: string, email: string): Promise<boolean>;
  /** Every user of the owner but the owner's own account, page after page. */
  exportUsers(ownerId: string): AsyncIterable<ExportedUser>;
}
