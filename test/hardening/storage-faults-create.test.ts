/**
 * createUser under storage faults, one test per DynamoDB call it makes and per
 * fault: the caller gets "Failed to create user", nothing is half written, and
 * the caller's retry creates the user. Backoff jitter is scaled down to keep the
 * suite fast; sdk-retries.test.ts covers the real delays.
 */

import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { issueKey } from '#domain/owners';
import { processStores } from '#store/stores';
import { type DynamoOperation, expectRetryQuotaFor, type FaultKind, fastJitter, faultsInjected, injectFault } from '../support/faults';
import { apiClient } from '../support/http-client';
import { startLocalServer, uniqueEmail } from '../support/local';
import { collection, ownerWithId, profileOf, storedPasswordIs, type TestOwner } from './support/world';

const { config, stores } = processStores();
const { client } = stores;
let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: TestOwner;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('faults-create');
  fastJitter();
});
afterAll(async () => {
  jest.restoreAllMocks();
  await server.close();
  if (process.env.HARDENING_REPORT) console.log(`storage-faults-create: ${faultsInjected()} faults injected`);
});

/** A client with a key nobody has used yet, so the pipeline must look it up (2 GetItems). */
const freshClient = async () => apiClient(server.baseUrl, (await issueKey(stores.owners, owner.ownerEmail)).api_key);

const CALLS: { call: string; operation: DynamoOperation; table?: string }[] = [
  { call: 'GetItem of the API key', operation: 'GetItem', table: config.ownersTableName },
  { call: "GetItem of the owner's account", operation: 'GetItem', table: config.usersTableName },
  { call: 'conditional PutItem of the user', operation: 'PutItem' },
];
const KINDS: FaultKind[] = ['throttle', 'internal', 'timeout'];

describe.each(CALLS)('createUser when the $call fails', ({ operation, table }) => {
  it.each(KINDS)('%s: three attempts, "Failed to create user", nothing written, and the retry creates the user', async (kind) => {
    const api = await freshClient();
    const email = uniqueEmail('fault-create');
    await expectRetryQuotaFor(client, 2);

    const fault = injectFault(client, { operation, table, kind });
    const failed = await api('/v1/createUser', { user_email: email, user_password: 'the first password' }).finally(fault.remove);

    expect([failed.status, failed.body]).toEqual([500, { message: MESSAGES.createFailed }]);
    expect(fault.attempts).toBe(3);
    expect(await collection(owner.ownerId, email)).toEqual([]);

    const retry = await api('/v1/createUser', { user_email: email, user_password: 'the first password' });
    expect([retry.status, retry.body]).toEqual([200, { user_email: email, user_password: 'the first password' }]);
    expect(await storedPasswordIs(owner.ownerId, email, 'the first password')).toBe(true);
  });
});

describe('createUser when the PutItem is applied but its response is lost', () => {
  it("once: the SDK's retry meets the caller's own item and still answers 200, not 409", async () => {
    const api = await freshClient();
    const email = uniqueEmail('lost-create');
    const fault = injectFault(client, { operation: 'PutItem', kind: 'lost-response', times: 1 });
    const response = await api('/v1/createUser', { user_email: email, user_password: 'written once' }).finally(fault.remove);

    expect(fault.attempts).toBe(2);
    expect([response.status, response.body]).toEqual([200, { user_email: email, user_password: 'written once' }]);
    expect(await collection(owner.ownerId, email)).toHaveLength(1);
    expect(await storedPasswordIs(owner.ownerId, email, 'written once')).toBe(true);
  });

  it('once, with a generated password: the caller is told the password the user really has', async () => {
    const api = await freshClient();
    const email = uniqueEmail('lost-generated');
    const fault = injectFault(client, { operation: 'PutItem', kind: 'lost-response', times: 1 });
    const response = await api('/v1/createUser', { user_email: email }).finally(fault.remove);

    expect(response.status).toBe(200);
    const { user_password } = response.body as { user_password: string };
    expect(await storedPasswordIs(owner.ownerId, email, user_password)).toBe(true);
  });

  it('on every attempt: 500, and nothing is lost: the user holds the password the caller sent, so its retry is a 409', async () => {
    const api = await freshClient();
    const email = uniqueEmail('lost-always');
    await expectRetryQuotaFor(client, 2);
    const fault = injectFault(client, { operation: 'PutItem', kind: 'lost-response' });
    const response = await api('/v1/createUser', { user_email: email, user_password: 'written, never confirmed' }).finally(fault.remove);

    expect([response.status, response.body]).toEqual([500, { message: MESSAGES.createFailed }]);
    expect(fault.attempts).toBe(3);
    const items = await collection(owner.ownerId, email);
    expect(items).toHaveLength(1);
    expect(profileOf(items)?.white_label).toBeUndefined();
    expect(await storedPasswordIs(owner.ownerId, email, 'written, never confirmed')).toBe(true);
    // Without an idempotency key in the contract, a new request cannot be told from another caller's.
    const retry = await api('/v1/createUser', { user_email: email, user_password: 'written, never confirmed' });
    expect([retry.status, retry.body]).toEqual([409, { message: MESSAGES.userExists }]);
  });
});
