/** docs/api-contract.md "deleteUser", row by row. */

import { describe, expect, it } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { useTarget } from '../support/target';

const suite = useTarget();

const remove = (body: unknown) => suite.api.asA('/v1/deleteUser', body);

describe('deleteUser', () => {
  it('200 User and all associated data deleted successfully.; the user is then gone', async () => {
    const email = suite.api.email('to-delete');
    expect((await suite.api.asA('/v1/createUser', { user_email: email })).status).toBe(200);
    const response = await remove({ user_email: email.toUpperCase() });
    expect([response.status, response.body]).toEqual([200, { message: MESSAGES.userDeleted }]);
    expect(response.headers.get('content-type')).toBe('application/json');

    const reset = await suite.api.asA('/v1/resetUserPassword', { user_email: email, new_password: 'long enough' });
    expect([reset.status, reset.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
    const again = await remove({ user_email: email });
    expect([again.status, again.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
    expect((await suite.api.asA('/v1/createUser', { user_email: email })).status).toBe(200);
  });

  it.each([
    ['absent', {}],
    ['null', { user_email: null }],
    ['empty', { user_email: '' }],
  ])('user_email %s: 400 Missing required parameters.', async (_, body) => {
    const response = await remove(body);
    expect([response.status, response.body]).toEqual([400, { message: MESSAGES.missingParameters }]);
  });

  it('a field the operation does not list: 400 Unknown parameter', async () => {
    const response = await remove({ user_email: 'a@example.com', hard: true });
    expect([response.status, response.body]).toEqual([400, { message: 'Unknown parameter: hard.' }]);
  });

  it.each([42, 'nope', ['a@example.com']])('user_email %p: 400 user_email is invalid.', async (value) => {
    const response = await remove({ user_email: value });
    expect([response.status, response.body]).toEqual([400, { message: MESSAGES.userEmailInvalid }]);
  });

  it("the owner's own account: 403, and it survives", async () => {
    const response = await remove({ user_email: suite.target.a.ownerEmail });
    expect([response.status, response.body]).toEqual([403, { message: MESSAGES.deleteWhiteLabel }]);
    const again = await remove({ user_email: suite.target.a.ownerEmail.toUpperCase() });
    expect([again.status, again.body]).toEqual([403, { message: MESSAGES.deleteWhiteLabel }]);
    expect((await suite.api.asA('/v1/createUser', { user_email: suite.api.email('still-works') })).status).toBe(200);
  });

  it('no such user in the tool: 404 User not found.', async () => {
    const response = await remove({ user_email: suite.api.email('absent') });
    expect([response.status, response.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
  });
});
