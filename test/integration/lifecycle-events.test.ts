/**
 * Lifecycle events over real HTTP: the local server answers, DynamoDB Local's own stream carries the
 * change, and the delivery `npm start` runs (local/event-delivery.ts, the same event-building code
 * as the deployed consumer) writes one JSON line per event. An event appears exactly once for each
 * write that happened, and never for one that did not. Tests wait on the event itself (a timeout
 * is a failure, not a target: how fast events arrive is measured, not asserted, on a shared machine).
 */

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LifecycleEvent } from '#contract/lifecycle-events';
import { passwordOutOfPolicy } from '#contract/messages';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { LOCAL_TABLES } from '#store/local-engine';
import { processStores } from '#store/stores';
import { userPk } from '#store/table-layout';
import { seedAssociatedData } from '../hardening/support/world';
import { injectFault } from '../support/faults';
import { apiClient } from '../support/http-client';
import { startTestDelivery } from '../support/lifecycle-events';
import { startLocalServer, uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { runScript } from '../support/processes';

const { config, stores } = processStores();

/** How long a test waits for an event before it fails: a guard against a hang, not a speed target. */
const EVENT_WAIT_MS = 30_000;
const DETAIL_KEYS = ['occurred_at', 'owner_id', 'user_email', 'white_label'];

let server: Awaited<ReturnType<typeof startLocalServer>>;
let delivery: Awaited<ReturnType<typeof startTestDelivery>>;
let owner: { ownerId: string; ownerEmail: string; apiKey: string };
let api: ReturnType<typeof apiClient>;
const latencies: number[] = [];
const passwords = new Set<string>();

// Starting the delivery skips the stream's history, which the whole suite's writes make long.
beforeAll(async () => {
  delivery = await startTestDelivery();
  server = await startLocalServer();
  // The owner comes from the admin CLI, as operators create them.
  const created = await runScript('admin/cli.ts', ['create-owner', uniqueEmail('events-owner')], {
    ...process.env,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  expect(created.code).toBe(0);
  const issued = JSON.parse(created.stdout) as { owner_email: string; api_key: string };
  const record = await stores.owners.findOwner(issued.owner_email);
  owner = { ownerId: record!.ownerId, ownerEmail: issued.owner_email, apiKey: issued.api_key };
  api = apiClient(server.baseUrl, owner.apiKey);
}, 60_000);

afterAll(async () => {
  await server.close();
  await delivery.stop();
  if (process.env.EVENTS_REPORT && latencies.length > 0) {
    const sorted = [...latencies].sort((x, y) => x - y);
    console.log(
      `event latency over ${sorted.length} writes: p50 ${Math.round(sorted[Math.floor(sorted.length / 2)]!)} ms, max ${Math.round(sorted.at(-1)!)} ms`,
    );
  }
});

const ofOwner = () => delivery.events().filter((event) => event.detail.owner_id === owner.ownerId);
const about = (email: string) => ofOwner().filter((event) => event.detail.user_email === email);

/** Waits for the n-th event about this user, timing it from `since`: when the answer came, just after its write. */
async function nthEventAbout(email: string, n: number, since: number): Promise<LifecycleEvent> {
  const { value } = await waitFor(() => about(email)[n - 1], EVENT_WAIT_MS, `event ${n} about ${email}`);
  latencies.push(performance.now() - since);
  return value;
}

/** A create whose event proves the delivery has read the stream past everything before it. */
async function drain(): Promise<void> {
  const marker = uniqueEmail('marker');
  expect((await api('/v1/createUser', { user_email: marker, user_password: 'marker password' })).status).toBe(200);
  await nthEventAbout(marker, 1, performance.now());
}

describe('one event per write, with exactly the contract fields', () => {
  it('the admin CLI’s owner account: UserCreated, white_label true', async () => {
    const { value } = await waitFor(() => about(owner.ownerEmail)[0], EVENT_WAIT_MS, 'the owner’s UserCreated');
    expect(value).toEqual({
      'detail-type': 'UserCreated',
      source: 'user-management',
      detail: {
        owner_id: owner.ownerId,
        user_email: owner.ownerEmail,
        white_label: true,
        occurred_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        should_reset_password: false,
      },
    });
  });

  it('create, reset, delete: UserCreated, UserPasswordReset, UserDeleted, each once', async () => {
    const email = uniqueEmail('life');
    const password = 'first password of jane';
    passwords.add(password);
    let sent = performance.now();
    const created = await api('/v1/createUser', {
      user_email: `  ${email.toUpperCase()} `,
      user_password: password,
      should_reset_password: 'true',
    });
    expect(created.status).toBe(200);
    const createdEvent = await nthEventAbout(email, 1, sent);
    expect(createdEvent).toEqual({
      'detail-type': 'UserCreated',
      source: 'user-management',
      detail: {
        owner_id: owner.ownerId,
        user_email: email,
        white_label: false,
        occurred_at: expect.any(String),
        should_reset_password: true,
      },
    });
    expect(Object.keys(createdEvent.detail).sort()).toEqual([...DETAIL_KEYS, 'should_reset_password'].sort());

    passwords.add('second password of jane');
    expect((await api('/v1/resetUserPassword', { user_email: email, new_password: 'second password of jane' })).status).toBe(200);
    sent = performance.now();
    const reset = await nthEventAbout(email, 2, sent);
    expect(reset['detail-type']).toBe('UserPasswordReset');
    expect(reset.source).toBe('user-management');
    expect(Object.keys(reset.detail).sort()).toEqual(DETAIL_KEYS);
    expect(reset.detail).toMatchObject({ owner_id: owner.ownerId, user_email: email, white_label: false });

    expect((await api('/v1/deleteUser', { user_email: email })).status).toBe(200);
    sent = performance.now();
    const deleted = await nthEventAbout(email, 3, sent);
    expect(deleted['detail-type']).toBe('UserDeleted');
    expect(Object.keys(deleted.detail).sort()).toEqual(DETAIL_KEYS);
    expect(deleted.detail).toMatchObject({ owner_id: owner.ownerId, user_email: email, white_label: false });
    expect(Date.parse(createdEvent.detail.occurred_at)).toBeLessThanOrEqual(Date.parse(reset.detail.occurred_at));
    expect(Date.parse(reset.detail.occurred_at)).toBeLessThanOrEqual(Date.parse(deleted.detail.occurred_at));

    await drain();
    expect(about(email).map((event) => event['detail-type'])).toEqual(['UserCreated', 'UserPasswordReset', 'UserDeleted']);
  });

  it('a delete with 2,500 associated items emits one UserDeleted and records one deletion', async () => {
    const email = uniqueEmail('big');
    expect((await api('/v1/createUser', { user_email: email, user_password: 'a big collection' })).status).toBe(200);
    await nthEventAbout(email, 1, performance.now());
    await seedAssociatedData(owner.ownerId, email, 2_500);
    expect((await api('/v1/deleteUser', { user_email: email })).status).toBe(200);
    await nthEventAbout(email, 2, performance.now());
    await drain();
    expect(about(email).map((event) => event['detail-type'])).toEqual(['UserCreated', 'UserDeleted']);

    const { Items = [] } = await stores.client.send(
      new QueryCommand({
        TableName: LOCAL_TABLES.deletionsTableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': userPk(owner.ownerId, email) },
        ConsistentRead: true,
      }),
    );
    expect(Items).toHaveLength(1);
    expect(Items[0]).toMatchObject({ owner_id: owner.ownerId, user_email: email, deleted_at: about(email)[1]!.detail.occurred_at });
    // Kept exactly one recovery window (35 days in this test's delivery), then expired by TTL.
    expect(Items[0]!.expires_at).toBe(Math.ceil(Date.parse(Items[0]!.deleted_at as string) / 1000) + 35 * 86_400);
  }, 60_000);
});

describe('no write, no event', () => {
  it('refusals (400, 401, 403, 404, 409) emit nothing', async () => {
    const email = uniqueEmail('exists');
    expect((await api('/v1/createUser', { user_email: email, user_password: 'already here' })).status).toBe(200);
    await nthEventAbout(email, 1, performance.now());
    const before = ofOwner().length;

    const refused = [
      await api('/v1/createUser', { user_email: email, user_password: 'already here' }),
      await api('/v1/createUser', { user_email: owner.ownerEmail }),
      await api('/v1/createUser', { user_email: 'not an e-mail' }),
      await api('/v1/createUser', { user_email: uniqueEmail('short'), user_password: 'short' }),
      await api('/v1/resetUserPassword', { user_email: owner.ownerEmail, new_password: 'a new password' }),
      await api('/v1/resetUserPassword', { user_email: uniqueEmail('ghost'), new_password: 'a new password' }),
      await api('/v1/deleteUser', { user_email: owner.ownerEmail }),
      await api('/v1/deleteUser', { user_email: uniqueEmail('ghost') }),
      await api('/v1/deleteUser', { user_email: email }, { apiKey: 'wlk_not-a-key' }),
    ];
    expect(refused.map((response) => [response.status, response.body])).toEqual([
      [409, { message: MESSAGES.userExists }],
      [409, { message: MESSAGES.userExists }],
      [400, { message: MESSAGES.userEmailInvalid }],
      [400, { message: passwordOutOfPolicy('user_password', config.passwordPolicy) }],
      [403, { message: MESSAGES.resetWhiteLabel }],
      [404, { message: MESSAGES.userNotFound }],
      [403, { message: MESSAGES.deleteWhiteLabel }],
      [404, { message: MESSAGES.userNotFound }],
      [401, { message: MESSAGES.unauthorized }],
    ]);

    await drain();
    // Only the marker's UserCreated arrived after the refusals.
    expect(
      ofOwner()
        .slice(before)
        .map((event) => event['detail-type']),
    ).toEqual(['UserCreated']);
    expect(about(email)).toHaveLength(1);
  });

  it('a storage fault emits nothing; a write whose answer was lost emits once', async () => {
    const failed = uniqueEmail('fault');
    const fault = injectFault(stores.client, { operation: 'PutItem', kind: 'internal', table: LOCAL_TABLES.usersTableName });
    const refused = await api('/v1/createUser', { user_email: failed, user_password: 'never stored' }).finally(fault.remove);
    expect([refused.status, refused.body]).toEqual([500, { message: MESSAGES.createFailed }]);
    expect(fault.injected).toBe(3);

    const lost = uniqueEmail('lost');
    const lostFault = injectFault(stores.client, {
      operation: 'PutItem',
      kind: 'lost-response',
      table: LOCAL_TABLES.usersTableName,
      times: 1,
    });
    const answered = await api('/v1/createUser', { user_email: lost, user_password: 'stored on the first try' }).finally(lostFault.remove);
    expect(answered.status).toBe(200);
    await nthEventAbout(lost, 1, performance.now());

    const resetFault = injectFault(stores.client, { operation: 'UpdateItem', kind: 'internal' });
    const resetRefused = await api('/v1/resetUserPassword', { user_email: lost, new_password: 'never applied' }).finally(resetFault.remove);
    expect([resetRefused.status, resetRefused.body]).toEqual([500, { message: MESSAGES.resetFailed }]);
    const deleteFault = injectFault(stores.client, { operation: 'DeleteItem', kind: 'internal' });
    const deleteRefused = await api('/v1/deleteUser', { user_email: lost }).finally(deleteFault.remove);
    expect([deleteRefused.status, deleteRefused.body]).toEqual([500, { message: MESSAGES.deleteFailed }]);

    await drain();
    expect(about(failed)).toEqual([]);
    expect(about(lost).map((event) => event['detail-type'])).toEqual(['UserCreated']);
  });
});

describe('what the events carry', () => {
  it('no event holds a password, a hash or a key', async () => {
    // Its own user, so it does not depend on what other tests wrote.
    const email = uniqueEmail('carry');
    const [first, second] = ['carried password one', 'carried password two'];
    passwords.add(first).add(second);
    let sent = performance.now();
    expect((await api('/v1/createUser', { user_email: email, user_password: first })).status).toBe(200);
    await nthEventAbout(email, 1, sent);
    sent = performance.now();
    expect((await api('/v1/resetUserPassword', { user_email: email, new_password: second })).status).toBe(200);
    await nthEventAbout(email, 2, sent);
    sent = performance.now();
    expect((await api('/v1/deleteUser', { user_email: email })).status).toBe(200);
    await nthEventAbout(email, 3, sent);
    expect(about(email).map((event) => event['detail-type'])).toEqual(['UserCreated', 'UserPasswordReset', 'UserDeleted']);

    const text = delivery
      .events()
      .map((event) => JSON.stringify(event))
      .join('\n');
    for (const password of passwords) expect(text).not.toContain(password);
    expect(text).not.toContain(owner.apiKey);
    expect(text).not.toMatch(/\$argon2|password_hash|wlk_|KEY#|api_key/);
    for (const event of ofOwner()) {
      const keys = Object.keys(event.detail).sort();
      expect(keys).toEqual(event['detail-type'] === 'UserCreated' ? [...DETAIL_KEYS, 'should_reset_password'].sort() : DETAIL_KEYS);
    }
  });
});
