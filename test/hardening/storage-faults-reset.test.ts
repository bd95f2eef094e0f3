/**
 * resetUserPassword under storage faults, one test per DynamoDB call it makes and
 * per fault: "Failed to reset password.", the old password still holds, and the
 * caller's retry sets the new one. Backoff jitter is scaled down to keep the
 * suite fast; sdk-retries.test.ts covers the real delays.
 */

import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { issueKey } from '#domain/owners';
import { processStores } from '#store/stores';
import { type DynamoOperation, expectRetryQuotaFor, type FaultKind, fastJitter, faultsInjected, injectFault } from '../support/faults';
import { apiClient } from '../support/http-client';
import { startLocalServer, uniqueEmail } from '../support/local';
import { collection, ownerWithId, storedPasswordIs, type TestOwner } from './support/world';

const { config, stores } = processStores();
const { client } = stores;
let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: TestOwner;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('faults-reset');
  fastJitter();
});
afterAll(async () => {
  jest.restoreAllMocks();
  await server.close();
  if (process.env.HARDENING_REPORT) console.log(`storage-faults-reset: ${faultsInjected()} faults injected`);
});

/** A client with a key nobody has used yet (the pipeline looks it up), and a user to reset. */
async function freshCallerAndUser() {
  const api = apiClient(server.baseUrl, (await issueKey(stores.owners, owner.ownerEmail)).api_key);
  const email = uniqueEmail('fault-reset');
  expect(
    (await apiClient(server.baseUrl, owner.apiKey)('/v1/createUser', { user_email: email, user_password: 'the old password' })).status,
  ).toBe(200);
  return { api, email };
}

const CALLS: { call: string; operation: DynamoOperation; table?: string }[] = [
  { call: 'GetItem of the API key', operation: 'GetItem', table: config.ownersTableName },
  { call: "GetItem of the owner's account", operation: 'GetItem', table: config.usersTableName },
  // On the users table: a fresh key's first request also records its use with an UpdateItem on the owners table.
  { call: 'conditional UpdateItem of the password', operation: 'UpdateItem', table: config.usersTableName },
];
const KINDS: FaultKind[] = ['throttle', 'internal', 'timeout'];

describe.each(CALLS)('resetUserPassword when the $call fails', ({ operation, table }) => {
  it.each(KINDS)(
    '%s: three attempts, "Failed to reset password.", the old password holds, and the retry sets the new one',
    async (kind) => {
      const { api, email } = await freshCallerAndUser();
      await expectRetryQuotaFor(client, 2);

      const fault = injectFault(client, { operation, table, kind });
      const failed = await api('/v1/resetUserPassword', { user_email: email, new_password: 'the new password' }).finally(fault.remove);

      expect([failed.status, failed.body]).toEqual([500, { message: MESSAGES.resetFailed }]);
      expect(fault.attempts).toBe(3);
      expect(await storedPasswordIs(owner.ownerId, email, 'the old password')).toBe(true);

      const retry = await api('/v1/resetUserPassword', { user_email: email, new_password: 'the new password' });
      expect([retry.status, retry.body]).toEqual([200, { message: MESSAGES.passwordReset }]);
      expect(await storedPasswordIs(owner.ownerId, email, 'the new password')).toBe(true);
      expect(await collection(owner.ownerId, email)).toHaveLength(1);
    },
  );
});

describe('resetUserPassword when the UpdateItem is applied but its response is lost', () => {
  it("once: the SDK's retry sets the same hash again and the caller gets 200", async () => {
    const { api, email } = await freshCallerAndUser();
    const fault = injectFault(client, { operation: 'UpdateItem', table: config.usersTableName, kind: 'lost-response', times: 1 });
    const response = await api('/v1/resetUserPassword', { user_email: email, new_password: 'the new password' }).finally(fault.remove);

    expect(fault.attempts).toBe(2);
    expect([response.status, response.body]).toEqual([200, { message: MESSAGES.passwordReset }]);
    expect(await storedPasswordIs(owner.ownerId, email, 'the new password')).toBe(true);
  });

  it('on every attempt: 500; the new password is in place and the retry answers 200', async () => {
    const { api, email } = await freshCallerAndUser();
    await expectRetryQuotaFor(client, 2);
    const fault = injectFault(client, { operation: 'UpdateItem', table: config.usersTableName, kind: 'lost-response' });
    const response = await api('/v1/resetUserPassword', { user_email: email, new_password: 'the new password' }).finally(fault.remove);

    expect([response.status, response.body]).toEqual([500, { message: MESSAGES.resetFailed }]);
    expect(fault.attempts).toBe(3);
    expect(await storedPasswordIs(owner.ownerId, email, 'the new password')).toBe(true);
    const retry = await api('/v1/resetUserPassword', { user_email: email, new_password: 'the new password' });
    expect([retry.status, retry.body]).toEqual([200, { message: MESSAGES.passwordReset }]);
  });
});
