/**
 * API keys: a revoked key stops working within the key-cache TTL, a key that is
 * only part of (or more than) a valid key is refused, and keys are looked up and
 * stored by SHA-256 digest only.
 */

import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
import { issueKey, revokeKey } from '#domain/owners';
import { apiKeyAuth } from '#http/middleware/api-key-auth';
import { processStores } from '#store/stores';
import { authenticateWith } from '../support/api-key-auth';
import { fakeDateOnly } from '../support/clock';
import { observeRequests } from '../support/faults';
import { apiClient } from '../support/http-client';
import { startLocalServer, uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { scanAll } from '../support/scan';
import { collection, ownerWithId, type TestOwner } from './support/world';

const { config, stores } = processStores();
const { client } = stores;
let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: TestOwner;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('keys');
});
afterEach(() => {
  jest.useRealTimers();
});
afterAll(async () => server.close());

const unauthorized = [401, { message: MESSAGES.unauthorized }];
const notFound = [404, { message: MESSAGES.userNotFound }];
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const newKey = () => issueKey(stores.owners, owner.ownerEmail);

describe('revocation', () => {
  it('takes effect within the TTL of a cache built with a short TTL (real clock once revoked)', async () => {
    const TTL_MS = 400;
    const auth = apiKeyAuth({ owners: stores.owners, ttlMs: TTL_MS, operation: 'deleteUser' });
    const { api_key, key_id } = await newKey();
    // Date stands still from the lookup to the cached answer after the revocation: on busy cores
    // those steps may take longer than the TTL, and the cache, not the machine's speed, is on test.
    fakeDateOnly();
    expect(await authenticateWith(auth, api_key)).toBe(`accepted as ${owner.ownerId}`);

    await revokeKey(stores.owners, key_id);
    const revokedAt = performance.now();
    // Still trusted from the cache: the TTL, not the revocation, bounds this.
    expect(await authenticateWith(auth, api_key)).toBe(`accepted as ${owner.ownerId}`);
    // From here the real clock: the entry, made before the revocation, lapses within the TTL of it.
    jest.useRealTimers();
    // Poll until refused; every acceptance must have started within the TTL of the revocation.
    let lastAccepted = revokedAt;
    const { value: outcome } = await waitFor(
      async () => {
        const started = performance.now();
        const result = await authenticateWith(auth, api_key);
        if (result !== `accepted as ${owner.ownerId}`) return result;
        lastAccepted = started;
        return undefined;
      },
      TTL_MS + 2_000,
      'refusal of the revoked key',
    );
    expect(outcome).toBe(`401 ${MESSAGES.unauthorized}`);
    expect(lastAccepted - revokedAt).toBeLessThan(TTL_MS);
    // And it stays refused.
    expect(await authenticateWith(auth, api_key)).toBe(`401 ${MESSAGES.unauthorized}`);
  });

  it(`takes effect within the deployed pipeline's TTL (API_KEY_CACHE_TTL_SECONDS, ${config.apiKeyCacheTtlMs / 1000} s; clock moved forward)`, async () => {
    const { api_key, key_id } = await newKey();
    const api = apiClient(server.baseUrl, api_key);
    const call = async () => {
      const r = await api('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
      return [r.status, r.body];
    };
    expect(await call()).toEqual(notFound);
    await revokeKey(stores.owners, key_id);

    // Only Date is faked: the cache's expiry reads Date.now(), everything else runs for real.
    fakeDateOnly();
    const revokedAt = Date.now();
    expect(await call()).toEqual(notFound);
    jest.setSystemTime(revokedAt + config.apiKeyCacheTtlMs - 1_000);
    expect(await call()).toEqual(notFound);
    jest.setSystemTime(revokedAt + config.apiKeyCacheTtlMs + 1);
    expect(await call()).toEqual(unauthorized);
  });

  it("a key revoked before its first use is refused at once, while the owner's other keys keep working (rotation)", async () => {
    const [old, next] = [await newKey(), await newKey()];
    await revokeKey(stores.owners, old.key_id);
    const response = await apiClient(server.baseUrl, old.api_key)('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
    expect([response.status, response.body]).toEqual(unauthorized);
    const rotated = await apiClient(server.baseUrl, next.api_key)('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
    expect([rotated.status, rotated.body]).toEqual(notFound);
  });
});

describe('a key that is not exactly a valid key is refused', () => {
  it('prefixes, suffixes, extensions, shifted and altered variants of a valid key: 401, and nothing is created', async () => {
    const { api_key: key } = await newKey();
    const secret = key.slice(4);
    const flip = (c: string) => (c === 'A' ? 'B' : 'A');
    const variants = [
      ...[1, 4, 10, 20, 30, 40, 46].map((n) => key.slice(0, n)), // prefixes
      ...[1, 4, 10, 20, 30, 46].map((n) => key.slice(n)), // suffixes
      secret, // the key without its prefix
      `${key}A`,
      `${key}${key}`,
      `A${key}`, // extensions
      `wlk_${secret.slice(1)}A`,
      `wlk_A${secret.slice(0, -1)}`, // the same length, shifted: well-formed, so looked up
      `wlk_${secret.slice(0, -1)}${flip(secret.at(-1)!)}`, // last character changed
      `wlk_${flip(secret[0]!)}${secret.slice(1)}`, // first character changed
      key.toUpperCase(),
      key.toLowerCase(),
      `WLK_${secret}`, // case
      `Bearer ${key}`,
      `${key.slice(0, 20)} ${key.slice(20)}`, // schemes, inner space
      sha256(key),
      `wlk_${sha256(key)}`, // the digest itself
    ].filter((variant) => variant !== key);

    const email = uniqueEmail('never-created');
    for (const variant of variants) {
      const response = await apiClient(server.baseUrl, variant)('/v1/createUser', { user_email: email });
      expect([variant, response.status, response.body]).toEqual([variant, ...unauthorized]);
    }
    expect(await collection(owner.ownerId, email)).toEqual([]);
    // HTTP strips a header value's outer whitespace; behind API Gateway the handler sees it as sent.
    const auth = apiKeyAuth({ owners: stores.owners, ttlMs: 1_000, operation: 'createUser' });
    for (const padded of [`${key} `, ` ${key}`, `${key}\n`, `\t${key}`])
      expect(await authenticateWith(auth, padded)).toBe(`401 ${MESSAGES.unauthorized}`);
    // The key itself works, under any spelling of the header name.
    const ok = await apiClient(server.baseUrl, '')(
      '/v1/deleteUser',
      { user_email: email },
      { apiKey: null, headers: { 'X-API-KEY': key } },
    );
    expect([ok.status, ok.body]).toEqual(notFound);
  });
});

describe('keys are compared by digest', () => {
  it('the key never reaches DynamoDB: issue, lookup and revocation go by its SHA-256 digest', async () => {
    const observer = observeRequests(client);
    let issued: Awaited<ReturnType<typeof newKey>>;
    try {
      issued = await newKey();
      const response = await apiClient(server.baseUrl, issued.api_key)('/v1/deleteUser', { user_email: uniqueEmail('nobody') });
      expect([response.status, response.body]).toEqual(notFound);
      await revokeKey(stores.owners, issued.key_id);
    } finally {
      observer.remove();
    }
    const secret = issued.api_key.slice(4);
    for (const body of observer.bodies) expect(body).not.toContain(secret);
    const lookups = observer.bodies.map((body) => JSON.parse(body)).filter((body) => body.TableName === config.ownersTableName && body.Key);
    expect(lookups.map((body) => body.Key.pk.S)).toContain(`KEY#${sha256(issued.api_key)}`);
  });

  it('nothing stored for the owner holds a key: only digests', async () => {
    // An owner of its own, so that what is stored for it is known exactly: the owner and its two keys.
    const fresh = await ownerWithId('keys-stored');
    const { api_key } = await issueKey(stores.owners, fresh.ownerEmail);
    const Items = await scanAll(client, {
      TableName: config.ownersTableName,
      FilterExpression: 'owner_email = :e',
      ExpressionAttributeValues: { ':e': fresh.ownerEmail },
    });
    expect(Items.map((item) => item.pk).sort()).toEqual(
      [`KEY#${sha256(fresh.apiKey)}`, `KEY#${sha256(api_key)}`, `OWNER#${fresh.ownerEmail}`].sort(),
    );
    const stored = JSON.stringify(Items);
    for (const key of [fresh.apiKey, api_key]) expect(stored).not.toContain(key.slice(4));
  });
});
