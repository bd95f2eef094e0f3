/**
 * deleteUser under storage faults, one test per DynamoDB call it makes and per
 * fault, on a user with 30 items of associated data (two BatchWriteItems): the
 * caller gets "Failed to delete user and associated data.", the user is still
 * visible (its profile goes last), and the caller's retry removes the whole item
 * collection. Backoff jitter is scaled down; sdk-retries.test.ts covers the real delays.
 */

import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { issueKey } from '#domain/owners';
import { processStores } from '#store/stores';
import {
  type DynamoOperation,
  expectRetryQuotaFor,
  type FaultKind,
  type FaultSpec,
  fastJitter,
  faultsInjected,
  injectFault,
} from '../support/faults';
import { apiClient } from '../support/http-client';
import { startLocalServer, uniqueEmail } from '../support/local';
import { collection, ownerWithId, profileOf, seedAssociatedData, type TestOwner } from './support/world';

const { config, stores } = processStores();
const { client } = stores;
const ASSOCIATED_ITEMS = 30;
let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: TestOwner;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('faults-delete');
  fastJitter();
});
afterAll(async () => {
  jest.restoreAllMocks();
  await server.close();
  if (process.env.HARDENING_REPORT) console.log(`storage-faults-delete: ${faultsInjected()} faults injected`);
});

/** A client with a key nobody has used yet, and a user with associated data to delete. */
async function freshCallerAndUser() {
  const api = apiClient(server.baseUrl, (await issueKey(stores.owners, owner.ownerEmail)).api_key);
  const email = uniqueEmail('fault-delete');
  expect((await apiClient(server.baseUrl, owner.apiKey)('/v1/createUser', { user_email: email })).status).toBe(200);
  await seedAssociatedData(owner.ownerId, email, ASSOCIATED_ITEMS);
  return { api, email };
}

const deleted = [200, { message: MESSAGES.userDeleted }];
const failedToDelete = [500, { message: MESSAGES.deleteFailed }];

/** A BatchWriteItem of `size` delete requests (the two batches of one delete are in flight together). */
const batchOf = (size: number) => (input: { RequestItems?: Record<string, unknown[]> }) =>
  Object.values(input.RequestItems ?? {})[0]?.length === size;

/** Per call: the fault, and how many associated items are left behind (the profile always is). */
const CALLS: { call: string; operation: DynamoOperation; table?: string; when?: FaultSpec['when']; left: number }[] = [
  { call: 'GetItem of the API key', operation: 'GetItem', table: config.ownersTableName, left: ASSOCIATED_ITEMS },
  { call: "GetItem of the owner's account", operation: 'GetItem', table: config.usersTableName, left: ASSOCIATED_ITEMS },
  { call: 'Query of the item collection', operation: 'Query', left: ASSOCIATED_ITEMS },
  // The batch of 25 goes through, the batch of the last 5 fails: those 5 are left.
  { call: 'BatchWriteItem of the last 5 associated items', operation: 'BatchWriteItem', when: batchOf(5), left: 5 },
  { call: 'conditional DeleteItem of the profile', operation: 'DeleteItem', left: 0 },
];
const KINDS: FaultKind[] = ['throttle', 'internal', 'timeout'];

describe.each(CALLS)('deleteUser when the $call fails', ({ operation, table, when, left }) => {
  it.each(KINDS)(
    '%s: three attempts, "Failed to delete user and associated data.", the user still visible, and the retry deletes it all',
    async (kind) => {
      const { api, email } = await freshCallerAndUser();
      await expectRetryQuotaFor(client, 2);

      const fault = injectFault(client, { operation, table, kind, when });
      const failed = await api('/v1/deleteUser', { user_email: email }).finally(fault.remove);

      expect([failed.status, failed.body]).toEqual(failedToDelete);
      expect(fault.injected).toBe(3);
      const items = await collection(owner.ownerId, email);
      expect(profileOf(items)).toBeDefined();
      expect(items.length - 1).toBe(left);

      const retry = await api('/v1/deleteUser', { user_email: email });
      expect([retry.status, retry.body]).toEqual(deleted);
      expect(await collection(owner.ownerId, email)).toEqual([]);
    },
  );
});

describe('deleteUser when a write is applied but its response is lost', () => {
  it("DeleteItem, once: the SDK's retry finds the profile gone and the caller still gets 200, not 404", async () => {
    const { api, email } = await freshCallerAndUser();
    const fault = injectFault(client, { operation: 'DeleteItem', kind: 'lost-response', times: 1 });
    const response = await api('/v1/deleteUser', { user_email: email }).finally(fault.remove);

    expect(fault.attempts).toBe(2);
    expect([response.status, response.body]).toEqual(deleted);
    expect(await collection(owner.ownerId, email)).toEqual([]);
  });

  it('DeleteItem, every attempt: 500, yet the user and all its data are gone; the retry finds no such user (404)', async () => {
    const { api, email } = await freshCallerAndUser();
    await expectRetryQuotaFor(client, 2);
    const fault = injectFault(client, { operation: 'DeleteItem', kind: 'lost-response' });
    const response = await api('/v1/deleteUser', { user_email: email }).finally(fault.remove);

    expect([response.status, response.body]).toEqual(failedToDelete);
    expect(fault.attempts).toBe(3);
    expect(await collection(owner.ownerId, email)).toEqual([]);
    const retry = await api('/v1/deleteUser', { user_email: email });
    expect([retry.status, retry.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
  });

  it('BatchWriteItem, every attempt: 500 with the profile still there, and the retry deletes it all', async () => {
    const { api, email } = await freshCallerAndUser();
    await expectRetryQuotaFor(client, 4);
    const fault = injectFault(client, { operation: 'BatchWriteItem', kind: 'lost-response' });
    const response = await api('/v1/deleteUser', { user_email: email }).finally(fault.remove);

    expect([response.status, response.body]).toEqual(failedToDelete);
    // Both batches were applied, three attempts each: only the profile is left.
    expect(fault.attempts).toBe(6);
    const items = await collection(owner.ownerId, email);
    expect([items.length, profileOf(items)]).toEqual([1, items[0]]);
    const retry = await api('/v1/deleteUser', { user_email: email });
    expect([retry.status, retry.body]).toEqual(deleted);
    expect(await collection(owner.ownerId, email)).toEqual([]);
  });
});

describe('deleteUser when BatchWriteItem leaves items unprocessed (what DynamoDB does when it throttles a batch)', () => {
  it('twice: the repository resends what is left and the delete completes', async () => {
    const { api, email } = await freshCallerAndUser();
    const fault = injectFault(client, { operation: 'BatchWriteItem', kind: 'unprocessed', times: 2 });
    const response = await api('/v1/deleteUser', { user_email: email }).finally(fault.remove);

    expect(fault.injected).toBe(2);
    expect([response.status, response.body]).toEqual(deleted);
    expect(await collection(owner.ownerId, email)).toEqual([]);
  });

  it('on every resend: the repository gives up (500), the user is still visible, and the retry deletes it all', async () => {
    const { api, email } = await freshCallerAndUser();
    const fault = injectFault(client, { operation: 'BatchWriteItem', kind: 'unprocessed' });
    const response = await api('/v1/deleteUser', { user_email: email }).finally(fault.remove);

    expect([response.status, response.body]).toEqual(failedToDelete);
    // Each of the two batches is sent nine times (the first send and 8 resends), then the repository gives up.
    expect(fault.injected).toBe(18);
    expect(await collection(owner.ownerId, email)).toHaveLength(ASSOCIATED_ITEMS + 1);
    const retry = await api('/v1/deleteUser', { user_email: email });
    expect([retry.status, retry.body]).toEqual(deleted);
    expect(await collection(owner.ownerId, email)).toEqual([]);
  });
});
