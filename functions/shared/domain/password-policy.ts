/**
 * The password rules of NIST SP 800-63B-4 §3.1.1.2, free of HTTP: NFC first, then the length in
 * code points, then the lists (a shipped blocklist of common and breached passwords, the user's
 * e-mail and its local part, the owner's blocked words), each compared whole and case-insensitively.
 * The optional online check (a port, {@link BreachCheck}) decides last. The validation step and the
 * import both ask {@link checkPassword}; generated passwords never come here.
 */

import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PasswordPolicy } from '#platform/config';
import { BLOCKLIST_DIGEST_BYTES, BLOCKLIST_FILE } from './generated/blocklist';

/** What an owner may set for its own tool (`admin set-password-policy`); absent fields take the stage's. */
export interface OwnerPasswordPolicy {
  readonly minLength?: number;
  /** Stored in NFC, lower case: the form they are compared in. */
  readonly blockedWords?: readonly string[];
}

/** The contract's bounds on an owner's policy. */
export const OWNER_POLICY_BOUNDS = { minLength: { min: 8, max: 64 }, blockedWords: 100, blockedWordLength: { min: 4, max: 64 } } as const;

/** Why a password is refused, or 'ok': the contract's three rows, in their order. */
export type PasswordVerdict = 'ok' | 'length' | 'guessable' | 'breached';

/** The password is compared in this form everywhere: NFC, lower case. */
export const comparable = (text: string): string => text.normalize('NFC').toLowerCase();

/** Code points of a string (what "characters" means in the policy). */
export const codePoints = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/**
 * The body with its password fields in NFC: what decides whether two requests are the same
 * (Idempotency-Key), since they set the same password. Other fields are left as they are.
 */
export function withNfcPasswords(body: unknown, fields: readonly string[]): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  const changed = fields.filter((field) => typeof record[field] === 'string');
  if (changed.length === 0) return body;
  return { ...record, ...Object.fromEntries(changed.map((field) => [field, (record[field] as string).normalize('NFC')])) };
}

/** The limits in force for an owner: its minimum (within the stage's maximum), the stage's maximum. */
export function limitsFor(stage: PasswordPolicy, owner: OwnerPasswordPolicy | undefined): PasswordPolicy {
  const minLength = owner?.minLength === undefined ? stage.minLength : Math.min(owner.minLength, stage.maxLength);
  return { minLength, maxLength: stage.maxLength };
}

// Read once per process (1.2 MB; a file, not a string in the bundle, which cost a cold start about
// 200 ms to parse), and searched in place. Beside this module in the source tree, and in generated/
// beside index.mjs in a Lambda asset (lib/constructs/handler-function.ts copies it there).
const digests = readFileSync(new URL(`./generated/${BLOCKLIST_FILE}`, import.meta.url));
const entries = digests.length / BLOCKLIST_DIGEST_BYTES;

/** Whether the shipped blocklist holds this password (compared in NFC, lower case). */
export const isOnBlocklist = (password: string): boolean => listed(comparable(password));

/** Binary search over the truncated SHA-256 digests, for a password already in its comparable form (one-shot hash: no Hash object per call). */
function listed(comparableForm: string): boolean {
  const wanted = hash('sha256', comparableForm, 'buffer').readUIntBE(0, BLOCKLIST_DIGEST_BYTES);
  let low = 0;
  let high = entries - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = digests.readUIntBE(middle * BLOCKLIST_DIGEST_BYTES, BLOCKLIST_DIGEST_BYTES);
    if (found === wanted) return true;
    if (found < wanted) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/** Who the password is for: the limits in force, the user's e-mail (as stored) and the owner's blocked words. */
export interface PasswordContext {
  readonly limits: PasswordPolicy;
  readonly email?: string;
  readonly blockedWords?: readonly string[];
}

/**
 * The offline rules, in the contract's order: 'length' (code points after NFC outside the limits),
 * then 'guessable' (the blocklist, the e-mail or its part before the `@`, an owner's blocked word).
 */
export function checkPassword(password: string, context: PasswordContext): Exclude<PasswordVerdict, 'breached'> {
  const nfc = password.normalize('NFC');
  const length = codePoints(nfc);
  if (length < context.limits.minLength || length > context.limits.maxLength) return 'length';
  const lower = nfc.toLowerCase();
  if (context.email !== undefined) {
    const email = comparable(context.email);
    if (lower === email || lower === email.slice(0, email.lastIndexOf('@'))) return 'guessable';
  }
  if (context.blockedWords?.includes(lower)) return 'guessable';
  return listed(lower) ? 'guessable' : 'ok';
}

/**
 * The online check (the port): 'found' when the password is known breached, 'unavailable' when the
 * check failed or took too long, in which case the offline rules alone decide (fail-open).
 */
export type BreachCheck = (password: string) => Promise<'found' | 'not_found' | 'unavailable'>;

/** The offline rules, then, for a password they accept, the online check when there is one. */
export async function checkPasswordOnline(password: string, context: PasswordContext, breach?: BreachCheck): Promise<PasswordVerdict> {
  const offline = checkPassword(password, context);
  if (offline !== 'ok' || !breach) return offline;
  return (await breach(password.normalize('NFC'))) === 'found' ? 'breached' : 'ok';
}

/**
 * An owner's policy as `admin set-password-policy` gives it, checked against the contract's bounds
 * and put in the form it is stored and compared in; throws naming what is wrong.
 */
export function checkOwnerPolicy(input: { minLength?: number; blockedWords?: readonly string[] }): OwnerPasswordPolicy {
  const { minLength, blockedWords } = input;
  const bounds = OWNER_POLICY_BOUNDS;
  if (minLength !== undefined && (!Number.isInteger(minLength) || minLength < bounds.minLength.min || minLength > bounds.minLength.max)) {
    throw new Error(`--min-length must be an integer from ${bounds.minLength.min} to ${bounds.minLength.max}, got "${minLength}"`);
  }
  let words: string[] | undefined;
  if (blockedWords !== undefined) {
    words = [...new Set(blockedWords.map(comparable))];
    if (words.length > bounds.blockedWords)
      throw new Error(`--blocked-words takes at most ${bounds.blockedWords} words, got ${words.length}`);
    const bad = words.find(
      (word) => !word.isWellFormed() || codePoints(word) < bounds.blockedWordLength.min || codePoints(word) > bounds.blockedWordLength.max,
    );
    if (bad !== undefined) {
      throw new Error(
        `each blocked word must be ${bounds.blockedWordLength.min} to ${bounds.blockedWordLength.max} characters, got "${bad}"`,
      );
    }
  }
  return { ...(minLength !== undefined && { minLength }), ...(words !== undefined && { blockedWords: words }) };
}
