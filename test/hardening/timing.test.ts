/**
 * Whether a user exists must not show in how long the answer takes. Timing is
 * noisy, so this counts the argon2 work each request does instead: the argon2
 * binding is wrapped (module mock, registered before anything imports it) and
 * every hash and verify call is recorded with its parameters. The sign-in is
 * checked the same way with its costly lane saturated by a spray of fresh
 * e-mails (docs/adr/0034-lane-for-known-users.md): the same outcomes and store
 * operations for a migrated user and an unknown e-mail, and how often one takes
 * longer than the other printed.
 */

import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readPasswordSettings } from '#platform/config';

type Argon2 = typeof import('@node-rs/argon2');
const argon2 = jest.requireActual<Argon2>('@node-rs/argon2');
const work: { fn: 'hash' | 'verify'; options: unknown; length: number }[] = [];
jest.unstable_mockModule('@node-rs/argon2', () => ({
  ...argon2,
  hash: (password: string, options?: unknown) => {
    work.push({ fn: 'hash', options, length: password.length });
    return argon2.hash(password, options as never);
  },
  verify: (phc: string, password: string, options?: unknown) => {
    work.push({ fn: 'verify', options, length: password.length });
    return argon2.verify(phc, password, options as never);
  },
}));

const { passwordOutOfPolicy } = await import('#contract/messages');
const { ALL_MESSAGES: MESSAGES } = await import('#contract/operations');
const { apiClient } = await import('../support/http-client');
const { newOwner, startLocalServer, uniqueEmail } = await import('../support/local');
const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
const { default: bcrypt } = await import('bcryptjs');
const { createCostlyLane } = await import('#sign-in/domain/costly-lane');
const { signIn } = await import('#sign-in/domain/sign-in');
const { createSignInMemory } = await import('#sign-in/domain/sign-in-memory');
const { localConnection } = await import('#store/client');
const { createSignInStore } = await import('#sign-in/store/sign-in-store');
const { processStores } = await import('#store/stores');

let server: Awaited<ReturnType<typeof startLocalServer>>;
let api: ReturnType<typeof apiClient>;
let ownEmail: string;
let otherOwnersUser: string;
let knownUser: string;

beforeAll(async () => {
  server = await startLocalServer();
  const [owner, other] = await Promise.all([newOwner('timing'), newOwner('timing-other')]);
  api = apiClient(server.baseUrl, owner.apiKey);
  ownEmail = owner.ownerEmail;
  knownUser = uniqueEmail('known');
  otherOwnersUser = uniqueEmail('elsewhere');
  expect((await api('/v1/createUser', { user_email: knownUser })).status).toBe(200);
  expect((await apiClient(server.baseUrl, other.apiKey)('/v1/createUser', { user_email: otherOwnersUser })).status).toBe(200);
});
afterAll(async () => server.close());

/** The argon2 calls one request makes, and its status. */
async function workOf(path: string, body: object) {
  const start = work.length;
  const response = await api(path, body);
  return { status: response.status, message: (response.body as { message?: string }).message, work: work.slice(start) };
}

describe('resetUserPassword does the same hashing work whoever the target is', () => {
  it("unknown user, known user, white-label user and another owner's user: one argon2id hash each, same parameters, no verify", async () => {
    const new_password = 'the same new password';
    const outcomes = [
      await workOf('/v1/resetUserPassword', { user_email: uniqueEmail('nobody'), new_password }),
      await workOf('/v1/resetUserPassword', { user_email: knownUser, new_password }),
      await workOf('/v1/resetUserPassword', { user_email: ownEmail, new_password }),
      await workOf('/v1/resetUserPassword', { user_email: otherOwnersUser, new_password }),
    ];

    expect(outcomes.map(({ status, message }) => [status, message])).toEqual([
      [404, MESSAGES.userNotFound],
      [200, MESSAGES.passwordReset],
      [403, MESSAGES.resetWhiteLabel],
      [404, MESSAGES.userNotFound],
    ]);
    const [unknown, ...others] = outcomes.map((outcome) => outcome.work);
    expect(unknown).toEqual([
      { fn: 'hash', options: expect.objectContaining({ ...readPasswordSettings().argon2 }), length: new_password.length },
    ]);
    for (const w of others) expect(w).toEqual(unknown);
  });
});

describe('createUser does the same hashing work whether or not the e-mail is taken', () => {
  it('new e-mail (200) and taken e-mail (409): one identical hash each', async () => {
    const fresh = await workOf('/v1/createUser', { user_email: uniqueEmail('fresh'), user_password: 'a password of some length' });
    const taken = await workOf('/v1/createUser', { user_email: knownUser, user_password: 'a password of some length' });
    const owner = await workOf('/v1/createUser', { user_email: ownEmail, user_password: 'a password of some length' });

    expect([fresh, taken, owner].map(({ status, message }) => [status, message])).toEqual([
      [200, undefined],
      [409, MESSAGES.userExists],
      [409, MESSAGES.userExists],
    ]);
    expect(fresh.work).toHaveLength(1);
    expect(taken.work).toEqual(fresh.work);
    expect(owner.work).toEqual(fresh.work);
  });
});

describe('requests refused before the operation do no argon2 work at all', () => {
  it('deleteUser in every outcome, validation errors and bad keys: zero hashes', async () => {
    const free = [
      await workOf('/v1/deleteUser', { user_email: uniqueEmail('nobody') }),
      await workOf('/v1/deleteUser', { user_email: ownEmail }),
      await workOf('/v1/deleteUser', { user_email: otherOwnersUser }),
      await workOf('/v1/resetUserPassword', { user_email: knownUser }),
      await workOf('/v1/resetUserPassword', { user_email: knownUser, new_password: 'short' }),
      await workOf('/v1/createUser', { user_email: 'not an address', user_password: 'long enough password' }),
    ];
    expect(free.map(({ status, message }) => [status, message])).toEqual([
      [404, MESSAGES.userNotFound],
      [403, MESSAGES.deleteWhiteLabel],
      [404, MESSAGES.userNotFound],
      [400, MESSAGES.missingParameters],
      [400, passwordOutOfPolicy('new_password', readPasswordSettings().passwordPolicy)],
      [400, MESSAGES.userEmailInvalid],
    ]);
    for (const f of free) expect(f.work).toEqual([]);

    const start = work.length;
    const refused = await apiClient(server.baseUrl, `wlk_${'A'.repeat(43)}`)('/v1/resetUserPassword', {
      user_email: knownUser,
      new_password: 'whatever it is',
    });
    expect([refused.status, refused.body]).toEqual([401, { message: MESSAGES.unauthorized }]);
    expect(work.slice(start)).toEqual([]);
  });
});

describe('sign-in with its costly lane saturated by 40 fresh e-mails in flight', () => {
  it('a migrated user and an unknown e-mail: the same outcomes, the same store operations, neither busy more often', async () => {
    const { config, stores } = processStores();
    const made = await newOwner('timing-lane');
    const ownerId = (await stores.owners.findOwner(made.ownerEmail))!.ownerId;
    const migrated = async (tag: string) => {
      const email = uniqueEmail(tag);
      await stores.users.createUser({ ownerId, email, passwordHash: await bcrypt.hash(`${tag} password`, 10), shouldResetPassword: false });
      return email;
    };
    const warm = await Promise.all(Array.from({ length: 8 }, () => migrated('lane-warm')));
    const known = await Promise.all(Array.from({ length: 24 }, () => migrated('lane-known')));
    /** The DynamoDB commands of the attempt under watch (the spray's go through a client of their own). */
    let watched: string[] = [];
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ ...localConnection(process.env.DYNAMODB_ENDPOINT!), maxAttempts: 3 }));
    db.middlewareStack.add(
      (next, context) => async (args) => {
        watched.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize' },
    );
    const sprayDb = DynamoDBDocumentClient.from(new DynamoDBClient({ ...localConnection(process.env.DYNAMODB_ENDPOINT!), maxAttempts: 3 }));
    const tables = { usersTable: config.usersTableName, signInTable: config.signInTableName };
    const lane = createCostlyLane();
    const memory = createSignInMemory(config.argon2);
    const deps = (client: typeof db) => ({ store: createSignInStore(client, tables), setting: config.argon2, lane, memory });
    const attempt = (client: typeof db, email: string) => signIn(deps(client), { ownerId, email, password: 'a wrong guess' });
    // A process that has served some of the owner's migrated users: it knows their mix, and how the lane answers them.
    for (const email of warm) expect((await attempt(db, email)).outcome).toBe('wrong');
    let stop = false;
    const sprayer = async (index: number) => {
      await new Promise((resolve) => setTimeout(resolve, index * 50));
      while (!stop) await attempt(sprayDb, uniqueEmail('spray'));
    };
    const sprayers = Array.from({ length: 40 }, (_, i) => sprayer(i));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const seen: Record<'known' | 'unknown', { outcome: string; commands: string; ms: number }[]> = { known: [], unknown: [] };
    try {
      for (const email of known)
        for (const [side, target] of [
          ['known', email],
          ['unknown', uniqueEmail('lane-unknown')],
        ] as const) {
          watched = [];
          const start = performance.now();
          const { outcome } = await attempt(db, target);
          seen[side].push({ outcome, commands: watched.join(' '), ms: performance.now() - start });
        }
    } finally {
      stop = true;
      await Promise.all(sprayers);
      await lane.close();
    }
    const longer = seen.known.flatMap((k) => seen.unknown.map((u) => (k.ms > u.ms ? 1 : k.ms === u.ms ? 0.5 : 0)));
    const pKnownLonger = longer.reduce((a: number, b) => a + b, 0) / longer.length;
    const median = (side: 'known' | 'unknown') => seen[side].map((s) => s.ms).sort((a, b) => a - b)[seen[side].length >> 1];
    console.log(JSON.stringify({ pKnownLonger, knownMedianMs: median('known'), unknownMedianMs: median('unknown'), seen }));
    // The store operations follow the outcome alone.
    const byOutcome = (side: 'known' | 'unknown') => new Set(seen[side].map((s) => `${s.outcome}: ${s.commands}`));
    for (const entry of byOutcome('unknown')) if (entry.startsWith('wrong')) expect(byOutcome('known')).toContain(entry);
    const count = (side: 'known' | 'unknown', outcome: string) => seen[side].filter((s) => s.outcome === outcome).length;
    expect(count('known', 'wrong') + count('known', 'busy')).toBe(known.length);
    expect(count('unknown', 'wrong') + count('unknown', 'busy')).toBe(known.length);
    expect(count('unknown', 'busy')).toBeLessThanOrEqual(count('known', 'busy') + 2);
  }, 300_000);
});
