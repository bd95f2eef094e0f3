/**
 * Concurrent requests on one user, over loopback against the local server: the
 * conditional writes must let exactly one create win, and no interleaving of
 * create, reset and delete may leave a half state behind.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES, POLICY_FIELDS, validBodyFor } from '#contract/operations';
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
      // Whichever way the race went, the user ends in one of the states the forced orderings below
      // reach each run: gone entirely, or back as one profile with a password someone set.
      expect([
        { created: 409, items: 0, passwordSetInRace: false },
        { created: 200, items: 0, passwordSetInRace: false },
        { created: 200, items: 1, passwordSetInRace: true },
      ]).toContainEqual(await endState(email, created.status));
    }
  });

  /** The user after a race: how many items remain, and whether the profile's password is one sent in it. */
  async function endState(email: string, created: number) {
    const items = await collection(owner.ownerId, email);
    const profile = profileOf(items);
    const setInRace = await Promise.all(
      ['created in the race', 'reset in the race'].map((password) => storedPasswordIs(owner.ownerId, email, password)),
    );
    return { created, items: items.length, passwordSetInRace: profile !== undefined && items.length === 1 && setInRace.includes(true) };
  }

  /** Each step is an operation, its body the module's documented one, with the password it sets in the race. */
  type Step = 'createUser' | 'resetUserPassword' | 'deleteUser';
  const SET_IN_RACE: Partial<Record<Step, string>> = { createUser: 'created in the race', resetUserPassword: 'reset in the race' };
  const body = (step: Step, email: string) => ({
    ...validBodyFor(step, email),
    ...Object.fromEntries(POLICY_FIELDS[step].map((field) => [field, SET_IN_RACE[step]])),
  });

  // Every branch of the race above, forced by sending the same four requests in one order.
  it.each([
    [
      'create first (409), then reset and the deletes: gone',
      ['createUser', 'resetUserPassword', 'deleteUser', 'deleteUser'],
      [409, 200, 200, 404],
      0,
      null,
    ],
    [
      'a delete, then the create, then the other delete: gone',
      ['deleteUser', 'createUser', 'deleteUser', 'resetUserPassword'],
      [200, 200, 200, 404],
      0,
      null,
    ],
    [
      'both deletes, then the create, then the reset: back with the reset password',
      ['deleteUser', 'deleteUser', 'createUser', 'resetUserPassword'],
      [200, 404, 200, 200],
      1,
      'reset in the race',
    ],
    [
      'both deletes and the reset, then the create: back with the created password',
      ['deleteUser', 'resetUserPassword', 'deleteUser', 'createUser'],
      [200, 404, 404, 200],
      1,
      'created in the race',
    ],
  ] as const)('%s', async (_, steps, statuses, items, password) => {
    const email = uniqueEmail('crd-forced');
    expect((await api('/v1/createUser', { user_email: email, user_password: 'before the race' })).status).toBe(200);
    await seedAssociatedData(owner.ownerId, email, 30);
    const answered: number[] = [];
    for (const step of steps) answered.push((await api(`/v1/${step}`, body(step, email))).status);
    expect(answered).toEqual(statuses);
    const left = await collection(owner.ownerId, email);
    expect(left.map((item) => item.sk)).toEqual(items === 0 ? [] : ['PROFILE']);
    expect(await storedPasswordIs(owner.ownerId, email, password ?? 'before the race')).toBe(password !== null);
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
