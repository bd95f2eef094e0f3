/**
 * docs/api-contract.md "Passwords (NIST SP 800-63B-4)": the blocklist, the e-mail, NFC, over real
 * HTTP (the local server, or a stage). Per-owner policies and the online check need the admin
 * side and a stand-in service: test/processes/password-policy-owners.test.ts and
 * test/integration/password-breach-check.test.ts.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it, jest } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { useTarget } from '../support/target';

// Each file starts a server and two owners (two argon2 hashes) and deletes what it made: slow on a busy machine.
jest.setTimeout(60_000);
const suite = useTarget();

const create = (body: unknown, headers?: Record<string, string>) => suite.api.asA('/v1/createUser', body, { headers });
const reset = (body: unknown) => suite.api.asA('/v1/resetUserPassword', body);

/** The ten most common passwords of 8 or more characters in SecLists' list (the list the service ships), most common first. */
const TOP_TEN = [
  'password',
  '12345678',
  '123456789',
  'baseball',
  'football',
  'qwertyuiop',
  '1234567890',
  'superman',
  '1qaz2wsx',
  'trustno1',
];
/** Also common, and named by the issue. */
const MORE = ['iloveyou', 'sunshine', 'princess', 'qwerty123', '11111111', 'password1'];

/** A case the list does not hold: every other letter upper-cased. */
const mixedCase = (text: string) => [...text].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');

const GUESSABLE = (field: string) => `${field} is too easy to guess: choose another.`;

/** An e-mail for a request that must create nothing (so nothing to clean up). */
const uncreated = (tag: string) => `${suite.target.runPrefix}-${tag}-${randomBytes(4).toString('hex')}@example.com`;

describe('the blocklist: common passwords of 8+ characters, in any case, refused', () => {
  it.each([...TOP_TEN, ...MORE].flatMap((p) => [p, p.toUpperCase(), mixedCase(p)]))(
    'createUser with %p: 400, nothing created',
    async (password) => {
      const email = suite.api.email('common');
      const response = await create({ user_email: email, user_password: password });
      expect([response.status, response.body]).toEqual([400, { message: GUESSABLE('user_password') }]);
      // Nothing was created: the same e-mail with a good password is a new user.
      expect((await create({ user_email: email, user_password: randomBytes(15).toString('base64') })).status).toBe(200);
    },
  );

  it('resetUserPassword with each of them, in three cases: 400', async () => {
    const email = suite.api.email('common-reset');
    expect((await create({ user_email: email, user_password: randomBytes(15).toString('base64') })).status).toBe(200);
    for (const password of [...TOP_TEN, ...MORE].flatMap((p) => [p, p.toUpperCase(), mixedCase(p)])) {
      const response = await reset({ user_email: email, new_password: password });
      expect([password, response.status, response.body]).toEqual([password, 400, { message: GUESSABLE('new_password') }]);
    }
  });

  it('answers before 404 and 409: a guessable password for an unknown user, or an existing one', async () => {
    const unknown = await reset({ user_email: uncreated('nobody'), new_password: 'password' });
    expect([unknown.status, unknown.body]).toEqual([400, { message: GUESSABLE('new_password') }]);
    const email = suite.api.email('exists');
    expect((await create({ user_email: email })).status).toBe(200);
    const again = await create({ user_email: email, user_password: 'iloveyou' });
    expect([again.status, again.body]).toEqual([400, { message: GUESSABLE('user_password') }]);
  });

  it('the length rule comes first: a common 7-character password gets the length message', async () => {
    const response = await create({ user_email: uncreated('short'), user_password: 'abc1234' });
    expect([response.status, response.body]).toEqual([400, { message: 'user_password must be between 8 and 1024 characters.' }]);
  });

  it('compares whole passwords, not substrings: a common password inside a longer one is accepted', async () => {
    const response = await create({
      user_email: suite.api.email('substring'),
      user_password: `password-${randomBytes(4).toString('hex')}`,
    });
    expect(response.status).toBe(200);
  });

  it('a random 20-character password is accepted, on create and on reset', async () => {
    const email = suite.api.email('random');
    const password = randomBytes(15).toString('base64');
    expect(password).toHaveLength(20);
    const created = await create({ user_email: email, user_password: password });
    expect([created.status, created.body]).toEqual([200, { user_email: email, user_password: password }]);
    const again = await reset({ user_email: email, new_password: randomBytes(15).toString('base64') });
    expect([again.status, again.body]).toEqual([200, { message: MESSAGES.passwordReset }]);
  });
});

describe("the user's e-mail and its local part are refused, in any case", () => {
  it('createUser: the e-mail, the local part, upper-cased', async () => {
    for (const tag of ['whole', 'local', 'upper']) {
      const email = uncreated(`ctx-${tag}`);
      const local = email.slice(0, email.indexOf('@'));
      const password = tag === 'whole' ? email : tag === 'local' ? local : local.toUpperCase();
      const response = await create({ user_email: email, user_password: password });
      expect([response.status, response.body]).toEqual([400, { message: GUESSABLE('user_password') }]);
    }
  });

  it('resetUserPassword: the e-mail and the local part', async () => {
    const email = suite.api.email('ctx-reset');
    expect((await create({ user_email: email })).status).toBe(200);
    for (const password of [email, email.slice(0, email.indexOf('@'))]) {
      const response = await reset({ user_email: email, new_password: password });
      expect([response.status, response.body]).toEqual([400, { message: GUESSABLE('new_password') }]);
    }
  });

  it("another user's e-mail is just a password", async () => {
    const response = await create({ user_email: suite.api.email('ctx-other'), user_password: suite.api.email('someone-else') });
    expect(response.status).toBe(200);
  });
});

describe('NFC: a password is normalised before anything else', () => {
  // "café" and a random tail, composed (NFC) and decomposed (NFD): one password.
  const tail = randomBytes(6).toString('hex');
  const nfc = `caf\u00e9-${tail}`;
  const nfd = `cafe\u0301-${tail}`;

  it('the create echoes the password as sent (NFD), and a retry in NFC with the same Idempotency-Key is a replay, not 422', async () => {
    const email = suite.api.email('nfd');
    const key = randomUUID();
    const first = await create({ user_email: email, user_password: nfd }, { 'Idempotency-Key': key });
    expect([first.status, first.body]).toEqual([200, { user_email: email, user_password: nfd }]);
    const retry = await create({ user_email: email, user_password: nfc }, { 'Idempotency-Key': key });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
  });

  it('a length counted in code points after NFC: 7 composed characters sent as 14 code points are too short', async () => {
    const response = await create({ user_email: uncreated('nfd-short'), user_password: 'e\u0301'.repeat(7) });
    expect([response.status, response.body]).toEqual([400, { message: 'user_password must be between 8 and 1024 characters.' }]);
  });
});
