/**
 * docs/api-contract.md "Passwords": no spelling gets a weak password past the rules, over real HTTP
 * (the local server, or a stage). Drawn respellings of the shipped list's entries (case, `ſ`, full
 * width, invisible characters, white space around) are all refused on create and reset; the
 * contract's examples of the comparison form, of context words and their derivatives, of both
 * lengths and of the body step's duplicate names, with their exact messages.
 */

import { afterAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { comparisonForm } from '#domain/comparison-form';
import { DEFAULT_PASSWORD_POLICY } from '#platform/config';
import { sourceEntries } from '../../codegen/blocklist';
import { keyOfOwnerWithPolicy, revokeAll } from '../support/stage-owners';
import { useTarget } from '../support/target';

const suite = useTarget();
afterAll(revokeAll);

const GUESSABLE = (field: string) => `${field} is too easy to guess: choose another.`;
const LENGTH = (field: string, min = 8) => `${field} must be between ${min} and 1024 characters.`;
const codePoints = (text: string) => [...text].length;

/** An e-mail for a request that must create nothing: unique in the run (a counter under the run's prefix), never cleaned up. */
let uncreatedCount = 0;
const uncreated = (tag: string) => `${suite.target.runPrefix}-${tag}-${++uncreatedCount}@example.com`;

const create = (body: unknown, apiKey?: string) => suite.api.asA('/v1/createUser', body, apiKey === undefined ? {} : { apiKey });
const reset = (body: unknown, apiKey?: string) => suite.api.asA('/v1/resetUserPassword', body, apiKey === undefined ? {} : { apiKey });

/** A user of owner A to reset, with a password nobody guesses. */
async function existingUser(tag: string, apiKey?: string): Promise<string> {
  const email = suite.api.email(tag);
  const created = await create({ user_email: email }, apiKey);
  expect(created.status).toBe(200);
  return email;
}

// ---------------------------------------------------------------------------------------------
// Respellings of the list's entries

/** The shipped list's source, every entry of which is shipped (codegen/blocklist.ts). */
const ENTRIES = sourceEntries();
const INVISIBLE = ['\u200B', '\u200C', '\u200D', '\u00AD', '\uFEFF', '\u2060', '\u034F', '\uFE0F'];
const AROUND = [' ', '\t', '\n', '\u00A0', '\u2003', '\u3000', '\u0085'];

/** One character rewritten: kept, upper-cased (ASCII letters), `ſ` for an `s`, or in full width (printable ASCII). */
type Rewrite = 'keep' | 'upper' | 'long-s' | 'wide';
function rewrite(character: string, how: Rewrite): string {
  if (how === 'upper' && /^[a-z]$/.test(character)) return character.toUpperCase();
  if (how === 'long-s' && /^[sS]$/.test(character)) return '\u017F';
  if (how === 'wide' && /^[!-~]$/.test(character)) return String.fromCodePoint(character.codePointAt(0)! - 0x21 + 0xff01);
  if (how === 'wide' && character === ' ') return '\u3000';
  return character;
}

/** A respelling of a list entry: rewritten characters, invisible characters inside, white space around, long enough for the length rule. */
const respelling = fc
  .record({
    index: fc.nat({ max: ENTRIES.length - 1 }),
    rewrites: fc.array(fc.constantFrom<Rewrite>('keep', 'upper', 'long-s', 'wide'), { minLength: 1, maxLength: 16 }),
    inside: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVISIBLE)), { maxLength: 3 }),
    before: fc.array(fc.constantFrom(...AROUND, ...INVISIBLE), { maxLength: 3 }),
    after: fc.array(fc.constantFrom(...AROUND, ...INVISIBLE), { maxLength: 3 }),
  })
  .map(({ index, rewrites, inside, before, after }) => {
    const entry = ENTRIES[index]!;
    const characters = [...entry].map((character, i) => rewrite(character, rewrites[i % rewrites.length]!));
    for (const [at, invisible] of inside) characters.splice(at % (characters.length + 1), 0, invisible);
    let password = before.join('') + characters.join('') + after.join('');
    // Padded with white space and invisible characters until both of its lengths meet the minimum.
    for (let i = 0; password === entry || Math.min(codePoints(password), codePoints(password.normalize('NFC'))) < 8; i++) {
      password += i % 2 ? AROUND[i % AROUND.length] : INVISIBLE[i % INVISIBLE.length];
    }
    return { entry, password };
  });

describe('respellings of the list, drawn', () => {
  const runs = 1_000;

  it(`${runs} respellings of list entries, each distinct: every one refused on create and on reset`, async () => {
    const email = await existingUser('respelled');
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(respelling, async ({ entry, password }) => {
        // Each value once in a run: a respelling drawn again is not counted.
        fc.pre(!seen.has(password));
        // A respelling of an entry near the maximum can pass it: the length rule then answers first, as it should.
        fc.pre(Math.max(codePoints(password), codePoints(password.normalize('NFC'))) <= DEFAULT_PASSWORD_POLICY.maxLength);
        seen.add(password);
        expect([password, comparisonForm(password)]).toEqual([password, comparisonForm(entry)]);
        const target = uncreated('respelled');
        const created = await create({ user_email: target, user_password: password });
        if (created.status === 200) await suite.api.asA('/v1/deleteUser', { user_email: target });
        expect([password, created.status, created.body]).toEqual([password, 400, { message: GUESSABLE('user_password') }]);
        const again = await reset({ user_email: email, new_password: password });
        expect([password, again.status, again.body]).toEqual([password, 400, { message: GUESSABLE('new_password') }]);
      }),
      { numRuns: runs },
    );
    expect(seen.size).toBe(runs);
  }, 600_000);
});

// ---------------------------------------------------------------------------------------------
// The contract's examples

describe('the comparison form: the contract spellings of password, and the issue', () => {
  const spellings = {
    'a long s twice': 'pa\u017F\u017Fword1',
    'upper case with a long s': 'PA\u017FSWORD',
    'a zero-width space inside': 'pass\u200Bword',
    'a zero-width joiner inside': 'pass\u200Dword',
    'a soft hyphen inside': 'pass\u00ADword',
    'a BOM inside': 'pass\uFEFFword',
    'full width': '\uFF50\uFF41\uFF53\uFF53\uFF57\uFF4F\uFF52\uFF44',
    'a leading space': ' password',
    'a leading tab': '\tpassword',
    'a short entry padded with spaces': '123456  ',
    'only invisible characters': '\u200B'.repeat(8),
    'Cyrillic р and а (UTS #39 look-alikes of p and a)': '\u0440\u0430ssword',
  };

  it.each(Object.entries(spellings))('%s: refused on create and on reset', async (_, password) => {
    const created = await create({ user_email: uncreated('spelling'), user_password: password });
    expect([created.status, created.body]).toEqual([400, { message: GUESSABLE('user_password') }]);
    const again = await reset({ user_email: uncreated('spelling'), new_password: password });
    expect([again.status, again.body]).toEqual([400, { message: GUESSABLE('new_password') }]);
  });
});

describe('context words and their derivatives', () => {
  it('for jane.doe@widgetworks.com: jane.doe1990 and WidgetWorks 2026 refused on create and reset, before the 404', async () => {
    for (const password of ['jane.doe1990', 'WidgetWorks 2026', 'JANE.DOE@WIDGETWORKS.COM']) {
      const created = await create({ user_email: 'jane.doe@widgetworks.com', user_password: password });
      expect([password, created.status, created.body]).toEqual([password, 400, { message: GUESSABLE('user_password') }]);
      const again = await reset({ user_email: 'jane.doe@widgetworks.com', new_password: password });
      expect([password, again.status, again.body]).toEqual([password, 400, { message: GUESSABLE('new_password') }]);
    }
  });

  it('with widget blocked: wıdget2026!!, WİDGET2026!! and wіdget2026!! (Cyrillic і) refused on create and reset; a plain phrase passes', async () => {
    const { apiKey } = await keyOfOwnerWithPolicy(suite.target.runPrefix, { blockedWords: ['widget'] });
    const email = await existingUser('widget', apiKey);
    for (const password of ['w\u0131dget2026!!', 'W\u0130DGET2026!!', 'w\u0456dget2026!!']) {
      const created = await create({ user_email: uncreated('widget'), user_password: password }, apiKey);
      expect([password, created.status, created.body]).toEqual([password, 400, { message: GUESSABLE('user_password') }]);
      const again = await reset({ user_email: email, new_password: password }, apiKey);
      expect([password, again.status, again.body]).toEqual([password, 400, { message: GUESSABLE('new_password') }]);
    }
    const again = await reset({ user_email: email, new_password: 'gadgets of every colour' }, apiKey);
    expect([again.status, again.body]).toEqual([200, { message: 'Password reset successfully.' }]);
    expect((await suite.api.asA('/v1/deleteUser', { user_email: email }, { apiKey })).status).toBe(200);
  });

  it("an owner's 4-letter blocked word refuses its derivatives and accepts my ACME passphrase", async () => {
    const { apiKey } = await keyOfOwnerWithPolicy(suite.target.runPrefix, { blockedWords: ['acme'] });
    const email = await existingUser('acme', apiKey);
    for (const password of ['acme2026!', 'Acme Acme', 'ACME!password', 'Acme!Acme!', 'acmecorp2024!', '\uFF41\uFF43\uFF4D\uFF45-2026']) {
      const created = await create({ user_email: uncreated('acme'), user_password: password }, apiKey);
      expect([password, created.status, created.body]).toEqual([password, 400, { message: GUESSABLE('user_password') }]);
      const again = await reset({ user_email: email, new_password: password }, apiKey);
      expect([password, again.status, again.body]).toEqual([password, 400, { message: GUESSABLE('new_password') }]);
    }
    const passphrase = 'my ACME passphrase';
    const other = suite.api.email('acme-passphrase');
    const created = await create({ user_email: other, user_password: passphrase }, apiKey);
    expect([created.status, created.body]).toEqual([200, { user_email: other, user_password: passphrase }]);
    expect((await suite.api.asA('/v1/deleteUser', { user_email: other }, { apiKey })).status).toBe(200);
    const again = await reset({ user_email: email, new_password: passphrase }, apiKey);
    expect([again.status, again.body]).toEqual([200, { message: 'Password reset successfully.' }]);
    expect((await suite.api.asA('/v1/deleteUser', { user_email: email }, { apiKey })).status).toBe(200);
  });
});

describe('length: both the string as sent and its NFC form', () => {
  const eighthNotes = '\u{1D160}'.repeat(3);
  const decomposed = 'e\u0301'.repeat(515);

  it('three typed U+1D160 (3 code points, 9 after NFC) are too short at a minimum of 8', async () => {
    expect([codePoints(eighthNotes), codePoints(eighthNotes.normalize('NFC'))]).toEqual([3, 9]);
    const created = await create({ user_email: uncreated('notes'), user_password: eighthNotes });
    expect([created.status, created.body]).toEqual([400, { message: LENGTH('user_password') }]);
    const again = await reset({ user_email: uncreated('notes'), new_password: eighthNotes });
    expect([again.status, again.body]).toEqual([400, { message: LENGTH('new_password') }]);
  });

  it("four typed U+1D160 (12 code points after NFC) are too short at an owner's minimum of 12", async () => {
    const { apiKey } = await keyOfOwnerWithPolicy(suite.target.runPrefix, { minLength: 12 });
    const created = await create({ user_email: uncreated('notes-12'), user_password: '\u{1D160}'.repeat(4) }, apiKey);
    expect([created.status, created.body]).toEqual([400, { message: LENGTH('user_password', 12) }]);
  });

  it('a 1,030-code-point decomposed password (515 after NFC) is too long, on create and reset', async () => {
    expect([codePoints(decomposed), codePoints(decomposed.normalize('NFC'))]).toEqual([1030, 515]);
    const created = await create({ user_email: uncreated('decomposed'), user_password: decomposed });
    expect([created.status, created.body]).toEqual([400, { message: LENGTH('user_password') }]);
    const again = await reset({ user_email: uncreated('decomposed'), new_password: decomposed });
    expect([again.status, again.body]).toEqual([400, { message: LENGTH('new_password') }]);
  });
});

describe('one reading of the body', () => {
  it('user_password twice: 400 Duplicate parameter: user_password.', async () => {
    const raw = `{"user_email":"${uncreated('twice')}","user_password":"a long and fine passphrase","user_password":"password"}`;
    const answer = await suite.api.asA('/v1/createUser', undefined, { raw });
    expect([answer.status, answer.body]).toEqual([400, { message: 'Duplicate parameter: user_password.' }]);
  });

  it('a 16 KB unknown name is echoed as its first 64 code points and an ellipsis', async () => {
    const name = `\u00E9${'n'.repeat(16_000)}`;
    const answer = await create({ user_email: uncreated('long-name'), [name]: 1 });
    expect(Buffer.byteLength(JSON.stringify({ user_email: 'x', [name]: 1 }))).toBeLessThan(16 * 1024);
    expect([answer.status, answer.body]).toEqual([400, { message: `Unknown parameter: \u00E9${'n'.repeat(63)}\u2026.` }]);
  });
});
