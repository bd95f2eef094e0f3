/**
 * Junk keys cost no database reads: an unknown or revoked key, once refused, is
 * remembered by digest (bounded, least recently used first out, for the key-cache
 * TTL), so repeating it reaches DynamoDB at most once. Counted at the SDK client.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
import { newApiKey } from '#domain/api-keys';
import { issueKey, revokeKey } from '#domain/owners';
import { apiKeyAuth } from '#http/middleware/api-key-auth';
import { processStores } from '#store/stores';
import { authenticateWith } from '../support/api-key-auth';
import { fakeDateOnly } from '../support/clock';
import { observeRequests } from '../support/faults';
import { apiClient } from '../support/http-client';
import { startLocalServer, uniqueEmail } from '../support/local';
import { ownerWithId, type TestOwner } from './support/world';

const { config, stores } = processStores();
const { client } = stores;
let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: TestOwner;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('junk-keys');
});
afterEach(() => {
  jest.useRealTimers();
});
afterAll(async () => server.close());

/** The DynamoDB requests `run` makes through the service's client, by API operation. */
async function dynamoCalls(run: () => Promise<void>): Promise<{ total: number; getItems: number }> {
  const observer = observeRequests(client);
  try {
    await run();
  } finally {
    observer.remove();
  }
  // Only GetItem bodies are a table name plus a bare key.
  const getItems = observer.bodies.filter((body) => {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return (
      parsed.Key !== undefined &&
      Object.keys(parsed).every((field) => ['Key', 'TableName', 'ConsistentRead', 'ProjectionExpression'].includes(field))
    );
  }).length;
  return { total: observer.bodies.length, getItems };
}

const unauthorized = [401, { message: MESSAGES.unauthorized }];

describe('an unknown, well-formed key', () => {
  it("50 requests over HTTP: every one a 401, one GetItem in all (the first request's)", async () => {
    const junk = newApiKey().apiKey; // shaped like an issued key, never stored
    const api = apiClient(server.baseUrl, junk);
    const responses: unknown[] = [];
    const calls = await dynamoCalls(async () => {
      for (let i = 0; i < 50; i++) {
        const response = await api('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
        responses.push([response.status, response.body]);
      }
    });
    expect(responses).toEqual(Array.from({ length: 50 }, () => unauthorized));
    if (process.env.HARDENING_REPORT) console.log(`junk key: 50 requests, ${calls.getItems} GetItem, ${calls.total} DynamoDB calls`);
    expect([calls.total, calls.getItems]).toEqual([1, 1]);
  });

  it('is remembered for the key-cache TTL, then looked up again (clock moved forward)', async () => {
    const junk = newApiKey().apiKey;
    const api = apiClient(server.baseUrl, junk);
    const call = async () => {
      const r = await api('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
      return [r.status, r.body];
    };
    fakeDateOnly();
    const start = Date.now();
    expect((await dynamoCalls(async () => void expect(await call()).toEqual(unauthorized))).getItems).toBe(1);
    jest.setSystemTime(start + config.apiKeyCacheTtlMs - 1_000);
    expect((await dynamoCalls(async () => void expect(await call()).toEqual(unauthorized))).getItems).toBe(0);
    jest.setSystemTime(start + config.apiKeyCacheTtlMs + 1);
    expect((await dynamoCalls(async () => void expect(await call()).toEqual(unauthorized))).getItems).toBe(1);
  });

  it('distinct junk keys cost one GetItem each (the cache cannot help a key it has not seen)', async () => {
    const keys = Array.from({ length: 5 }, () => newApiKey().apiKey);
    const calls = await dynamoCalls(async () => {
      for (const key of [...keys, ...keys]) {
        const r = await apiClient(server.baseUrl, key)('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
        expect([r.status, r.body]).toEqual(unauthorized);
      }
    });
    expect(calls.getItems).toBe(5);
  });
});

describe('a revoked key', () => {
  it('is refused, and once refused, repeating it costs no read', async () => {
    const { api_key, key_id } = await issueKey(stores.owners, owner.ownerEmail);
    await revokeKey(stores.owners, key_id);
    const api = apiClient(server.baseUrl, api_key);
    const calls = await dynamoCalls(async () => {
      for (let i = 0; i < 20; i++) {
        const r = await api('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
        expect([r.status, r.body]).toEqual(unauthorized);
      }
    });
    expect(calls.getItems).toBe(1);
  });

  it("a valid key is unaffected by other keys' refusals", async () => {
    const auth = apiKeyAuth({ owners: stores.owners, ttlMs: 60_000, operation: 'deleteUser' });
    const valid = await issueKey(stores.owners, owner.ownerEmail);
    for (let i = 0; i < 3; i++) expect(await authenticateWith(auth, newApiKey().apiKey)).toBe(`401 ${MESSAGES.unauthorized}`);
    expect(await authenticateWith(auth, valid.api_key)).toBe(`accepted as ${owner.ownerId}`);
  });
});

describe('a key limited to other operations', () => {
  it('is remembered as refused by the operation that refused it only', async () => {
    const { api_key } = await issueKey(stores.owners, owner.ownerEmail, { operations: ['createUser'] });
    const api = apiClient(server.baseUrl, api_key);
    const calls = await dynamoCalls(async () => {
      for (let i = 0; i < 10; i++) {
        const r = await api('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
        expect([r.status, r.body]).toEqual(unauthorized);
      }
    });
    expect(calls.getItems).toBe(1);
    const allowed = uniqueEmail('allowed');
    const created = await api('/v1/createUser', { user_email: allowed, user_password: 'an allowed password' });
    expect([created.status, created.body]).toEqual([200, { user_email: allowed, user_password: 'an allowed password' }]);
  });
});

describe('the memory of refusals is bounded', () => {
  it('holds at most its capacity, least recently used out first', async () => {
    const auth = apiKeyAuth({ owners: stores.owners, ttlMs: 60_000, operation: 'deleteUser', maxRefusedKeys: 3 });
    const [a, b, c, d] = Array.from({ length: 4 }, () => newApiKey().apiKey) as [string, string, string, string];
    const reads = async (keys: string[]) =>
      (
        await dynamoCalls(async () => {
          for (const key of keys) expect(await authenticateWith(auth, key)).toBe(`401 ${MESSAGES.unauthorized}`);
        })
      ).getItems;
    expect(await reads([a, b, c])).toBe(3);
    expect(await reads([a])).toBe(0); // a is now the most recently used
    expect(await reads([d])).toBe(1); // evicts b, the least recently used
    expect(await reads([a, c, d])).toBe(0);
    expect(await reads([b])).toBe(1);
  });
});
