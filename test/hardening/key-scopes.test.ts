/**
 * Least-privilege keys over HTTP on DynamoDB Local: a key limited to some operations, or
 * past its expiry, gets the 401 before the body is read (expiry against the clock, even
 * while the key is cached); a key issued without options works as keys always did; and
 * last_used_at is written once per key per hour, without ever failing the request.
 */

import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES, OPERATIONS } from '#contract/operations';
import { digestApiKey, newApiKey } from '#domain/api-keys';
import { keyUseRecorder } from '#domain/key-use';
import { hourOf, issueKey, type KeyScope } from '#domain/owners';
import { processStores } from '#store/stores';
import { apiKeyKey, userKey } from '#store/table-layout';
import { fakeDateOnly } from '../support/clock';
import { injectFault, observeRequests } from '../support/faults';
import { apiClient } from '../support/http-client';
import { startLocalServer, uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { ownerWithId, type TestOwner } from './support/world';

const { config, stores } = processStores();
const { client } = stores;
let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: TestOwner;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('scopes');
});
afterEach(() => {
  jest.useRealTimers();
});
afterAll(async () => server.close());

const unauthorized = [401, { message: MESSAGES.unauthorized }];
const notFound = [404, { message: MESSAGES.userNotFound }];
const passwordReset = [200, { message: MESSAGES.passwordReset }];
const deletedAll = [200, { message: MESSAGES.userDeleted }];
/** A response as `[status, body]`, to compare both at once. */
const answer = ({ status, body }: { status: number; body: unknown }) => [status, body];
const HOUR = 3_600_000;
// Shared cores: a test of a few hundred requests may take seconds.
jest.setTimeout(30_000);

async function keyFor(scope: KeyScope = {}, of: TestOwner = owner) {
  const issued = await issueKey(stores.owners, of.ownerEmail, scope);
  return { ...issued, api: apiClient(server.baseUrl, issued.api_key), digest: digestApiKey(issued.api_key) };
}

const storedKey = async (digest: string) =>
  (await client.send(new GetCommand({ TableName: config.ownersTableName, Key: apiKeyKey(digest), ConsistentRead: true }))).Item;

type Sent = { TableName?: string; Key?: { pk?: { S?: string } }; UpdateExpression?: string };

/** The requests sent to DynamoDB while `work` runs, as parsed bodies. */
async function requestsDuring(work: () => Promise<unknown>): Promise<Sent[]> {
  const observer = observeRequests(client);
  try {
    await work();
  } finally {
    observer.remove();
  }
  return observer.bodies.map((body) => JSON.parse(body));
}

/** Requests about this key's item; `updates` keeps the UpdateItems (the last-use writes) only. */
const aboutKey = (requests: readonly Sent[], digest: string, updates = false) =>
  requests.filter((body) => body.Key?.pk?.S === `KEY#${digest}` && (!updates || body.UpdateExpression !== undefined));

/** Waits (polling: the write is not awaited by the request) until the key's item holds last_used_at, or this hour. */
const lastUseRecorded = (digest: string, hour?: string) =>
  waitFor(
    async () => {
      const stored = (await storedKey(digest))?.last_used_at as string | undefined;
      return stored !== undefined && (hour === undefined || stored === hour) ? stored : undefined;
    },
    5_000,
    `last_used_at ${hour ?? ''} of KEY#${digest}`,
  );

describe('operations', () => {
  it('a create-only key creates, and gets 401 on reset and delete (its owner sees the user untouched)', async () => {
    const { api, operations } = await keyFor({ operations: ['createUser'] });
    expect(operations).toEqual(['createUser']);
    const email = uniqueEmail('scoped');
    const created = await api('/v1/createUser', { user_email: email, user_password: 'the first password' });
    expect([created.status, created.body]).toEqual([200, { user_email: email, user_password: 'the first password' }]);

    const reset = await api('/v1/resetUserPassword', { user_email: email, new_password: 'another password' });
    expect([reset.status, reset.body]).toEqual(unauthorized);
    const deleted = await api('/v1/deleteUser', { user_email: email });
    expect([deleted.status, deleted.body]).toEqual(unauthorized);

    // The owner's all-operation key finds the user as the create left it.
    const asOwner = apiClient(server.baseUrl, owner.apiKey);
    expect(answer(await asOwner('/v1/deleteUser', { user_email: email }))).toEqual(deletedAll);
  });

  it('outside its operations, the key is refused before the body is read: invalid, oversized, non-JSON bodies all get 401', async () => {
    const { api } = await keyFor({ operations: ['createUser', 'resetUserPassword'] });
    for (const [raw, contentType] of [
      ['not json', 'application/json'],
      ['[]', 'application/json'],
      ['{"user_email": 42, "extra": true}', 'application/json'],
      ['x'.repeat(20_000), 'text/plain'],
      ['{"user_email":"a@example.com"}', 'text/plain'],
    ]) {
      const response = await api('/v1/deleteUser', undefined, { raw, headers: { 'content-type': contentType! } });
      expect([raw!.slice(0, 20), response.status, response.body]).toEqual([raw!.slice(0, 20), ...unauthorized]);
    }
    // The same bodies to an operation in its list reach the body checks.
    const inScope = await api('/v1/resetUserPassword', undefined, { raw: 'not json' });
    expect([inScope.status, inScope.body]).toEqual([400, { message: MESSAGES.notAnObject }]);
  });

  it("a refusal reads the key's item only: nothing of the owner, nothing of users", async () => {
    const { api, digest } = await keyFor({ operations: ['deleteUser'] });
    const requests = await requestsDuring(() => api('/v1/createUser', { user_email: uniqueEmail('never') }));
    expect(requests.filter((body) => body.TableName === config.usersTableName)).toEqual([]);
    // A consistent read: a refusal is remembered for a while (ADR 9), so it must not come from a stale replica.
    expect(aboutKey(requests, digest)).toEqual([
      { TableName: config.ownersTableName, Key: { pk: { S: `KEY#${digest}` } }, ConsistentRead: true },
    ]);
  });

  it('an out-of-scope key of an owner whose account is gone is still 401 (not a valid key), the in-scope operation 403', async () => {
    const gone = await ownerWithId('scopes-gone');
    const { api } = await keyFor({ operations: ['createUser'] }, gone);
    await client.send(new DeleteCommand({ TableName: config.usersTableName, Key: userKey(gone.ownerId, gone.ownerEmail) }));
    const refused = await api('/v1/deleteUser', { user_email: uniqueEmail('x') });
    expect([refused.status, refused.body]).toEqual(unauthorized);
    const noOwner = await api('/v1/createUser', { user_email: uniqueEmail('x') });
    expect([noOwner.status, noOwner.body]).toEqual([403, { message: MESSAGES.noOwner }]);
  });
});

describe('expiry', () => {
  it('a key works until its expiry and gets 401 from then on, even while cached (no DynamoDB call)', async () => {
    const now = Date.now();
    const expiresAt = now + 10 * 60_000;
    const { api, expires_at } = await keyFor({ expiresAt: new Date(expiresAt).toISOString() });
    expect(expires_at).toBe(new Date(expiresAt).toISOString());
    fakeDateOnly(expiresAt - 1_000);
    expect(answer(await api('/v1/deleteUser', { user_email: uniqueEmail('nobody') }))).toEqual(notFound);

    // Within the cache's TTL of that lookup, and past the key's expiry.
    jest.setSystemTime(expiresAt);
    expect(config.apiKeyCacheTtlMs).toBeGreaterThan(1_000);
    let response: Awaited<ReturnType<typeof api>> | undefined;
    const requests = await requestsDuring(async () => {
      response = await api('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
    });
    expect([response!.status, response!.body]).toEqual(unauthorized);
    expect(requests).toEqual([]);

    // And on a fresh lookup (the cache expired), and for every operation.
    jest.setSystemTime(expiresAt + config.apiKeyCacheTtlMs + 1);
    for (const path of OPERATIONS.map((operation) => `/v1/${operation}`)) {
      const refused = await api(path, { user_email: uniqueEmail('x'), new_password: 'whatever password' });
      expect([path, refused.status, refused.body]).toEqual([path, ...unauthorized]);
    }
  });

  it('a key issued already expired is refused by the domain, so never stored', async () => {
    await expect(issueKey(stores.owners, owner.ownerEmail, { expiresAt: new Date(Date.now() - 1).toISOString() })).rejects.toThrow(
      /not in the future/,
    );
  });
});

describe('keys without options', () => {
  it('a key issued with no options may call every operation, and its item holds neither a list nor an expiry', async () => {
    const { api, digest, operations, expires_at } = await keyFor();
    expect([operations, expires_at]).toEqual([[...OPERATIONS], null]);
    const email = uniqueEmail('plain');
    expect(answer(await api('/v1/createUser', { user_email: email, user_password: 'the first password' }))).toEqual([
      200,
      { user_email: email, user_password: 'the first password' },
    ]);
    expect(answer(await api('/v1/resetUserPassword', { user_email: email, new_password: 'a new password' }))).toEqual(passwordReset);
    expect(answer(await api('/v1/deleteUser', { user_email: email }))).toEqual(deletedAll);
    const item = await storedKey(digest);
    expect(item).not.toHaveProperty('operations');
    expect(item).not.toHaveProperty('expires_at');
  });

  it('a key item written before keys had scopes (no operations, no expiry attributes) keeps working for every operation', async () => {
    const { apiKey, keyId, digest } = newApiKey();
    await client.send(
      new PutCommand({
        TableName: config.ownersTableName,
        Item: {
          ...apiKeyKey(digest),
          key_id: keyId,
          owner_id: owner.ownerId,
          owner_email: owner.ownerEmail,
          created_at: '2025-01-01T00:00:00.000Z',
        },
      }),
    );
    const api = apiClient(server.baseUrl, apiKey);
    const email = uniqueEmail('legacy');
    expect(answer(await api('/v1/createUser', { user_email: email, user_password: 'the first password' }))).toEqual([
      200,
      { user_email: email, user_password: 'the first password' },
    ]);
    expect(answer(await api('/v1/resetUserPassword', { user_email: email, new_password: 'a new password' }))).toEqual(passwordReset);
    expect(answer(await api('/v1/deleteUser', { user_email: email }))).toEqual(deletedAll);
  });
});

describe('DynamoDB calls per request on a warm function', () => {
  /** The DynamoDB operation and table of a request body. */
  const callOf = (body: Sent & Record<string, unknown>) => {
    const table =
      body.TableName === config.usersTableName
        ? 'users'
        : body.TableName === config.ownersTableName
          ? 'owners'
          : body.TableName === config.signInTableName
            ? 'sign-in'
            : '?';
    const operation =
      'Item' in body
        ? 'PutItem'
        : body.UpdateExpression !== undefined
          ? 'UpdateItem'
          : 'KeyConditionExpression' in body
            ? 'Query'
            : 'RequestItems' in body
              ? 'BatchWriteItem'
              : 'ConditionExpression' in body
                ? 'DeleteItem'
                : 'GetItem';
    return `${operation} ${table}`;
  };

  it("a scoped, expiring key adds no call to the operation's own: create 1, reset 1, delete 3", async () => {
    const { api, digest } = await keyFor({
      operations: [...OPERATIONS],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    // Warm each operation's key cache, and let the hour's last-use write land.
    const warm = uniqueEmail('warm');
    expect(answer(await api('/v1/createUser', { user_email: warm, user_password: 'a warm password' }))).toEqual([
      200,
      { user_email: warm, user_password: 'a warm password' },
    ]);
    expect(answer(await api('/v1/resetUserPassword', { user_email: uniqueEmail('absent'), new_password: 'a new password' }))).toEqual(
      notFound,
    );
    expect(answer(await api('/v1/deleteUser', { user_email: uniqueEmail('absent') }))).toEqual(notFound);
    await lastUseRecorded(digest);

    const email = uniqueEmail('calls');
    const calls = async (path: string, body: object) =>
      (await requestsDuring(() => api(path, body))).map((request) => callOf(request as Sent & Record<string, unknown>));
    expect(await calls('/v1/createUser', { user_email: email })).toEqual(['PutItem users']);
    expect(await calls('/v1/resetUserPassword', { user_email: email, new_password: 'another password' })).toEqual(['UpdateItem users']);
    // The collection, the user's partition of the sign-in table, the profile last.
    expect(await calls('/v1/deleteUser', { user_email: email })).toEqual(['Query users', 'Query sign-in', 'DeleteItem users']);
  });
});

describe('last_used_at', () => {
  const updateItemsOf = (bodies: string[], digest: string) =>
    aboutKey(
      bodies.map((body) => JSON.parse(body)),
      digest,
      true,
    ).length;

  it('100 requests of one key across the three operations: one UpdateItem in the hour, one more in the next', async () => {
    const { api, digest } = await keyFor();
    const email = uniqueEmail('used');
    const hour0 = Math.floor(Date.now() / HOUR) * HOUR;
    const observer = observeRequests(client);
    try {
      fakeDateOnly(hour0 + 5 * 60_000);
      expect(answer(await api('/v1/createUser', { user_email: email, user_password: 'password number 0' }))).toEqual([
        200,
        { user_email: email, user_password: 'password number 0' },
      ]);
      for (let i = 0; i < 99; i++) {
        const response =
          i % 3 === 0
            ? await api('/v1/resetUserPassword', { user_email: email, new_password: `password number ${i + 1}` })
            : await api('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
        expect([i, ...answer(response)]).toEqual([i, ...(i % 3 === 0 ? passwordReset : notFound)]);
      }
      await lastUseRecorded(digest);
      expect(updateItemsOf(observer.bodies, digest)).toBe(1);
      expect((await storedKey(digest))?.last_used_at).toBe(hourOf(hour0));

      // The next hour (the key cache refreshed many times over): one more, however many requests.
      jest.setSystemTime(hour0 + HOUR + 59 * 60_000);
      for (let i = 0; i < 100; i++)
        expect([i, ...answer(await api('/v1/deleteUser', { user_email: uniqueEmail('nobody') }))]).toEqual([i, ...notFound]);
      await lastUseRecorded(digest, hourOf(hour0 + HOUR));
      expect(updateItemsOf(observer.bodies, digest)).toBe(2);
    } finally {
      observer.remove();
    }
  }, 60_000);

  it('a function that finds the current hour already recorded (by another function) sends nothing', async () => {
    const { api, digest } = await keyFor();
    await stores.owners.recordKeyUse(digest, hourOf(Date.now()));
    const requests = await requestsDuring(async () => {
      for (let i = 0; i < 5; i++)
        expect([i, ...answer(await api('/v1/deleteUser', { user_email: uniqueEmail('nobody') }))]).toEqual([i, ...notFound]);
    });
    // The key's GetItem at its first request, and no UpdateItem.
    expect(aboutKey(requests, digest)).toHaveLength(1);
    expect(aboutKey(requests, digest, true)).toEqual([]);
  });

  it('the stored hour only moves forward, and a key that is gone is not recreated', async () => {
    const { digest } = await keyFor();
    const now = Date.now();
    await stores.owners.recordKeyUse(digest, hourOf(now));
    await stores.owners.recordKeyUse(digest, hourOf(now - 3 * HOUR));
    expect((await storedKey(digest))?.last_used_at).toBe(hourOf(now));

    const absent = digestApiKey(newApiKey().apiKey);
    await stores.owners.recordKeyUse(absent, hourOf(now));
    expect(await storedKey(absent)).toBeUndefined();
  });

  it('two warm functions (two recorders) in one hour: each sends one UpdateItem for 50 uses, the item holds the hour', async () => {
    const { digest } = await keyFor();
    const record = (await stores.owners.findApiKey(digest))!;
    // The writes the recorders start (never awaited by a request), kept so the test can await every one.
    const started: Promise<void>[] = [];
    const store = {
      recordKeyUse(keyDigest: string, hour: string) {
        const write = stores.owners.recordKeyUse(keyDigest, hour);
        started.push(write);
        return write;
      },
    };
    const [first, second] = [keyUseRecorder(store), keyUseRecorder(store)];
    const observer = observeRequests(client);
    try {
      for (let i = 0; i < 50; i++) {
        first(record, Date.now());
        second(record, Date.now());
      }
      // A recorder starts its write within the call, so by now every write there will be has started.
      expect(started).toHaveLength(2);
      await Promise.all(started);
      expect(updateItemsOf(observer.bodies, digest)).toBe(2);
    } finally {
      observer.remove();
    }
    expect((await storedKey(digest))?.last_used_at).toBe(hourOf(Date.now()));
  });

  it("names only the key and last_used_at and asks for nothing back: what the functions' IAM condition allows", async () => {
    const { digest } = await keyFor();
    const requests = await requestsDuring(() => stores.owners.recordKeyUse(digest, hourOf(Date.now())));
    const [update] = requests as (Sent & {
      ConditionExpression: string;
      ExpressionAttributeNames?: Record<string, string>;
      ReturnValues?: string;
    })[];
    expect(requests).toHaveLength(1);
    const names = new Set([
      ...Object.keys(update!.Key ?? {}),
      ...Object.values(update!.ExpressionAttributeNames ?? {}),
      // Names written out in the expressions: what is left once functions, keywords and placeholders are gone.
      ...`${update!.UpdateExpression} ${update!.ConditionExpression}`
        .replace(/attribute_(not_)?exists|\b(SET|AND|OR|NOT)\b|[#:]\w+/g, ' ')
        .match(/[A-Za-z_]\w*/g)!,
    ]);
    expect([...names].sort()).toEqual(['last_used_at', 'pk']);
    expect(update!.ReturnValues ?? 'NONE').toBe('NONE');
  });

  it('a failing update does not fail, or change, the request that caused it', async () => {
    const { api, digest } = await keyFor();
    const fault = injectFault(client, { operation: 'UpdateItem', table: config.ownersTableName, kind: 'internal' });
    try {
      const email = uniqueEmail('unrecorded');
      const created = await api('/v1/createUser', { user_email: email, user_password: 'recorded or not' });
      expect([created.status, created.body]).toEqual([200, { user_email: email, user_password: 'recorded or not' }]);
      // The SDK retries the update in the background (3 attempts); every one fails.
      await waitFor(() => (fault.attempts >= 3 ? true : undefined), 5_000, 'three attempts');
      expect(answer(await api('/v1/deleteUser', { user_email: email }))).toEqual(deletedAll);
      // Three attempts, and no more: a failed write is not retried within the hour.
      expect([fault.attempts, fault.injected]).toEqual([3, 3]);
    } finally {
      fault.remove();
    }
    expect(await storedKey(digest)).not.toHaveProperty('last_used_at');
  });
});
