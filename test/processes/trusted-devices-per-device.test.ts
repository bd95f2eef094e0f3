/**
 * Trust per device (docs/adr/0030-trust-per-device.md), through the built sign-in package on `npm start`'s
 * DynamoDB Local, with a fake clock (test/support/npm-start-world.ts): a device's own failures distrust only
 * that device, whatever other devices' stolen cookies do (D1 through 12 hours of D2's and D3's, then
 * `changed` through a lock); a cookie of another type than a string is none; at most MAX_DEVICES_PER_USER
 * records, the least recently used evicted; a revocation in flight wins (the sign-in held at the gate
 * between its read and its write); a lost response's retry signs in within the rotation's grace, once.
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { FREE_FAILURES, UNTRUSTED_FAILURE_LIMIT } from '#sign-in/domain/sign-in-attempts';
import { DEVICE_FAILURE_LIMIT, MAX_DEVICES_PER_USER, ROTATION_GRACE_SECONDS } from '#sign-in/domain/trusted-devices';
import { processStores } from '#store/stores';
import { signInStateKey } from '#store/table-layout';
import { uniqueEmail } from '../support/local';
import { cookieOf, type SignInWorld, startSignInWorld, type WorldOwner } from '../support/npm-start-world';

jest.setTimeout(120_000);
const { config } = processStores();
let w: SignInWorld;
let time: { now: number };
let owner: WorldOwner;
beforeAll(async () => {
  w = await startSignInWorld('trust-per-device');
  ({ owner, clock: time } = w);
}, 300_000);
afterAll(() => w?.close());

const create = (email: string, password: string) => w.create(email, password);
const reset = (email: string, password: string) => w.reset(email, password);
const signIn = (email: string, password: string, deviceCookie?: string) => w.signIn(email, password, deviceCookie);
const untilWaiting = (email: string) => w.untilWaiting(email);
const lockToStrangers = (email: string) => w.lockToStrangers(email);
const RIGHT = 'correct horse battery';

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
    const listed = await w.tool.listDevices({ ownerId: owner.ownerId, email });
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
    expect((await w.tool.changePassword({ ...change, deviceCookie: object })).outcome).toBe('throttled');
    expect((await signIn(email, RIGHT, cookie)).outcome).toBe('ok');
  }, 60_000);

  it('a trusted success does not clear the untrusted count (the attacker’s); it clears the cookie’s failures and the budget', async () => {
    const email = uniqueEmail('trusted-success');
    await create(email, RIGHT);
    const cookie = cookieOf(await signIn(email, RIGHT));
    await untilWaiting(email);
    const before = await w.db.send(
      new GetCommand({ TableName: config.signInTableName, Key: signInStateKey(owner.ownerId, email), ConsistentRead: true }),
    );
    for (let i = 0; i < DEVICE_FAILURE_LIMIT - 1; i++) expect((await signIn(email, 'typo', cookie)).outcome).toBe('wrong');
    const signedIn = await signIn(email, RIGHT, cookie);
    expect(signedIn.outcome).toBe('ok');
    const after = await w.db.send(
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

describe('trust per device, against stolen cookies of the user’s other devices', () => {
  it('D1 answers ok on every try for 12 hours while D2’s and D3’s cookies fail and strangers guess at each wait’s end; then changed through a lock', async () => {
    const email = uniqueEmail('d1-d2-d3');
    await create(email, RIGHT);
    let d1 = cookieOf(await signIn(email, RIGHT));
    const stolen = [cookieOf(await signIn(email, RIGHT)), cookieOf(await signIn(email, RIGHT))];
    const start = time.now;
    let attackAt = time.now;
    let userAt = time.now + 600_000;
    let guesses = 0;
    const userOutcomes: string[] = [];
    while (time.now < start + 12 * 3_600_000) {
      if (userAt <= attackAt) {
        time.now = userAt;
        const result = await signIn(email, RIGHT, d1);
        userOutcomes.push(result.outcome);
        if (result.outcome === 'ok') d1 = result.deviceCookie;
        userAt = time.now + 600_000;
        continue;
      }
      time.now = attackAt;
      guesses++;
      // The stolen cookies first (until each is no longer trusted), then every guess as a stranger's, at each wait's end.
      const result = await signIn(email, `guess-${guesses}`, stolen[guesses % 2]);
      attackAt =
        result.outcome === 'throttled'
          ? time.now + result.retryAfterSeconds * 1000
          : result.outcome === 'locked'
            ? time.now + 3_600_000
            : time.now;
    }
    expect(guesses).toBeGreaterThan(2 * DEVICE_FAILURE_LIMIT + FREE_FAILURES);
    expect(userOutcomes.length).toBeGreaterThanOrEqual(12 * 6 - 1);
    expect(userOutcomes.filter((outcome) => outcome !== 'ok')).toEqual([]);
    // listDevices tells what each device's next attempt is: D1 trusted, the stolen two not.
    expect((await w.tool.listDevices({ ownerId: owner.ownerId, email })).map((d) => d.deviceId)).toEqual([d1.split('.')[0]]);
    await lockToStrangers(email);
    expect((await signIn(email, RIGHT)).outcome).toBe('locked');
    const changed = await w.tool.changePassword({
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
      time.now += 1000;
      last = cookieOf(await signIn(email, RIGHT));
    }
    expect(await w.deviceRecords(email)).toBeLessThanOrEqual(MAX_DEVICES_PER_USER);
    const listed = await w.tool.listDevices({ ownerId: owner.ownerId, email });
    expect(listed).toHaveLength(MAX_DEVICES_PER_USER);
    expect(listed[0]!.deviceId).toBe(last.split('.')[0]);
  }, 300_000);

  it('the least recently used goes first: a device signing in again outlives newer ones that do not', async () => {
    const email = uniqueEmail('lru');
    await create(email, RIGHT);
    time.now += 1000;
    let kept = cookieOf(await signIn(email, RIGHT));
    const device = kept.split('.')[0];
    for (let i = 0; i < 2 * MAX_DEVICES_PER_USER; i++) {
      time.now += 1000;
      await signIn(email, RIGHT);
      time.now += 1000;
      kept = cookieOf(await signIn(email, RIGHT, kept));
    }
    // Still the same device (its rotations kept its id), trusted through a wait.
    expect(kept.split('.')[0]).toBe(device);
    await untilWaiting(email);
    expect((await signIn(email, RIGHT, kept)).outcome).toBe('ok');
  }, 120_000);
});

describe('a revocation in flight wins', () => {
  it('revokeDevices returning while a trusted sign-in is held at its count or at its success, on a locked account: never ok, no device left (16 rounds)', async () => {
    const rounds: { heldAt: string; outcome: string; left: number }[] = [];
    for (let round = 0; round < 16; round++) {
      const email = uniqueEmail('revoke-race');
      await create(email, RIGHT);
      const cookie = cookieOf(await signIn(email, RIGHT));
      await lockToStrangers(email);
      // The sign-in's first write (its count, before it verifies) or its second (its success, after) waits at the
      // gate until the revocation has returned.
      const which = (round % 2) + 1;
      let writes = 0;
      const held = w.gate.holdNext((call) => !/^(Get|BatchGet|Query)/.test(call) && ++writes === which);
      const signingIn = signIn(email, RIGHT, cookie);
      const reached = await Promise.race([held.arrived.then(() => true), signingIn.then(() => false)]);
      await w.newTool().revokeDevices({ ownerId: owner.ownerId, email });
      held.release();
      rounds.push({ heldAt: reached ? `write ${which}` : 'none', outcome: (await signingIn).outcome, left: await w.deviceRecords(email) });
    }
    expect(rounds.filter((r) => r.outcome === 'ok' || r.left > 0)).toEqual([]);
    expect(new Set(rounds.map((r) => r.outcome))).toEqual(new Set(['locked']));
    // Every round raced: the sign-in was in flight, held at the write chosen, when the revocation returned.
    expect(rounds.filter((r) => r.heldAt === 'none')).toEqual([]);
  });
});

describe('rotation with grace', () => {
  it('a lost response: the retry with the previous cookie answers ok through a lock, once; the newer cookie stays valid', async () => {
    const email = uniqueEmail('lost-response');
    await create(email, RIGHT);
    const sent = cookieOf(await signIn(email, RIGHT));
    await lockToStrangers(email);
    // The response carrying `lost` never reached the browser, which retries with the cookie it has.
    const lost = cookieOf(await signIn(email, RIGHT, sent));
    time.now += 10_000;
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
    time.now += ROTATION_GRACE_SECONDS * 1000 + 1000;
    expect((await signIn(email, RIGHT, previous)).outcome).toBe('locked');
    // Revoked with the device.
    previous = current;
    current = await rotate(current);
    await w.tool.revokeDevices({ ownerId: owner.ownerId, email, deviceId: current.split('.')[0]! });
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
