/** The optional Idempotency-Key header, row by row: shape, order, replay, 422, and owner scope. */

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import type { ApiResponse, RequestOptions } from '../support/http-client';
import { useTarget } from '../support/target';

const suite = useTarget();

const withKey = (key: string, options: RequestOptions = {}): RequestOptions => ({
  ...options,
  headers: { ...options.headers, 'Idempotency-Key': key },
});
const asA = (path: string, body: unknown, key: string, options?: RequestOptions) => suite.api.asA(path, body, withKey(key, options));
const asB = (path: string, body: unknown, key: string) => suite.api.asB(path, body, withKey(key));
const replayed = (response: ApiResponse) => response.headers.get('idempotent-replayed');
const newKey = () => randomUUID();
const statusAndBody = (response: ApiResponse) => [response.status, response.body];

/** The first response, then a replay of it: same status, same bytes, marked as replayed. */
async function expectReplay(path: string, body: unknown) {
  const key = newKey();
  const first = await asA(path, body, key);
  expect(replayed(first)).toBeNull();
  const again = await asA(path, body, key);
  expect([again.status, again.text]).toEqual([first.status, first.text]);
  expect(replayed(again)).toBe('true');
  expect(again.headers.get('content-type')).toBe('application/json');
  return { key, first, again };
}

describe('Idempotency-Key: shape and order', () => {
  it.each([
    ['15 characters', 'a'.repeat(15)],
    ['256 characters', 'a'.repeat(256)],
    ['a tab inside', `${'a'.repeat(10)}\t${'a'.repeat(10)}`],
    ['a non-ASCII character', `${'a'.repeat(16)}é`],
  ])('%s: 400 Idempotency-Key is invalid., nothing created', async (_, key) => {
    const email = suite.api.email('bad-key');
    const response = await asA('/v1/createUser', { user_email: email }, key);
    expect([response.status, response.body]).toEqual([400, { message: MESSAGES.idempotencyKeyInvalid }]);
    // Without the key the e-mail is still free: the bad request created nothing.
    expect((await suite.api.asA('/v1/createUser', { user_email: email })).status).toBe(200);
  });

  it.each([
    ['16 characters', 'k'.repeat(16)],
    ['255 characters', 'k'.repeat(255)],
    ['spaces and punctuation inside', 'key with spaces ~!@#$%^&*()_+{}|:"<>?'],
  ])('%s is accepted', async (_, key) => {
    const response = await asA('/v1/createUser', { user_email: suite.api.email('edge-key') }, key);
    expect(response.status).toBe(200);
  });

  it('authentication comes first: a bad key with a bad API key is 401', async () => {
    const response = await asA('/v1/createUser', { user_email: 'a@example.com' }, 'short', { apiKey: null });
    expect([response.status, response.body]).toEqual([401, { message: MESSAGES.unauthorized }]);
  });

  it("the key's shape comes before the body: a bad key with a bad body is the key's 400", async () => {
    const response = await asA('/v1/createUser', undefined, 'short', { raw: 'not json' });
    expect([response.status, response.body]).toEqual([400, { message: MESSAGES.idempotencyKeyInvalid }]);
  });

  it('body and validation come before the look-up: an invalid body is answered and not recorded', async () => {
    const key = newKey();
    const invalid = await asA('/v1/createUser', {}, key);
    expect([invalid.status, invalid.body]).toEqual([400, { message: MESSAGES.userEmailMissing }]);
    // The key is still free: a valid request with it runs, with no 422.
    const valid = await asA('/v1/createUser', { user_email: suite.api.email('after-invalid') }, key);
    expect(valid.status).toBe(200);
    expect(replayed(valid)).toBeNull();
  });
});

describe('Idempotency-Key: the same request again within 24 hours gets the recorded response', () => {
  it('createUser with a given password: the same 200 and body, the user created once', async () => {
    const email = suite.api.email('replay-given');
    const { first } = await expectReplay('/v1/createUser', { user_email: email, user_password: 'a given password' });
    expect([first.status, first.body]).toEqual([200, { user_email: email, user_password: 'a given password' }]);
    // Without the key the operation runs again, and the user is there.
    expect(statusAndBody(await suite.api.asA('/v1/createUser', { user_email: email }))).toEqual([409, { message: MESSAGES.userExists }]);
  });

  it('createUser with a generated password: the replay returns the same password', async () => {
    const email = suite.api.email('replay-generated');
    const { first, again } = await expectReplay('/v1/createUser', { user_email: email });
    const { user_password } = first.body as { user_password: string };
    expect(user_password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((again.body as { user_password: string }).user_password).toBe(user_password);
  });

  it('resetUserPassword: the same 200', async () => {
    const email = suite.api.email('replay-reset');
    await suite.api.asA('/v1/createUser', { user_email: email, user_password: 'the first one' });
    const { first } = await expectReplay('/v1/resetUserPassword', { user_email: email, new_password: 'the second one' });
    expect([first.status, first.body]).toEqual([200, { message: MESSAGES.passwordReset }]);
  });

  it('deleteUser: the same 200, where running it again would say 404', async () => {
    const email = suite.api.email('replay-delete');
    await suite.api.asA('/v1/createUser', { user_email: email });
    const { first } = await expectReplay('/v1/deleteUser', { user_email: email });
    expect([first.status, first.body]).toEqual([200, { message: MESSAGES.userDeleted }]);
    const unkeyed = await suite.api.asA('/v1/deleteUser', { user_email: email });
    expect([unkeyed.status, unkeyed.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
  });

  it('a refusal is recorded too: a 404 is replayed even after the user appears', async () => {
    const email = suite.api.email('replay-404');
    const body = { user_email: email, new_password: 'for nobody yet' };
    const key = newKey();
    const first = await asA('/v1/resetUserPassword', body, key);
    expect([first.status, first.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
    await suite.api.asA('/v1/createUser', { user_email: email });
    const again = await asA('/v1/resetUserPassword', body, key);
    expect([again.status, again.text, replayed(again)]).toEqual([404, first.text, 'true']);
  });

  it('a 409 User already exists is replayed as recorded', async () => {
    const email = suite.api.email('replay-409');
    await suite.api.asA('/v1/createUser', { user_email: email });
    const { first } = await expectReplay('/v1/createUser', { user_email: email });
    expect([first.status, first.body]).toEqual([409, { message: MESSAGES.userExists }]);
  });

  it('the body is compared as validated: an e-mail spelled in another case or with spaces is the same request', async () => {
    const email = suite.api.email('validated');
    const key = newKey();
    const first = await asA('/v1/createUser', { user_email: email }, key);
    const again = await asA('/v1/createUser', { user_email: ` ${email.toUpperCase()} ` }, key);
    expect([again.status, again.text, replayed(again)]).toEqual([200, first.text, 'true']);
  });

  it('the body is compared after parsing: key order and whitespace do not matter', async () => {
    const email = suite.api.email('parsed');
    const key = newKey();
    const first = await asA('/v1/createUser', undefined, key, {
      raw: JSON.stringify({ user_email: email, should_reset_password: 'true' }),
    });
    expect(first.status).toBe(200);
    const again = await asA('/v1/createUser', undefined, key, {
      raw: `{ "should_reset_password" : "true",\n  "user_email" : ${JSON.stringify(email)} }`,
    });
    expect([again.status, again.text, replayed(again)]).toEqual([200, first.text, 'true']);
  });
});

describe('Idempotency-Key: the same key with another request is 422', () => {
  const reused = [422, { message: MESSAGES.idempotencyKeyReused }];

  it('another body: 422, and the second request did not run', async () => {
    const key = newKey();
    const [first, second] = [suite.api.email('body-a'), suite.api.email('body-b')];
    expect((await asA('/v1/createUser', { user_email: first }, key)).status).toBe(200);
    const response = await asA('/v1/createUser', { user_email: second }, key);
    expect([response.status, response.body]).toEqual(reused);
    expect((await suite.api.asA('/v1/createUser', { user_email: second })).status).toBe(200);
  });

  it('the same fields, one value spelled another way (the body as validated, not normalised): 422', async () => {
    const key = newKey();
    const email = suite.api.email('spelling');
    expect((await asA('/v1/createUser', { user_email: email, should_reset_password: 'true' }, key)).status).toBe(200);
    const response = await asA('/v1/createUser', { user_email: email, should_reset_password: true }, key);
    expect([response.status, response.body]).toEqual(reused);
  });

  it('another operation with the same body: 422, and the delete did not run', async () => {
    const key = newKey();
    const email = suite.api.email('other-operation');
    await suite.api.asA('/v1/createUser', { user_email: email });
    expect((await asA('/v1/resetUserPassword', { user_email: email, new_password: 'set with the key' }, key)).status).toBe(200);
    const response = await asA('/v1/deleteUser', { user_email: email }, key);
    expect([response.status, response.body]).toEqual(reused);
    expect(statusAndBody(await suite.api.asA('/v1/createUser', { user_email: email }))).toEqual([409, { message: MESSAGES.userExists }]);
  });
});

describe('Idempotency-Key: keys belong to one owner', () => {
  it('owner B using the string owner A used runs its own operation and gets its own answer', async () => {
    const key = newKey();
    const email = suite.api.email('two-owners');
    const byA = await asA('/v1/createUser', { user_email: email }, key);
    const byB = await asB('/v1/createUser', { user_email: email }, key);
    expect([byA.status, byB.status]).toEqual([200, 200]);
    expect(replayed(byB)).toBeNull();
    expect((byB.body as { user_password: string }).user_password).not.toBe((byA.body as { user_password: string }).user_password);
    // B now holds its own record under that string: another request by B with it is refused as B's.
    const otherRequest = await asB('/v1/resetUserPassword', { user_email: email, new_password: 'b sets this one' }, key);
    expect([otherRequest.status, otherRequest.body]).toEqual([422, { message: MESSAGES.idempotencyKeyReused }]);
    const againByA = await asA('/v1/createUser', { user_email: email }, key);
    expect([againByA.status, againByA.text, replayed(againByA)]).toEqual([200, byA.text, 'true']);
  });
});
