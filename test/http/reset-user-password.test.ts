/** docs/api-contract.md "resetUserPassword", row by row. */

import { beforeAll, describe, expect, it } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { useTarget } from '../support/target';

const suite = useTarget();
let existing: string;

beforeAll(async () => {
  existing = suite.api.email('reset-target');
  expect((await suite.api.asA('/v1/createUser', { user_email: existing, user_password: 'first password' })).status).toBe(200);
});

const reset = (body: unknown) => suite.api.asA('/v1/resetUserPassword', body);

describe('resetUserPassword', () => {
  it('200 Password reset successfully.', async () => {
    const response = await reset({ user_email: existing, new_password: 'second password' });
    expect([response.status, response.body]).toEqual([200, { message: MESSAGES.passwordReset }]);
    expect(response.headers.get('content-type')).toBe('application/json');
  });

  it('finds the user whatever the case of the e-mail', async () => {
    const response = await reset({ user_email: ` ${existing.toUpperCase()}`, new_password: 'third password' });
    expect(response.status).toBe(200);
  });

  it.each([
    ['no fields', {}],
    ['no new_password', { user_email: 'a@example.com' }],
    ['no user_email', { new_password: 'long enough' }],
    ['null new_password', { user_email: 'a@example.com', new_password: null }],
    ['empty new_password', { user_email: 'a@example.com', new_password: '' }],
    ['null user_email', { user_email: null, new_password: 'long enough' }],
    ['empty user_email', { user_email: '', new_password: 'long enough' }],
  ])('%s: 400 Missing required parameters.', async (_, body) => {
    const response = await reset(body);
    expect([response.status, response.body]).toEqual([400, { message: MESSAGES.missingParameters }]);
  });

  it('a field the operation does not list: 400 Unknown parameter', async () => {
    const response = await reset({ user_email: existing, new_password: 'long enough', notify: false });
    expect([response.status, response.body]).toEqual([400, { message: 'Unknown parameter: notify.' }]);
  });

  it.each([42, 'nope', 'a@'])('user_email %p: 400 user_email is invalid.', async (value) => {
    const response = await reset({ user_email: value, new_password: 'long enough' });
    expect([response.status, response.body]).toEqual([400, { message: MESSAGES.userEmailInvalid }]);
  });

  it.each([
    ['not a string', 12345678],
    ['too short', 'short'],
    ['too long', 'y'.repeat(1025)],
  ])('new_password %s: 400 with the policy message', async (_, value) => {
    const response = await reset({ user_email: existing, new_password: value });
    expect([response.status, response.body]).toEqual([400, { message: 'new_password must be between 8 and 1024 characters.' }]);
  });

  it("the owner's own account: 403", async () => {
    const response = await reset({ user_email: suite.target.a.ownerEmail, new_password: 'taking over' });
    expect([response.status, response.body]).toEqual([403, { message: MESSAGES.resetWhiteLabel }]);
  });

  it('a user that does not exist: 404 User not found.', async () => {
    const response = await reset({ user_email: suite.api.email('never-created'), new_password: 'long enough' });
    expect([response.status, response.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
  });
});
