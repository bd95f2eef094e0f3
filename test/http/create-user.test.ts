/** docs/api-contract.md "createUser", row by row. */

import { describe, expect, it } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { useTarget } from '../support/target';

const suite = useTarget();

const create = (body: unknown) => suite.api.asA('/v1/createUser', body);
const PASSWORD_MESSAGE = 'user_password must be between 8 and 1024 characters.';

describe('createUser', () => {
  it('creates a user: 200 with the normalised e-mail and the password, nothing else', async () => {
    const email = suite.api.email('Created');
    const response = await create({ user_email: `  ${email.toUpperCase()} `, user_password: 'correct horse battery' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body).toEqual({ user_email: email.toLowerCase(), user_password: 'correct horse battery' });
  });

  it('generates a password of 24 base64url characters (the default policy) when none is given, and returns it', async () => {
    const response = await create({ user_email: suite.api.email('generated') });
    expect(response.status).toBe(200);
    const { user_password } = response.body as { user_password: string };
    expect(user_password).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });

  it.each(['true', 'false', true, false])('accepts should_reset_password %p', async (value) => {
    const response = await create({
      user_email: suite.api.email('reset-flag'),
      user_password: 'long enough',
      should_reset_password: value,
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body as object).sort()).toEqual(['user_email', 'user_password']);
  });

  it.each([
    ['absent', {}],
    ['null', { user_email: null }],
    ['empty', { user_email: '' }],
  ])('user_email %s: 400 user_email is missing', async (_, body) => {
    const response = await create(body);
    expect([response.status, response.body]).toEqual([400, { message: MESSAGES.userEmailMissing }]);
  });

  it('a field the operation does not list: 400 Unknown parameter', async () => {
    const response = await create({ user_email: suite.api.email('unknown'), is_admin: true });
    expect([response.status, response.body]).toEqual([400, { message: 'Unknown parameter: is_admin.' }]);
  });

  it.each([
    ['a number', 42],
    ['an array', ['a@example.com']],
    ['not an address', 'not-an-email'],
    ['two @', 'a@b@example.com'],
    ['over 254 characters', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}.com`],
  ])('user_email %s: 400 user_email is invalid.', async (_, value) => {
    const response = await create({ user_email: value });
    expect([response.status, response.body]).toEqual([400, { message: MESSAGES.userEmailInvalid }]);
  });

  it.each([
    ['not a string', 12345678],
    ['too short', 'seven77'],
    ['too long', 'x'.repeat(1025)],
  ])('user_password %s: 400 with the policy message', async (_, value) => {
    const response = await create({ user_email: suite.api.email('bad-password'), user_password: value });
    expect([response.status, response.body]).toEqual([400, { message: PASSWORD_MESSAGE }]);
  });

  it.each(['yes', 'TRUE', 1, null, {}])('should_reset_password %p: 400', async (value) => {
    const response = await create({ user_email: suite.api.email('bad-flag'), should_reset_password: value });
    expect([response.status, response.body]).toEqual([400, { message: MESSAGES.shouldResetInvalid }]);
  });

  it('an e-mail that already exists in the tool, in any case: 409 User already exists.', async () => {
    const email = suite.api.email('twice');
    expect((await create({ user_email: email })).status).toBe(200);
    for (const variant of [email, email.toUpperCase(), ` ${email} `]) {
      const response = await create({ user_email: variant, user_password: 'a different one' });
      expect([response.status, response.body]).toEqual([409, { message: MESSAGES.userExists }]);
    }
  });

  it("the owner's own e-mail: 409", async () => {
    const response = await create({ user_email: suite.target.a.ownerEmail });
    expect([response.status, response.body]).toEqual([409, { message: MESSAGES.userExists }]);
  });
});
