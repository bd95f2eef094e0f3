/**
 * The password rules of NIST SP 800-63B-4 §3.1.1.2, free of HTTP: NFC first, then the length in
 * code points (of the string as sent and of its NFC form: both must be within the limits), then the
 * lists in the comparison form (./comparison-form.ts: NFKC, invisible characters out, case folded,
 * surrounding white space out): the shipped blocklist of common and breached passwords, compared
 * whole; the context words (the user's e-mail, its local part, its domain's first label, the owner's
 * blocked words) and their derivatives. The optional online check (a port, {@link BreachCheck})
 * decides last. The validation step, the import and the sign-in module's password change all ask
 * {@link checkPassword}; generated passwords never come here.
 */

import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PasswordPolicy } from '#platform/config';
import { comparisonForm } from './comparison-form';
import { BLOCKLIST_DIGEST_BYTES, BLOCKLIST_FILE } from './generated/blocklist';

export { comparisonForm } from './comparison-form';

/** What an owner may set for its own tool (`admin set-password-policy`); absent fields take the stage's. */
export interface OwnerPasswordPolicy {
  readonly minLength?: number;
  /** Stored in the comparison form (those stored before it, in NFC lower case, are put in it when compared). */
  readonly blockedWords?: readonly string[];
}

/** The contract's bounds on an owner's policy. */
export const OWNER_POLICY_BOUNDS = { minLength: { min: 8, max: 64 }, blockedWords: 100, blockedWordLength: { min: 4, max: 64 } } as const;

/** A context word counts for derivatives from this many code points (in comparison form) on. */
export const CONTEXT_WORD_MIN_LENGTH = 4;

/** Why a password is refused, or 'ok': the contract's three rows, in their order. */
export type PasswordVerdict = 'ok' | 'length' | 'guessable' | 'breached';

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

/**
 * Whether the password is within the limits both as sent and in NFC: NFC can expand (three typed
 * U+1D160 are nine code points) or shrink (a decomposed `é` is two code points, then one), and a
 * schema that counts the string as sent must never be stricter than the service.
 */
export function withinLimits(password: string, nfc: string, limits: PasswordPolicy): boolean {
  const sent = codePoints(password);
  const normal = nfc === password ? sent : codePoints(nfc);
  return Math.min(sent, normal) >= limits.minLength && Math.max(sent, normal) <= limits.maxLength;
}

// Read once per process (a file, not a string in the bundle, which cost a cold start about 200 ms
// to parse), and searched in place. Beside this module in the source tree, and in generated/
// beside index.mjs in a Lambda asset (lib/constructs/handler-function.ts copies it there).
const digests = readFileSync(new URL(`./generated/${BLOCKLIST_FILE}`, import.meta.url));
const entries = digests.length / BLOCKLIST_DIGEST_BYTES;

/** Whether the shipped blocklist holds this password (compared whole, in comparison form). */
export const isOnBlocklist = (password: string): boolean => listed(comparisonForm(password));

/** Binary search over the truncated SHA-256 digests, for a text already in comparison form (one-shot hash: no Hash object per call). */
function listed(form: string): boolean {
  const wanted = hash('sha256', form, 'buffer').readUIntBE(0, BLOCKLIST_DIGEST_BYTES);
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
 * The offline rules, in the contract's order: 'length' (code points as sent or after NFC outside
 * the limits), then 'guessable': in comparison form, the password is on the blocklist, is the
 * e-mail or its local part, or is a derivative of a context word (see {@link isDerivative}).
 */
export function checkPassword(password: string, context: PasswordContext): Exclude<PasswordVerdict, 'breached'> {
  const nfc = password.normalize('NFC');
  if (!withinLimits(password, nfc, context.limits)) return 'length';
  const form = comparisonForm(nfc);
  if (listed(form)) return 'guessable';
  const { whole, emailWords, owner } = contextWords(context);
  if (whole.includes(form)) return 'guessable';
  // Most passwords hold no context word: a few `includes` and one precompiled search answer them.
  if (!emailWords.some((word) => form.includes(word)) && !owner.any?.test(form)) return 'ok';
  return isDerivative(form, [...emailWords, ...owner.words]) ? 'guessable' : 'ok';
}

/** Letters (Unicode category L), and what is stripped from a derivative's remainder before the list sees it. */
const LETTER = /\p{L}/u;
const NOT_A_WORD = /[\p{Nd}\p{P}\p{S}\p{White_Space}]/gu;

/**
 * A password (in comparison form) made of context words: when one or more of `words` occur in it,
 * every occurrence is removed (longest words first, and again until none is left); it is a
 * derivative when what is left has no letter, or when what is left, without digits, punctuation,
 * symbols and white space, is on the blocklist. So with `acme` a word: `acme2026!`, `acme acme` and
 * `acme!password` are, `my acme passphrase` is not.
 */
export function isDerivative(form: string, words: readonly string[]): boolean {
  if (!words.some((word) => form.includes(word))) return false;
  const ordered = [...new Set(words)].sort((a, b) => b.length - a.length);
  let rest = form;
  for (let removed = true; removed; ) {
    removed = false;
    for (const word of ordered) {
      if (!rest.includes(word)) continue;
      rest = rest.replaceAll(word, '');
      removed = true;
    }
  }
  return !LETTER.test(rest) || listed(rest.replace(NOT_A_WORD, ''));
}

/** An owner's blocked words as context words, and one search for any of them. */
interface OwnerWords {
  readonly words: readonly string[];
  readonly any: RegExp | undefined;
}

/** Prepared once per stored list (the owner's policy object lives as long as its cached key look-up). */
const ownerWords = new WeakMap<readonly string[], OwnerWords>();
const NO_WORDS: readonly string[] = [];
const REGEXP_SYNTAX = /[.*+?^${}()|[\]\\/]/g;

function prepareOwnerWords(blockedWords: readonly string[]): OwnerWords {
  let prepared = ownerWords.get(blockedWords);
  if (prepared === undefined) {
    const words = [...new Set(usable(blockedWords.map(comparisonForm)))];
    const any = words.length === 0 ? undefined : new RegExp(words.map((word) => word.replace(REGEXP_SYNTAX, '\\$&')).join('|'));
    prepared = { words, any };
    ownerWords.set(blockedWords, prepared);
  }
  return prepared;
}

/**
 * The context words of a check, in comparison form: `whole`, compared with the whole password (the
 * e-mail and its local part, whatever their length); for derivatives, `emailWords` (the e-mail, its
 * local part, its domain's first label) and the owner's blocked words, each of 4+ code points.
 */
function contextWords({ email, blockedWords = NO_WORDS }: PasswordContext) {
  const owner = prepareOwnerWords(blockedWords);
  if (email === undefined) return { whole: NO_WORDS, emailWords: NO_WORDS, owner };
  const address = comparisonForm(email);
  const at = address.lastIndexOf('@');
  const local = at > 0 ? address.slice(0, at) : '';
  const domain = address.slice(at + 1);
  const dot = domain.indexOf('.');
  const label = dot === -1 ? domain : domain.slice(0, dot);
  return { whole: local === '' ? [address] : [address, local], emailWords: usable([address, local, label]), owner };
}

/** Words of 4+ code points. */
const usable = (words: readonly string[]): string[] => words.filter((word) => codePoints(word) >= CONTEXT_WORD_MIN_LENGTH);

/**
 * The online check (the port): 'found' when the password is known breached, 'unavailable' when the
 * check failed or took too long, in which case the offline rules alone decide (fail-open).
 */
export type BreachCheck = (password: string) => Promise<'found' | 'not_found' | 'unavailable'>;

/** The offline rules, then, for a password they accept, the online check (of the NFC form) when there is one. */
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
    words = [...new Set(blockedWords.map(comparisonForm))];
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
