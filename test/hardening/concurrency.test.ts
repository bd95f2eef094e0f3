/**
 * Concurrent requests on one user, over loopback against the local server: the
 * conditional writes must let exactly one create win, and no interleaving of
 * create, reset and delete may leave a half state behind.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
import { type ApiResponse, apiClient } from '../support/http-client';
import { startLocalServer, uniqueEmail } from '../support/local';
import { collection, ownerWithId, profileOf, seedAssociatedData, storedPasswordIs, type TestOwner } from './support/world';

let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: TestOwner;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('concurrency');
  api = apiClient(server.baseUrl, owner.apiKey);
});
afterAll(async () => server.close());

const statusCount = (responses: ApiResponse[]) =>
  responses.reduce<Record<number, number>>((counts, { status }) => {
    counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }, {});

describe('50 concurrent creates of one e-mail', () => {
  it('exactly one 200 and 49 409s, even with the address spelled 50 ways; the winner holds the user', async () => {
    const email = uniqueEmail('race');
    const spellings = Array.from({ length: 50 }, (_, i) => {
      const mixed = [...email].map((c, j) => ((i >> (j % 6)) & 1 ? c.toUpperCase() : c)).join('');
      return i % 3 === 0 ? ` ${mixed}\t` : mixed;
    });
    const responses = await Promise.all(
      spellings.map((user_email, i) => api('/v1/createUser', { user_email, user_password: `contender number ${i}` })),
    );

    expect(statusCount(responses)).toEqual({ 200: 1, 409: 49 });
    for (const response of responses.filter((r) => r.status === 409)) expect(response.body).toEqual({ message: MESSAGES.userExists });
    const winner = responses.find((r) => r.status === 200)!.body as { user_email: string; user_password: string };
    expect(winner.user_email).toBe(email);
    expect(await collection(owner.ownerId, email)).toHaveLength(1);
    expect(await storedPasswordIs(owner.ownerId, email, winner.user_password)).toBe(true);
  });
});

describe('concurrent reset and delete of one user never leave a half state', () => {
  const ROUNDS = 8;

  it(`reset x2 + delete, ${ROUNDS} users with 30 items each: every user is gone with its whole item collection`, async () => {
    const outcomes = await Promise.all(
      Array.from({ length: ROUNDS }, async (_, round) => {
        const email = uniqueEmail(`rd-${round}`);
        expect((await api('/v1/createUser', { user_email: email, user_password: 'before the race' })).status).toBe(200);
        await seedAssociatedData(owner.ownerId, email, 30);
        const [resetA, resetB, removed] = await Promise.all([
          api('/v1/resetUserPassword', { user_email: email, new_password: 'reset number one' }),
          api('/v1/resetUserPassword', { user_email: email, new_password: 'reset number two' }),
          api('/v1/deleteUser', { user_email: email }),
        ]);
        return { email, resetA, resetB, removed };
      }),
    );
    for (const { email, resetA, resetB, removed } of outcomes) {
      expect([removed.status, removed.body]).toEqual([200, { message: MESSAGES.userDeleted }]);
      for (const reset of [resetA, resetB]) {
        expect([
          [200, { message: MESSAGES.passwordReset }],
          [404, { message: MESSAGES.userNotFound }],
        ]).toContainEqual([reset.status, reset.body]);
      }
      expect(await collection(owner.ownerId, email)).toEqual([]);
    }
  });

  it(`create + reset + delete x2, ${ROUNDS} users with 30 items each: gone entirely, or back with a password someone set and no old data`, async () => {
    const outcomes = await Promise.all(
      Array.from({ length: ROUNDS }, async (_, round) => {
        const email = uniqueEmail(`crd-${round}`);
        expect((await api('/v1/createUser', { user_email: email, user_password: 'before the race' })).status).toBe(200);
        await seedAssociatedData(owner.ownerId, email, 30);
        const [created, reset, removedA, removedB] = await Promise.all([
          api('/v1/createUser', { user_email: email, user_password: 'created in the race' }),
          api('/v1/resetUserPassword', { user_email: email, new_password: 'reset in the race' }),
          api('/v1/deleteUser', { user_email: email }),
          api('/v1/deleteUser', { user_email: email }),
        ]);
        return { email, created, reset, removed: [removedA, removedB] };
      }),
    );
    for (const { email, created, reset, removed } of outcomes) {
      expect([200, 409]).toContain(created.status);
      expect([200, 404]).toContain(reset.status);
      for (const r of removed) expect([200, 404]).toContain(r.status);
      expect(removed.some((r) => r.status === 200)).toBe(true);

      const items = await collection(owner.ownerId, email);
      if (created.status === 409) {
        // The create ran while the user still existed, so the deletes that followed removed it all.
        expect(items).toEqual([]);
        continue;
      }
      // The create ran after a delete; a later delete may have removed it again.
      if (items.length === 0) continue;
      expect(items).toHaveLength(1);
      expect(profileOf(items)).toBeDefined();
      const candidates = ['created in the race', ...(reset.status === 200 ? ['reset in the race'] : [])];
      const matches = await Promise.all(candidates.map((password) => storedPasswordIs(owner.ownerId, email, password)));
      expect(matches).toContain(true);
    }
  });

  it("concurrent resets and deletes of the owner's own account are all refused (403) and leave it intact", async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2
          ? api('/v1/deleteUser', { user_email: owner.ownerEmail })
          : api('/v1/resetUserPassword', { user_email: owner.ownerEmail, new_password: 'take over the owner' }),
      ),
    );
    expect(statusCount(responses)).toEqual({ 403: 10 });
    const items = await collection(owner.ownerId, owner.ownerEmail);
    expect(items).toHaveLength(1);
    expect(profileOf(items)?.white_label).toBe(true);
    expect(await storedPasswordIs(owner.ownerId, owner.ownerEmail, 'take over the owner')).toBe(false);
  });
});
