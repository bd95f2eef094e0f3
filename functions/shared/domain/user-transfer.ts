/**
 * Moving users in and out of an owner's tool: each import line's outcome, decided before anything
 * is written, and the line an export writes. Plain rules; the admin CLI reads and writes the files.
 */

import { validator as userEmailValidator } from '#contract/generated/validators/userEmail';
import type { PasswordPolicy } from '#platform/config';
import { duplicateName } from '#platform/json-names';
import { normalizeEmail } from './email';
import { checkHash } from './password-hashes';
import { checkPassword, limitsFor, type OwnerPasswordPolicy } from './password-policy';
import type { UserRecord } from './users';

/** Why an import line writes nothing: the contract's reasons, exactly. */
export const IMPORT_REASONS = {
  notJson: 'not JSON',
  notUtf8: 'not valid UTF-8',
  lineTooLong: 'line too long',
  duplicateField: (name: string) => `duplicate field ${name}`,
  invalidEmail: 'invalid user_email',
  noPassword: 'password_hash or user_password required',
  bothPasswords: 'password_hash and user_password both given',
  unsupportedHash: 'unsupported password_hash format',
  costlyHash: 'password_hash too costly to verify',
  passwordPolicy: 'user_password outside the password policy',
  passwordGuessable: 'user_password too easy to guess',
  /** Only where the online check is on (PWNED_PASSWORDS_URL in the operator's environment). */
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

/** An RFC 3339 date-time: a date, a time to the minute at least, and `Z` or an offset. */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The instant a `created_at` names, as the store keeps it (UTC, milliseconds), or undefined when it
 * names none. Each component is checked against the calendar, because `Date.parse` rolls over
 * what does not exist (February 30th becomes March 2nd, 24:00 the next day); the result stays
 * within years 0000 to 9999.
 */
export function instantOf(text: string): string | undefined {
  const parts = ISO_INSTANT.exec(text);
  if (!parts) return undefined;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = parts
    .slice(1)
    .map((part) => Number(part ?? 0));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  if (days === undefined || day < 1 || day > days || hour > 23 || minute > 59 || second > 59) return undefined;
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  const iso = new Date(at).toISOString();
  return /^\d{4}-/.test(iso) ? iso : undefined;
}

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
  const duplicate = duplicateName(text);
  // A user_email given twice is not given "as given": the report shows null for it.
  const given = typeof line.user_email === 'string' && duplicate !== 'user_email' ? line.user_email : null;
  const fail = (reason: string): LineDecision => ({ failed: reason, userEmail: given });
  if (duplicate !== undefined) return fail(IMPORT_REASONS.duplicateField(duplicate));
  // The API's own e-mail rule (trimmed, lower-cased, at most 254 characters).
  if (given === null || !userEmailValidator({ user_email: given })) return fail(IMPORT_REASONS.invalidEmail);
  const email = normalizeEmail(given);
  const { password_hash: hash, user_password: password, should_reset_password: shouldReset, created_at: createdAt } = line;
  if (hash === undefined && password === undefined) return fail(IMPORT_REASONS.noPassword);
  if (hash !== undefined && password !== undefined) return fail(IMPORT_REASONS.bothPasswords);
  if (hash !== undefined) {
    const verdict = typeof hash === 'string' ? checkHash(hash) : ({ refused: 'unsupported' } as const);
    if ('refused' in verdict) return fail(verdict.refused === 'too-costly' ? IMPORT_REASONS.costlyHash : IMPORT_REASONS.unsupportedHash);
  }
  if (password !== undefined) {
    // The API's rules: NFC, the length in code points, the blocklist, the e-mail, the owner's words.
    if (typeof password !== 'string' || !password.isWellFormed()) return fail(IMPORT_REASONS.passwordPolicy);
    const verdict = checkPassword(password, { limits: limitsFor(policy, ownerPolicy), email, blockedWords: ownerPolicy?.blockedWords });
    if (verdict === 'length') return fail(IMPORT_REASONS.passwordPolicy);
    if (verdict === 'guessable') return fail(IMPORT_REASONS.passwordGuessable);
  }
  if (shouldReset !== undefined && typeof shouldReset !== 'boolean') return fail(IMPORT_REASONS.shouldReset);
  const instant = typeof createdAt === 'string' ? instantOf(createdAt) : undefined;
  if (createdAt !== undefined && instant === undefined) return fail(IMPORT_REASONS.createdAt);
  if (email === normalizeEmail(ownerEmail)) return fail(IMPORT_REASONS.whiteLabel);
  return {
    candidate: {
      email,
      ...(typeof hash === 'string' && { passwordHash: hash }),
      // NFC, as the API hashes it.
      ...(typeof password === 'string' && { password: password.normalize('NFC') }),
      shouldResetPassword: shouldReset === true,
      ...(instant !== undefined && { createdAt: instant }),
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
