/**
 * Idempotency-Key under concurrency, faults and time, over loopback against the local server, with
 * the records read straight from the idempotency table: one operation per key however many
 * duplicates race, no record of a 500, expired records treated as absent, no secret in a record,
 * and the DynamoDB calls each case costs.
 */

import { randomUUID } from 'node:crypto';
import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { isWellFormedIdempotencyKey, keySecrets, RECORD_LIFETIME_SECONDS } from '#domain/idempotency';
import { processStores } from '#store/stores';
import { idempotencyRecordKey } from '#store/table-layout';
import { handler as createUserHandler } from '../../functions/createUser/handler';
import { handler as deleteUserHandler } from '../../functions/deleteUser/handler';
import { lambdaContext, proxyEvent } from '../../local/lambda-runtime';
import { countCalls, holdRequests, injectFault } from '../support/faults';
import { type ApiResponse, apiClient } from '../support/http-client';
import { newOwner, startLocalServer, uniqueEmail } from '../support/local';
import { collection, ownerWithId, storedPasswordIs, type TestOwner } from './support/world';

const { config, stores } = processStores();
const { client } = stores;

let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: TestOwner;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('idempotency');
  api = apiClient(server.baseUrl, owner.apiKey);
  // Warm the API-key cache, so call counts below are the operations' own.
  await api('/v1/deleteUser', { user_email: uniqueEmail('warm-up') });
});
afterAll(async () => server.close());

const keyed = (path: string, body: unknown, key: string) => api(path, body, { headers: { 'Idempotency-Key': key } });
const replayed = (response: ApiResponse) => response.headers.get('idempotent-replayed') === 'true';

/** The stored record of a key, as DynamoDB holds it. */
async function recordOf(key: string, ownerId = owner.ownerId): Promise<Record<string, unknown> | undefined> {
  const { Item } = await client.send(
    new GetCommand({
      TableName: config.idempotencyTableName,
      Key: idempotencyRecordKey(ownerId, keySecrets(ownerId, key).keyDigest),
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('concurrent duplicates', () => {
  it('50 identical creates with one key at once: one user, one password, every answer its 200 or 409 in progress', async () => {
    const key = randomUUID();
    const email = uniqueEmail('race-key');
    const responses = await Promise.all(Array.from({ length: 50 }, () => keyed('/v1/createUser', { user_email: email }, key)));

    const ok = responses.filter((r) => r.status === 200);
    const busy = responses.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(50);
    // How the race lands decides how many are 409 (none, some runs): the next test forces the 409 every run.
    for (const response of busy) expect(response.body).toEqual({ message: MESSAGES.idempotencyInProgress });
    // The operation ran once: one response is the original, every other 200 replays its bytes.
    expect(ok.filter((r) => !replayed(r))).toHaveLength(1);
    expect(new Set(ok.map((r) => r.text)).size).toBe(1);
    const { user_password } = ok[0]!.body as { user_password: string };
    expect(await collection(owner.ownerId, email)).toHaveLength(1);
    expect(await storedPasswordIs(owner.ownerId, email, user_password)).toBe(true);

    // Once the first has finished, every retry gets the recorded answer.
    const late = await keyed('/v1/createUser', { user_email: email }, key);
    expect([late.status, late.text, replayed(late)]).toEqual([200, ok[0]!.text, true]);
  }, 30_000);

  it('while the first request is still running: 409 for the same request, 422 for another; then the recorded answer', async () => {
    const key = randomUUID();
    const email = uniqueEmail('in-flight');
    const hold = holdRequests(client, { operation: 'PutItem', table: config.usersTableName });
    try {
      const first = keyed('/v1/createUser', { user_email: email }, key);
      await hold.arrived;
      const duplicate = await keyed('/v1/createUser', { user_email: email }, key);
      expect([duplicate.status, duplicate.body]).toEqual([409, { message: MESSAGES.idempotencyInProgress }]);
      const other = await keyed('/v1/createUser', { user_email: uniqueEmail('in-flight-other') }, key);
      expect([other.status, other.body]).toEqual([422, { message: MESSAGES.idempotencyKeyReused }]);
      hold.release();
      const done = await first;
      expect(done.status).toBe(200);
      const after = await keyed('/v1/createUser', { user_email: email }, key);
      expect([after.status, after.text, replayed(after)]).toEqual([200, done.text, true]);
    } finally {
      hold.release();
      hold.remove();
    }
  });
});

describe('a 500 is never recorded', () => {
  it('createUser: a storage fault answers 500, leaves no record, and the retry with the key creates the user', async () => {
    const key = randomUUID();
    const email = uniqueEmail('fault-create');
    const fault = injectFault(client, { operation: 'PutItem', table: config.usersTableName, kind: 'rejected', times: 1 });
    let failed: ApiResponse;
    try {
      failed = await keyed('/v1/createUser', { user_email: email }, key);
    } finally {
      fault.remove();
    }
    expect([failed.status, failed.body]).toEqual([500, { message: MESSAGES.createFailed }]);
    expect(fault.injected).toBe(1);
    expect(await recordOf(key)).toBeUndefined();

    const retry = await keyed('/v1/createUser', { user_email: email }, key);
    expect([retry.status, replayed(retry)]).toEqual([200, false]);
    expect(await storedPasswordIs(owner.ownerId, email, (retry.body as { user_password: string }).user_password)).toBe(true);
    expect((await recordOf(key))?.state).toBe('completed');
  });

  it('deleteUser: a fault in the middle answers 500, leaves no record, and the retry deletes the user', async () => {
    const key = randomUUID();
    const email = uniqueEmail('fault-delete');
    expect((await api('/v1/createUser', { user_email: email })).status).toBe(200);
    const fault = injectFault(client, { operation: 'DeleteItem', table: config.usersTableName, kind: 'rejected', times: 1 });
    let failed: ApiResponse;
    try {
      failed = await keyed('/v1/deleteUser', { user_email: email }, key);
    } finally {
      fault.remove();
    }
    expect([failed.status, failed.body]).toEqual([500, { message: MESSAGES.deleteFailed }]);
    expect(await recordOf(key)).toBeUndefined();
    const retry = await keyed('/v1/deleteUser', { user_email: email }, key);
    expect([retry.status, retry.body, replayed(retry)]).toEqual([200, { message: MESSAGES.userDeleted }, false]);
    expect(await collection(owner.ownerId, email)).toEqual([]);
  });

  it('a failure to claim the key is the operation 500, and nothing ran', async () => {
    const key = randomUUID();
    const email = uniqueEmail('fault-claim');
    const fault = injectFault(client, { operation: 'PutItem', table: config.idempotencyTableName, kind: 'rejected', times: 1 });
    let failed: ApiResponse;
    try {
      failed = await keyed('/v1/createUser', { user_email: email }, key);
    } finally {
      fault.remove();
    }
    expect([failed.status, failed.body]).toEqual([500, { message: MESSAGES.createFailed }]);
    expect(await collection(owner.ownerId, email)).toEqual([]);
    expect((await keyed('/v1/createUser', { user_email: email }, key)).status).toBe(200);
  });

  it('a failure to record the response still returns the operation answer; the claim then waits out its deadline', async () => {
    const key = randomUUID();
    const email = uniqueEmail('fault-record');
    const fault = injectFault(client, { operation: 'UpdateItem', table: config.idempotencyTableName, kind: 'rejected', times: 1 });
    let created: ApiResponse;
    try {
      created = await keyed('/v1/createUser', { user_email: email }, key);
    } finally {
      fault.remove();
    }
    expect(created.status).toBe(200);
    expect(await storedPasswordIs(owner.ownerId, email, (created.body as { user_password: string }).user_password)).toBe(true);
    const record = await recordOf(key);
    expect(record?.state).toBe('in_progress');
    expect(record?.in_progress_until as number).toBeLessThanOrEqual(Date.now() + 10_000);
  });
});

describe('expiry (DynamoDB Local never deletes expired items: the service must treat them as absent)', () => {
  const expire = (key: string, attribute: 'expires_at' | 'in_progress_until', value: number) =>
    client.send(
      new UpdateCommand({
        TableName: config.idempotencyTableName,
        Key: idempotencyRecordKey(owner.ownerId, keySecrets(owner.ownerId, key).keyDigest),
        UpdateExpression: 'SET #attribute = :value',
        ExpressionAttributeNames: { '#attribute': attribute },
        ExpressionAttributeValues: { ':value': value },
      }),
    );

  it('a record is kept for 24 hours; past that, the key is free again', async () => {
    const key = randomUUID();
    const before = Math.floor(Date.now() / 1000);
    expect((await keyed('/v1/createUser', { user_email: uniqueEmail('expiry-a') }, key)).status).toBe(200);
    const expiresAt = (await recordOf(key))?.expires_at as number;
    expect(expiresAt - before).toBeGreaterThanOrEqual(RECORD_LIFETIME_SECONDS);
    expect(expiresAt - before).toBeLessThanOrEqual(RECORD_LIFETIME_SECONDS + 5);

    await expire(key, 'expires_at', before - 1);
    const email = uniqueEmail('expiry-b');
    const fresh = await keyed('/v1/createUser', { user_email: email }, key);
    expect([fresh.status, replayed(fresh)]).toEqual([200, false]);
    // The key now holds the new request's record.
    expect((await keyed('/v1/createUser', { user_email: email }, key)).text).toBe(fresh.text);
  });

  it('a claim whose function died is taken over once its deadline (the function timeout) has passed', async () => {
    const key = randomUUID();
    const body = { user_email: uniqueEmail('abandoned') };
    const secrets = keySecrets(owner.ownerId, key);
    const claim = {
      ownerId: owner.ownerId,
      keyDigest: secrets.keyDigest,
      fingerprint: secrets.fingerprint('createUser', body),
      claimId: randomUUID(),
      inProgressUntil: Date.now() + 60_000,
      expiresAt: Math.floor(Date.now() / 1000) + RECORD_LIFETIME_SECONDS,
    };
    expect(await stores.idempotency.claimIdempotencyKey(claim, new Date())).toEqual({ claimed: true });
    const busy = await keyed('/v1/createUser', body, key);
    expect([busy.status, busy.body]).toEqual([409, { message: MESSAGES.idempotencyInProgress }]);

    await expire(key, 'in_progress_until', Date.now() - 1);
    const taken = await keyed('/v1/createUser', body, key);
    expect([taken.status, replayed(taken)]).toEqual([200, false]);
  });
});

describe('what a record holds', () => {
  it('no password, hash, e-mail, API key or Idempotency-Key in clear; only the sealed body, a digest and an HMAC', async () => {
    const given = 'a given secret password';
    const cases = [
      { path: '/v1/createUser', body: { user_email: uniqueEmail('stored-given'), user_password: given } },
      { path: '/v1/createUser', body: { user_email: uniqueEmail('stored-generated') } },
    ];
    const keys = cases.map(() => randomUUID());
    const secrets: string[] = [given, owner.apiKey, ...keys];
    for (const [i, { path, body }] of cases.entries()) {
      const response = await keyed(path, body, keys[i]!);
      expect(response.status).toBe(200);
      secrets.push(body.user_email, (response.body as { user_password: string }).user_password);
    }
    const reset = { user_email: cases[0]!.body.user_email, new_password: 'the reset secret password' };
    const resetKey = randomUUID();
    expect((await keyed('/v1/resetUserPassword', reset, resetKey)).status).toBe(200);
    secrets.push(reset.new_password, resetKey);

    const { Items = [] } = await client.send(new ScanCommand({ TableName: config.idempotencyTableName, ConsistentRead: true }));
    const mine = Items.filter((item) => (item.pk as string).startsWith(`${owner.ownerId}#`));
    const records = await Promise.all([...keys, resetKey].map((key) => recordOf(key)));
    for (const record of records) {
      expect(Object.keys(record!).sort()).toEqual(['claim_id', 'expires_at', 'fingerprint', 'pk', 'sealed_body', 'state', 'status_code']);
      expect(mine).toContainEqual(record);
    }
    // Every way the stored bytes could be read as text.
    const texts = mine.flatMap((item) =>
      Object.values(item).flatMap((value) =>
        value instanceof Uint8Array
          ? [Buffer.from(value).toString('utf8'), Buffer.from(value).toString('latin1'), Buffer.from(value).toString('base64')]
          : [String(value)],
      ),
    );
    const hashes = (await collection(owner.ownerId, cases[0]!.body.user_email)).map((item) => item.password_hash as string);
    for (const secret of [...secrets, ...hashes, '$argon2']) {
      for (const text of texts) expect(text).not.toContain(secret);
    }
  });

  it('a record opens only with its key and its owner: another key, or the same key as another owner, cannot read it', async () => {
    const key = randomUUID();
    const body = { user_email: uniqueEmail('sealed') };
    const response = await keyed('/v1/createUser', body, key);
    const record = await recordOf(key);
    const sealed = record!.sealed_body as Uint8Array;
    const fingerprint = record!.fingerprint as string;
    expect(keySecrets(owner.ownerId, key).open(sealed, fingerprint)).toBe(response.text);
    expect(() => keySecrets(owner.ownerId, randomUUID()).open(sealed, fingerprint)).toThrow();
    expect(() => keySecrets(randomUUID(), key).open(sealed, fingerprint)).toThrow();
    expect(keySecrets(randomUUID(), key).fingerprint('createUser', body)).not.toBe(fingerprint);
  });
});

describe('hostile Idempotency-Key values (property-based, handler called as Lambda would)', () => {
  /**
   * Sends each drawn value as the key of a delete of an absent user. Keys are scoped to their owner,
   * so a well-formed key is sent by an owner of its own: the (owner, key) pair cannot repeat within
   * a run, even when fast-check draws the same key twice or replays it while shrinking (once the
   * second use of one owner's key with another body, 422). The key itself is sent exactly as drawn.
   * On failure fast-check's message carries the seed and path that replay the run.
   */
  const property = (value: fc.Arbitrary<string>) =>
    fc.asyncProperty(value, async (key) => {
      const wellFormed = isWellFormedIdempotencyKey(key);
      const caller = wellFormed ? await newOwner('hostile-key') : owner;
      const event = proxyEvent({
        path: '/v1/deleteUser',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': caller.apiKey, 'Idempotency-Key': key },
        body: JSON.stringify({ user_email: uniqueEmail('hostile-key') }),
      });
      const response = await deleteUserHandler(event, lambdaContext('deleteUser'));
      const expected = wellFormed ? [404, { message: MESSAGES.userNotFound }] : [400, { message: MESSAGES.idempotencyKeyInvalid }];
      expect([response.statusCode, JSON.parse(response.body)]).toEqual(expected);
    });

  it('any value: 400 with the contract message when malformed, else the operation answers; never a 500', async () => {
    const anyChar = fc.oneof(
      fc.constantFrom(' ', '\t', '\u007f', '\u0000', 'é', '\u2028', '😀', '"', '\\'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
    );
    const value = fc.oneof(
      fc.string({ unit: anyChar, maxLength: 300 }),
      fc.string({ unit: 'grapheme-ascii', minLength: 14, maxLength: 18 }),
      fc.string({ unit: 'grapheme-ascii', minLength: 253, maxLength: 257 }),
    );
    await fc.assert(property(value), { numRuns: 150 });
  }, 90_000);

  it('the same well-formed key drawn again within a run is still its first use (the flake of a repeated draw)', async () => {
    await fc.assert(property(fc.constant('the same drawn key, again')), { numRuns: 3 });
  }, 30_000);
});

describe('two Idempotency-Key headers', () => {
  it('are refused with 400 rather than one of them picked', async () => {
    const event = proxyEvent({
      path: '/v1/createUser',
      headers: [
        ['Content-Type', 'application/json'],
        ['X-API-Key', owner.apiKey],
        ['Idempotency-Key', randomUUID()],
        ['Idempotency-Key', randomUUID()],
      ],
      body: JSON.stringify({ user_email: uniqueEmail('two-keys') }),
    });
    const response = await createUserHandler(event, lambdaContext('createUser'));
    expect([response.statusCode, JSON.parse(response.body)]).toEqual([400, { message: MESSAGES.idempotencyKeyInvalid }]);
  });
});

describe('DynamoDB calls per case (warm API-key cache)', () => {
  /**
   * Calls made while `fn` runs, by DynamoDB operation. The hourly write of the API key's last use
   * (an UpdateItem on the owners table, not awaited by any request) is left out: it belongs to
   * whichever request first uses the key in an hour, which here is the warm-up.
   */
  const keyUse = (operation: string, table: string | undefined) => operation === 'UpdateItem' && table === config.ownersTableName;
  async function callsOf(fn: () => Promise<unknown>): Promise<Record<string, number>> {
    const counter = countCalls(client, keyUse);
    try {
      await fn();
    } finally {
      counter.remove();
    }
    return Object.fromEntries([...counter.counts].sort(([a], [b]) => a.localeCompare(b)));
  }
  // The cache lives API_KEY_CACHE_TTL_SECONDS: warm it again right before each case, however long
  // the cases above took on a loaded machine.
  beforeEach(async () => {
    await api('/v1/deleteUser', { user_email: uniqueEmail('warm-again') });
  });

  it("without the header: exactly as before (create 1 PutItem, reset 1 UpdateItem, delete 1 Query + 1 DeleteItem, and the Query of the user's sign-in partition)", async () => {
    const email = uniqueEmail('calls-plain');
    expect(await callsOf(() => api('/v1/createUser', { user_email: email }))).toEqual({ PutItem: 1 });
    expect(await callsOf(() => api('/v1/resetUserPassword', { user_email: email, new_password: 'another one' }))).toEqual({
      UpdateItem: 1,
    });
    expect(await callsOf(() => api('/v1/deleteUser', { user_email: email }))).toEqual({ DeleteItem: 1, Query: 2 });
  });

  it('with the header: first use adds a claim and a record write; a replay, a 409 or a 422 is the one claim and nothing else', async () => {
    const email = uniqueEmail('calls-keyed');
    const [create, reset, remove] = [randomUUID(), randomUUID(), randomUUID()];
    const bodies = {
      create: { user_email: email },
      reset: { user_email: email, new_password: 'another one' },
      remove: { user_email: email },
    };
    expect(await callsOf(() => keyed('/v1/createUser', bodies.create, create))).toEqual({ PutItem: 2, UpdateItem: 1 });
    expect(await callsOf(() => keyed('/v1/resetUserPassword', bodies.reset, reset))).toEqual({ PutItem: 1, UpdateItem: 2 });
    expect(await callsOf(() => keyed('/v1/deleteUser', bodies.remove, remove))).toEqual({
      DeleteItem: 1,
      PutItem: 1,
      Query: 2,
      UpdateItem: 1,
    });
    expect(await callsOf(() => keyed('/v1/createUser', bodies.create, create))).toEqual({ PutItem: 1 });
    expect(await callsOf(() => keyed('/v1/resetUserPassword', bodies.reset, reset))).toEqual({ PutItem: 1 });
    expect(await callsOf(() => keyed('/v1/deleteUser', bodies.remove, remove))).toEqual({ PutItem: 1 });
    expect(await callsOf(() => keyed('/v1/deleteUser', bodies.remove, create))).toEqual({ PutItem: 1 });

    const hold = holdRequests(client, { operation: 'PutItem', table: config.usersTableName });
    const busyKey = randomUUID();
    const busyBody = { user_email: uniqueEmail('calls-busy') };
    try {
      const first = keyed('/v1/createUser', busyBody, busyKey);
      await hold.arrived;
      expect(await callsOf(() => keyed('/v1/createUser', busyBody, busyKey))).toEqual({ PutItem: 1 });
      hold.release();
      await first;
    } finally {
      hold.release();
      hold.remove();
    }
  });

  it('with the header, after a 500: the claim, the failed call, and the claim dropped', async () => {
    // The counter goes on first, so it also sees the attempt the fault then answers.
    const counter = countCalls(client, keyUse);
    const fault = injectFault(client, { operation: 'PutItem', table: config.usersTableName, kind: 'rejected', times: 1 });
    try {
      const response = await keyed('/v1/createUser', { user_email: uniqueEmail('calls-500') }, randomUUID());
      expect([response.status, response.body]).toEqual([500, { message: MESSAGES.createFailed }]);
    } finally {
      fault.remove();
      counter.remove();
    }
    expect(Object.fromEntries(counter.counts)).toEqual({ PutItem: 2, DeleteItem: 1 });
  });
});
