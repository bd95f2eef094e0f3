/**
 * Trusted devices (packages/sign-in/src/domain/trusted-devices.ts, docs/adr/0028-trusted-devices.md), through
 * the sign-in package's entry (packages/sign-in/src/index.ts) on DynamoDB Local, on users the service
 * stored: a user holding a device cookie signs in through an attacker's 60 hours of guesses; without one
 * the NIST schedule holds; a forged, expired, voided, another user's or another owner's cookie gives
 * nothing that no cookie gives, at no more store work (nor a cookie of another type than a string); a
 * device's own failures distrust only that device, whatever other devices' stolen cookies do (12 hours of
 * it); at most MAX_DEVICES_PER_USER records; a revocation in flight wins; must-reset, changePassword and a
 * rehash; listing and revoking (docs/adr/0030-trust-per-device.md).
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { verifyHash } from '#domain/password-hashes';
import { formatArgon2Setting } from '#platform/config';
import { createCostlyLane } from '#sign-in/domain/costly-lane';
import { type SignInDeps, signIn as signInRule } from '#sign-in/domain/sign-in';
import { FREE_FAILURES, fastestLockoutSeconds, hashTag, UNTRUSTED_FAILURE_LIMIT } from '#sign-in/domain/sign-in-attempts';
import { revokeDevices as revokeDevicesRule } from '#sign-in/domain/sign-in-devices';
import { createSignInMemory } from '#sign-in/domain/sign-in-memory';
import { DEVICE_COOKIE_DAYS, DEVICE_FAILURE_LIMIT, MAX_DEVICES_PER_USER, ROTATION_GRACE_SECONDS } from '#sign-in/domain/trusted-devices';
import { createSignInStore } from '#sign-in/store/sign-in-store';
import { localConnection } from '#store/client';
import { processStores } from '#store/stores';
import { DEVICE_SK_PREFIX, signInStateKey, userKey, userPk } from '#store/table-layout';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as deleteUser } from '../../functions/deleteUser/handler';
import { handler as resetUserPassword } from '../../functions/resetUserPassword/handler';
import { createSignIn, DEVICE_COOKIE, deviceCookieName, type SignInResult } from '../../packages/sign-in/src/index';
import { ownerWithId } from '../hardening/support/world';
import { invoke } from '../support/events';
import { uniqueEmail } from '../support/local';

const { config, stores } = processStores();
const endpoint = process.env.DYNAMODB_ENDPOINT!;
const setting = formatArgon2Setting(config.argon2);
/** The tools' clock: every sign-in here reads it, and the tests move it (never backwards). */
let clock = Date.now();
const tool = createSignIn({
  usersTable: config.usersTableName,
  signInTable: config.signInTableName,
  argon2Setting: setting,
  dynamodb: localConnection(endpoint),
  now: () => clock,
});

type Owner = Awaited<ReturnType<typeof ownerWithId>>;
let owner: Owner;
let other: Owner;
beforeAll(async () => {
  [owner, other] = await Promise.all([ownerWithId('trusted'), ownerWithId('trusted-other')]);
});
afterAll(() => tool.close());

const create = async (email: string, password: string, shouldReset = false, as = owner) =>
  expect(
    (await invoke(createUser, { user_email: email, user_password: password, should_reset_password: shouldReset }, as.apiKey)).status,
  ).toBe(200);
const reset = async (email: string, password: string) =>
  expect((await invoke(resetUserPassword, { user_email: email, new_password: password }, owner.apiKey)).status).toBe(200);
const signIn = (email: string, password: string, deviceCookie?: string, as = owner) =>
  tool.signIn({ ownerId: as.ownerId, email, password, ...(deviceCookie !== undefined && { deviceCookie }) });
/** The account's untrusted state as UNTRUSTED_FAILURE_LIMIT failures leave it: locked to strangers until a reset. */
async function lockToStrangers(email: string) {
  const { Item } = await stores.client.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(owner.ownerId, email) }));
  await stores.client.send(
    new PutCommand({
      TableName: config.signInTableName,
      Item: {
        ...signInStateKey(owner.ownerId, email),
        failures: UNTRUSTED_FAILURE_LIMIT,
        wait_until: 0,
        hash_tag: hashTag(Item!.password_hash),
      },
    }),
  );
}
/** How many device records the user has, trusted or not. */
const records = async (email: string) =>
  (
    await stores.client.send(
      new QueryCommand({
        TableName: config.signInTableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': userPk(owner.ownerId, email), ':prefix': DEVICE_SK_PREFIX },
        ConsistentRead: true,
      }),
    )
  ).Items?.length ?? 0;
const cookieOf = (result: SignInResult) => {
  if (result.outcome !== 'ok' && result.outcome !== 'must-reset') throw new Error(`expected a success, got ${JSON.stringify(result)}`);
  return result.deviceCookie;
};
/** Wrong guesses without a cookie until the account waits: the attacker's cheapest way to shut a user out. */
async function untilWaiting(email: string) {
  for (let i = 0; i <= FREE_FAILURES + 1; i++) {
    const result = await signIn(email, 'not-the-password-1');
    if (result.outcome === 'throttled') return;
    expect(result.outcome).toBe('wrong');
  }
  throw new Error(`${email} never waited`);
}
const RIGHT = 'correct horse battery';

describe('a user with a device cookie, against an attacker guessing at each wait’s end for 60 hours', () => {
  it('gets ok on every try every 10 minutes, and changes the password; the user without one waits as NIST says (at least 24 h to locked)', async () => {
    const trusted = uniqueEmail('trusted');
    const plain = uniqueEmail('plain');
    await Promise.all([create(trusted, RIGHT), create(plain, RIGHT)]);
    let cookie = cookieOf(await signIn(trusted, RIGHT));
    let password = RIGHT;
    const start = clock;
    const end = start + 60 * 3_600_000;
    // The attacker's next attempts at each account (a guess at each wait's end and one 1 s after it), and the trusted user's.
    const attacker = new Map([
      [trusted, [clock]],
      [plain, [clock]],
    ]);
    let userNext = clock + 600_000;
    const userOutcomes: string[] = [];
    let changedAt: number | undefined;
    let plainLockedAt: number | undefined;
    let attacks = 0;
    while (clock < end) {
      const [email, times] = [...attacker].reduce((a, b) => (Math.min(...b[1]) < Math.min(...a[1]) ? b : a));
      const attackAt = Math.min(...times);
      if (userNext <= attackAt) {
        clock = userNext;
        if (changedAt === undefined && clock - start >= 30 * 3_600_000) {
          const changed = await tool.changePassword({
            ownerId: owner.ownerId,
            email: trusted,
            currentPassword: password,
            newPassword: `${RIGHT} changed`,
            deviceCookie: cookie,
          });
          expect(changed).toMatchObject({ outcome: 'changed' });
          if (changed.outcome === 'changed') cookie = changed.deviceCookie;
          password = `${RIGHT} changed`;
          changedAt = clock;
        } else {
          const result = await signIn(trusted, password, cookie);
          userOutcomes.push(result.outcome);
          if (result.outcome === 'ok') cookie = result.deviceCookie;
        }
        userNext = clock + 600_000;
        continue;
      }
      clock = attackAt;
      times.splice(times.indexOf(attackAt), 1);
      attacks++;
      const result = await signIn(email, `guess-${attacks}`);
      if (result.outcome === 'locked') {
        if (email === plain) plainLockedAt ??= clock;
        times.push(clock + 3_600_000);
      } else if (result.outcome === 'throttled') {
        if (times.length === 0) times.push(clock + result.retryAfterSeconds * 1000, clock + result.retryAfterSeconds * 1000 + 1000);
      } else if (times.length === 0) times.push(clock);
    }
    expect(userOutcomes.length).toBeGreaterThanOrEqual(60 * 6 - 2);
    expect(userOutcomes.filter((outcome) => outcome !== 'ok')).toEqual([]);
    expect(changedAt).toBeDefined();
    // The attacker shut the untrusted door of both accounts; the plain user's, not before the NIST schedule allows.
    expect(plainLockedAt).toBeDefined();
    expect(plainLockedAt! - start).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(plainLockedAt! - start).toBeGreaterThanOrEqual(fastestLockoutSeconds() * 1000);
    expect((await signIn(plain, RIGHT)).outcome).toBe('locked');
    expect((await signIn(trusted, password, cookie)).outcome).toBe('ok');
  }, 600_000);
});

/** The domain's sign-in on the real adapter with the DynamoDB commands it sends recorded. */
function observed() {
  const commands: string[] = [];
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ ...localConnection(endpoint), maxAttempts: 3 }));
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TransactItems?: object[]; RequestItems?: Record<string, { Keys: object[] }> };
      const detail = input.TransactItems
        ? `:${input.TransactItems.length}`
        : input.RequestItems
          ? `:${Object.values(input.RequestItems).reduce((n, r) => n + r.Keys.length, 0)}`
          : '';
      commands.push(`${String(context.commandName).replace(/Command$/, '')}${detail}`);
      return next(args);
    },
    { step: 'initialize' },
  );
  const deps: SignInDeps = {
    store: createSignInStore(db, { usersTable: config.usersTableName, signInTable: config.signInTableName }),
    setting: config.argon2,
    lane: createCostlyLane(),
    memory: createSignInMemory(config.argon2),
    now: () => clock,
  };
  return { commands, deps, close: () => deps.lane.close() };
}

describe('a cookie that is not valid for this user now gives nothing that no cookie gives', () => {
  it('forged, expired, voided by a reset or a re-creation, another user’s, another owner’s: the same outcome and the same store work as none', async () => {
    const email = uniqueEmail('cookies');
    const neighbour = uniqueEmail('neighbour');
    await Promise.all([create(email, RIGHT), create(neighbour, RIGHT), create(email, RIGHT, false, other)]);
    const valid = cookieOf(await signIn(email, RIGHT));
    const neighbours = cookieOf(await signIn(neighbour, RIGHT));
    const otherOwners = cookieOf(await signIn(email, RIGHT, undefined, other));
    // A well-formed cookie whose seal nobody made, and one valid cookie with its secret changed.
    const forged = `${'A'.repeat(22)}.${'B'.repeat(43)}.${'C'.repeat(22)}`;
    const tampered = valid.replace(/\.(.)/, (_, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
    await untilWaiting(email);
    const observe = observed();
    try {
      const attempt = async (cookie: string | undefined) => {
        observe.commands.length = 0;
        const result = await signInRule(observe.deps, {
          ownerId: owner.ownerId,
          email,
          password: RIGHT,
          ...(cookie !== undefined && { deviceCookie: cookie }),
        });
        return { outcome: result.outcome, commands: [...observe.commands] };
      };
      // The owner's device key is read once per process: before comparing, as a tool long running has it.
      await attempt(forged);
      const none = await attempt(undefined);
      expect(none.outcome).toBe('throttled');
      for (const cookie of [forged, tampered, neighbours, otherOwners, 'junk', 'x'.repeat(100_000)])
        expect(await attempt(cookie)).toEqual(none);
      // Of another type than a string (an object, as cookie parsers make of `j:` values; a number; null): no cookie.
      for (const cookie of [{ j: valid }, [valid], 42, null] as unknown as string[]) expect(await attempt(cookie)).toEqual(none);
      expect(await attempt(valid)).toMatchObject({ outcome: 'ok' });
    } finally {
      await observe.close();
    }
    // Expired: past the cookie's lifetime, with the account waiting again.
    clock += 3_600_000;
    const later = cookieOf(await signIn(email, RIGHT));
    clock += DEVICE_COOKIE_DAYS * 86_400_000 + 1000;
    await untilWaiting(email);
    expect((await signIn(email, RIGHT, later)).outcome).toBe('throttled');
    // Voided by an API reset; a re-created user is another user.
    clock += 3_600_000;
    const beforeReset = cookieOf(await signIn(email, RIGHT));
    await reset(email, `${RIGHT} reset`);
    await untilWaiting(email);
    expect((await signIn(email, `${RIGHT} reset`, beforeReset)).outcome).toBe('throttled');
    clock += 3_600_000;
    const beforeDelete = cookieOf(await signIn(email, `${RIGHT} reset`));
    expect((await invoke(deleteUser, { user_email: email }, owner.apiKey)).status).toBe(200);
    await create(email, `${RIGHT} reset`);
    await untilWaiting(email);
    expect((await signIn(email, `${RIGHT} reset`, beforeDelete)).outcome).toBe('throttled');
  }, 120_000);
});

describe('per cookie, apart from the untrusted count', () => {
  it('a device’s own failures distrust only that device; the others’ never do, and listDevices says so', async () => {
    const email = uniqueEmail('three-browsers');
    await create(email, RIGHT);
    const browsers = [];
    for (let i = 0; i < 3; i++) browsers.push(cookieOf(await signIn(email, RIGHT)));
    await untilWaiting(email);
    const [first, second, third] = browsers as [string, string, string];
    for (const stolen of [first, second])
      for (let i = 0; i < DEVICE_FAILURE_LIMIT; i++) expect((await signIn(email, 'typo', stolen)).outcome).toBe('wrong');
    // Both are no longer trusted: their attempts are untrusted ones, refused during the wait; the third still signs in.
    expect((await signIn(email, RIGHT, first)).outcome).toBe('throttled');
    expect((await signIn(email, RIGHT, second)).outcome).toBe('throttled');
    const listed = await tool.listDevices({ ownerId: owner.ownerId, email });
    expect(listed.map((d) => d.deviceId)).toEqual([third.split('.')[0]]);
    expect((await signIn(email, RIGHT, third)).outcome).toBe('ok');
  }, 60_000);

  it('the object cookie through the package: signIn and changePassword answer as with no cookie, never a TypeError', async () => {
    const email = uniqueEmail('object-cookie');
    await create(email, RIGHT);
    const cookie = cookieOf(await signIn(email, RIGHT));
    await untilWaiting(email);
    const object = { j: cookie } as unknown as string;
    expect((await signIn(email, RIGHT, object)).outcome).toBe('throttled');
    const change = { ownerId: owner.ownerId, email, currentPassword: RIGHT, newPassword: `${RIGHT} new` };
    expect((await tool.changePassword({ ...change, deviceCookie: object })).outcome).toBe('throttled');
    expect((await signIn(email, RIGHT, cookie)).outcome).toBe('ok');
  }, 60_000);

  it('a trusted success does not clear the untrusted count (the attacker’s); it clears the cookie’s failures and the budget', async () => {
    const email = uniqueEmail('trusted-success');
    await create(email, RIGHT);
    const cookie = cookieOf(await signIn(email, RIGHT));
    await untilWaiting(email);
    const before = await stores.client.send(
      new GetCommand({ TableName: config.signInTableName, Key: signInStateKey(owner.ownerId, email), ConsistentRead: true }),
    );
    for (let i = 0; i < DEVICE_FAILURE_LIMIT - 1; i++) expect((await signIn(email, 'typo', cookie)).outcome).toBe('wrong');
    const signedIn = await signIn(email, RIGHT, cookie);
    expect(signedIn.outcome).toBe('ok');
    const after = await stores.client.send(
      new GetCommand({ TableName: config.signInTableName, Key: signInStateKey(owner.ownerId, email), ConsistentRead: true }),
    );
    expect(after.Item).toEqual(before.Item);
    expect((await signIn(email, RIGHT)).outcome).toBe('throttled');
    // The fresh cookie starts again from no failure: DEVICE_FAILURE_LIMIT more before it is distrusted.
    const fresh = cookieOf(signedIn);
    for (let i = 0; i < DEVICE_FAILURE_LIMIT - 1; i++) expect((await signIn(email, 'typo', fresh)).outcome).toBe('wrong');
    expect((await signIn(email, RIGHT, fresh)).outcome).toBe('ok');
  }, 60_000);

  it('locked by untrusted failures at 100 less C devices × L failures; a trusted device still signs in', async () => {
    const email = uniqueEmail('locked');
    await create(email, RIGHT);
    const cookie = cookieOf(await signIn(email, RIGHT));
    await lockToStrangers(email);
    expect(UNTRUSTED_FAILURE_LIMIT + MAX_DEVICES_PER_USER * DEVICE_FAILURE_LIMIT).toBe(100);
    expect((await signIn(email, RIGHT)).outcome).toBe('locked');
    expect((await signIn(email, RIGHT, cookie)).outcome).toBe('ok');
  });
});

describe('must-reset, changePassword and a rehash', () => {
  it('must-reset carries a cookie; changePassword with it answers changed with a fresh one and voids the others', async () => {
    const email = uniqueEmail('must-reset');
    await create(email, RIGHT, true);
    const elsewhere = cookieOf(await signIn(email, RIGHT));
    const mustReset = await signIn(email, RIGHT);
    expect(mustReset).toMatchObject({ outcome: 'must-reset', deviceCookie: expect.any(String) });
    await untilWaiting(email);
    const changed = await tool.changePassword({
      ownerId: owner.ownerId,
      email,
      currentPassword: RIGHT,
      newPassword: `${RIGHT} chosen`,
      deviceCookie: cookieOf(mustReset),
    });
    expect(changed).toMatchObject({ outcome: 'changed', deviceCookie: expect.any(String), deviceCookieExpiresAt: expect.any(String) });
    if (changed.outcome !== 'changed') throw new Error('unreachable');
    expect(Date.parse(changed.deviceCookieExpiresAt)).toBe(Math.floor(clock / 1000) * 1000 + DEVICE_COOKIE_DAYS * 86_400_000);
    await untilWaiting(email);
    expect((await signIn(email, `${RIGHT} chosen`, changed.deviceCookie)).outcome).toBe('ok');
    expect((await signIn(email, `${RIGHT} chosen`, elsewhere)).outcome).toBe('throttled');
  }, 60_000);

  it('an imported bcrypt user: the success that upgrades the hash keeps the cookie valid (a rehash is no change of password)', async () => {
    const email = uniqueEmail('imported');
    await stores.client.send(
      new PutCommand({
        TableName: config.usersTableName,
        Item: {
          ...userKey(owner.ownerId, email),
          user_email: email,
          password_hash: await bcrypt.hash(RIGHT, 4),
          should_reset_password: false,
          created_at: new Date(clock).toISOString(),
          updated_at: new Date(clock).toISOString(),
        },
      }),
    );
    const first = await signIn(email, RIGHT);
    const { Item } = await stores.client.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(owner.ownerId, email) }));
    expect(Item!.password_hash).toMatch(/^\$argon2id\$/);
    await untilWaiting(email);
    expect((await signIn(email, RIGHT, cookieOf(first))).outcome).toBe('ok');
  }, 60_000);
});

describe('the owner lists and revokes trusted devices', () => {
  it('lists the devices whose cookie signs in (last use first, never a secret); revoking one or all ends their trust', async () => {
    const email = uniqueEmail('devices');
    await create(email, RIGHT);
    expect(await tool.listDevices({ ownerId: owner.ownerId, email: uniqueEmail('nobody') })).toEqual([]);
    const a = cookieOf(await signIn(email, RIGHT));
    clock += 1000;
    const b = cookieOf(await signIn(email, RIGHT));
    const listed = await tool.listDevices({ ownerId: owner.ownerId, email: email.toUpperCase() });
    expect(listed).toHaveLength(2);
    expect(listed[0]!.lastSignedInAt > listed[1]!.lastSignedInAt).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(a.split('.')[1]);
    expect(Object.keys(listed[0]!).sort()).toEqual(['deviceId', 'expiresAt', 'firstSignedInAt', 'lastSignedInAt']);
    // Rotating keeps the device: a success with b updates its record, and b's old value no longer signs in as trusted.
    const rotated = cookieOf(await signIn(email, RIGHT, b));
    expect(rotated).not.toBe(b);
    expect((await tool.listDevices({ ownerId: owner.ownerId, email })).map((d) => d.deviceId).sort()).toEqual(
      listed.map((d) => d.deviceId).sort(),
    );
    // Past the rotation's grace (rotation-with-grace tests below), b's old value no longer signs in as trusted.
    clock += ROTATION_GRACE_SECONDS * 1000 + 1000;
    await untilWaiting(email);
    expect((await signIn(email, RIGHT, b)).outcome).toBe('throttled');
    expect(
      await tool.revokeDevices({ ownerId: owner.ownerId, email, deviceId: listed.find((d) => rotated.startsWith(d.deviceId))!.deviceId }),
    ).toBe(1);
    expect((await signIn(email, RIGHT, rotated)).outcome).toBe('throttled');
    expect((await signIn(email, RIGHT, a)).outcome).toBe('ok');
    expect(await tool.revokeDevices({ ownerId: owner.ownerId, email })).toBe(1);
    expect(await tool.listDevices({ ownerId: owner.ownerId, email })).toEqual([]);
  }, 60_000);

  it('the cookie’s name is one per account, under __Host-, naming neither the owner nor the e-mail', () => {
    const name = deviceCookieName(owner.ownerId, 'Jane@Example.com');
    expect(name).toBe(deviceCookieName(owner.ownerId, 'jane@example.com'));
    expect(name).not.toBe(deviceCookieName(other.ownerId, 'jane@example.com'));
    expect(name).toMatch(/^__Host-device-[A-Za-z0-9_-]{16}$/);
    expect(DEVICE_COOKIE).toEqual({ prefix: '__Host-device-', days: 30, perBrowser: 5, failureLimit: 5, perUser: 8, graceSeconds: 60 });
  });
});

describe('trust per device, against stolen cookies of the user’s other devices', () => {
  it('D1 answers ok on every try for 12 hours while D2’s and D3’s cookies fail and strangers guess at each wait’s end; then changed through a lock', async () => {
    const email = uniqueEmail('d1-d2-d3');
    await create(email, RIGHT);
    let d1 = cookieOf(await signIn(email, RIGHT));
    const stolen = [cookieOf(await signIn(email, RIGHT)), cookieOf(await signIn(email, RIGHT))];
    const start = clock;
    let attackAt = clock;
    let userAt = clock + 600_000;
    let guesses = 0;
    const userOutcomes: string[] = [];
    while (clock < start + 12 * 3_600_000) {
      if (userAt <= attackAt) {
        clock = userAt;
        const result = await signIn(email, RIGHT, d1);
        userOutcomes.push(result.outcome);
        if (result.outcome === 'ok') d1 = result.deviceCookie;
        userAt = clock + 600_000;
        continue;
      }
      clock = attackAt;
      guesses++;
      // The stolen cookies first (until each is no longer trusted), then every guess as a stranger's, at each wait's end.
      const result = await signIn(email, `guess-${guesses}`, stolen[guesses % 2]);
      attackAt =
        result.outcome === 'throttled' ? clock + result.retryAfterSeconds * 1000 : result.outcome === 'locked' ? clock + 3_600_000 : clock;
    }
    expect(guesses).toBeGreaterThan(2 * DEVICE_FAILURE_LIMIT + FREE_FAILURES);
    expect(userOutcomes.length).toBeGreaterThanOrEqual(12 * 6 - 1);
    expect(userOutcomes.filter((outcome) => outcome !== 'ok')).toEqual([]);
    // listDevices tells what each device's next attempt is: D1 trusted, the stolen two not.
    expect((await tool.listDevices({ ownerId: owner.ownerId, email })).map((d) => d.deviceId)).toEqual([d1.split('.')[0]]);
    await lockToStrangers(email);
    expect((await signIn(email, RIGHT)).outcome).toBe('locked');
    const changed = await tool.changePassword({
      ownerId: owner.ownerId,
      email,
      currentPassword: RIGHT,
      newPassword: `${RIGHT} after`,
      deviceCookie: d1,
    });
    expect(changed).toMatchObject({ outcome: 'changed' });
  }, 300_000);
});

describe('at most MAX_DEVICES_PER_USER device records', () => {
  it('300 sign-ins of a client that keeps no cookie leave at most the cap, the most recent kept and trusted', async () => {
    const email = uniqueEmail('cookieless');
    await create(email, RIGHT);
    let last = '';
    for (let i = 0; i < 300; i++) {
      clock += 1000;
      last = cookieOf(await signIn(email, RIGHT));
    }
    expect(await records(email)).toBeLessThanOrEqual(MAX_DEVICES_PER_USER);
    const listed = await tool.listDevices({ ownerId: owner.ownerId, email });
    expect(listed).toHaveLength(MAX_DEVICES_PER_USER);
    expect(listed[0]!.deviceId).toBe(last.split('.')[0]);
  }, 300_000);

  it('the least recently used goes first: a device signing in again outlives newer ones that do not', async () => {
    const email = uniqueEmail('lru');
    await create(email, RIGHT);
    clock += 1000;
    let kept = cookieOf(await signIn(email, RIGHT));
    const device = kept.split('.')[0];
    for (let i = 0; i < 2 * MAX_DEVICES_PER_USER; i++) {
      clock += 1000;
      await signIn(email, RIGHT);
      clock += 1000;
      kept = cookieOf(await signIn(email, RIGHT, kept));
    }
    // Still the same device (its rotations kept its id), trusted through a wait.
    expect(kept.split('.')[0]).toBe(device);
    await untilWaiting(email);
    expect((await signIn(email, RIGHT, kept)).outcome).toBe('ok');
  }, 120_000);
});

describe('a revocation in flight wins', () => {
  it('revokeDevices returning while a trusted sign-in verifies, on a locked account: never ok, no device left (16 rounds)', async () => {
    const observe = observed();
    let during: (() => Promise<unknown>) | undefined;
    const deps: SignInDeps = {
      ...observe.deps,
      verify: async (stored, password) => {
        const hook = during;
        during = undefined;
        await hook?.();
        return verifyHash(stored, password);
      },
    };
    const rounds: { outcome: string; left: number }[] = [];
    try {
      for (let round = 0; round < 16; round++) {
        const email = uniqueEmail('revoke-race');
        await create(email, RIGHT);
        const cookie = cookieOf(await signIn(email, RIGHT));
        await lockToStrangers(email);
        during = () => revokeDevicesRule(deps, { ownerId: owner.ownerId, email });
        const result = await signInRule(deps, { ownerId: owner.ownerId, email, password: RIGHT, deviceCookie: cookie });
        rounds.push({ outcome: result.outcome, left: await records(email) });
      }
    } finally {
      await observe.close();
    }
    expect(rounds.filter((r) => r.outcome === 'ok' || r.left > 0)).toEqual([]);
    expect(new Set(rounds.map((r) => r.outcome))).toEqual(new Set(['locked']));
  }, 120_000);
});

describe('rotation with grace', () => {
  it('a lost response: the retry with the previous cookie answers ok through a lock, once; the newer cookie stays valid', async () => {
    const email = uniqueEmail('lost-response');
    await create(email, RIGHT);
    const sent = cookieOf(await signIn(email, RIGHT));
    await lockToStrangers(email);
    // The response carrying `lost` never reached the browser, which retries with the cookie it has.
    const lost = cookieOf(await signIn(email, RIGHT, sent));
    clock += 10_000;
    const retried = await signIn(email, RIGHT, sent);
    expect(retried.outcome).toBe('ok');
    // The grace is used up; the newer cookie and the retry's both sign in.
    expect((await signIn(email, RIGHT, sent)).outcome).toBe('locked');
    expect((await signIn(email, RIGHT, cookieOf(retried))).outcome).toBe('ok');
    const newer = cookieOf(await signIn(email, RIGHT, lost));
    // A replayed older cookie (before the previous one) is untrusted and never changes the device's current cookie.
    expect((await signIn(email, RIGHT, sent)).outcome).toBe('locked');
    expect((await signIn(email, RIGHT, newer)).outcome).toBe('ok');
  }, 60_000);

  it('the grace is used up by a wrong attempt, and ends with its time, a reset or a revocation', async () => {
    const email = uniqueEmail('grace-ends');
    await create(email, RIGHT);
    const rotate = async (cookie: string) => cookieOf(await signIn(email, RIGHT, cookie));
    const first = cookieOf(await signIn(email, RIGHT));
    await lockToStrangers(email);
    // Used up by a wrong guess with it: the right password after it is a stranger's.
    let current = await rotate(first);
    expect((await signIn(email, 'typo', first)).outcome).toBe('wrong');
    expect((await signIn(email, RIGHT, first)).outcome).toBe('locked');
    // Past its time.
    let previous = current;
    current = await rotate(current);
    clock += ROTATION_GRACE_SECONDS * 1000 + 1000;
    expect((await signIn(email, RIGHT, previous)).outcome).toBe('locked');
    // Revoked with the device.
    previous = current;
    current = await rotate(current);
    await tool.revokeDevices({ ownerId: owner.ownerId, email, deviceId: current.split('.')[0]! });
    expect((await signIn(email, RIGHT, previous)).outcome).toBe('locked');
    // A reset changes the binding: the previous cookie in its grace is no longer valid either.
    const other = uniqueEmail('grace-reset');
    await create(other, RIGHT);
    const before = cookieOf(await signIn(other, RIGHT));
    await signIn(other, RIGHT, before);
    await reset(other, `${RIGHT} reset`);
    await lockToStrangers(other);
    expect((await signIn(other, `${RIGHT} reset`, before)).outcome).toBe('locked');
  }, 60_000);
});
