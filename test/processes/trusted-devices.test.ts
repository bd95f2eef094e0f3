/**
 * Trusted devices (docs/adr/0028-trusted-devices.md), through the built sign-in package on `npm start`'s
 * DynamoDB Local, with a fake clock (test/support/npm-start-world.ts), on users made through npm start's
 * API: a user holding a device cookie signs in through an attacker's 60 hours of guesses; without one the
 * NIST schedule holds; a forged, expired, voided, another user's or another owner's cookie gives nothing
 * that no cookie gives, at the same DynamoDB calls (nor a cookie of another type than a string);
 * must-reset, changePassword and a rehash; listing and revoking. Trust per device, the cap, the
 * revocation race and the rotation's grace: trusted-devices-per-device.test.ts.
 */

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { fastestLockoutSeconds } from '#sign-in/domain/sign-in-attempts';
import { DEVICE_COOKIE_DAYS, ROTATION_GRACE_SECONDS } from '#sign-in/domain/trusted-devices';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import { uniqueEmail } from '../support/local';
import { cookieOf, type SignInWorld, startSignInWorld, type WorldOwner } from '../support/npm-start-world';

jest.setTimeout(120_000);
const { config } = processStores();
let w: SignInWorld;
let time: { now: number };
let owner: WorldOwner;
let other: WorldOwner;
beforeAll(async () => {
  w = await startSignInWorld('trusted-devices');
  ({ owner, clock: time } = w);
  other = await w.newOwner('trusted-other');
}, 300_000);
afterAll(() => w?.close());

const create = (email: string, password: string, shouldReset = false, as = owner) => w.create(email, password, shouldReset, as);
const signIn = (email: string, password: string, deviceCookie?: string, as = owner) => w.signIn(email, password, deviceCookie, as);
const untilWaiting = (email: string) => w.untilWaiting(email);
const RIGHT = 'correct horse battery';

describe('a user with a device cookie, against an attacker guessing at each wait’s end for 60 hours', () => {
  it('gets ok on every try every 10 minutes, and changes the password; the user without one waits as NIST says (at least 24 h to locked)', async () => {
    const trusted = uniqueEmail('trusted');
    const plain = uniqueEmail('plain');
    await Promise.all([create(trusted, RIGHT), create(plain, RIGHT)]);
    let cookie = cookieOf(await signIn(trusted, RIGHT));
    let password = RIGHT;
    const start = time.now;
    const end = start + 60 * 3_600_000;
    // The attacker's next attempts at each account (a guess at each wait's end and one 1 s after it), and the trusted user's.
    const attacker = new Map([
      [trusted, [time.now]],
      [plain, [time.now]],
    ]);
    let userNext = time.now + 600_000;
    const userOutcomes: string[] = [];
    let changedAt: number | undefined;
    let plainLockedAt: number | undefined;
    let attacks = 0;
    while (time.now < end) {
      const [email, times] = [...attacker].reduce((a, b) => (Math.min(...b[1]) < Math.min(...a[1]) ? b : a));
      const attackAt = Math.min(...times);
      if (userNext <= attackAt) {
        time.now = userNext;
        if (changedAt === undefined && time.now - start >= 30 * 3_600_000) {
          const changed = await w.tool.changePassword({
            ownerId: owner.ownerId,
            email: trusted,
            currentPassword: password,
            newPassword: `${RIGHT} changed`,
            deviceCookie: cookie,
          });
          expect(changed).toMatchObject({ outcome: 'changed' });
          if (changed.outcome === 'changed') cookie = changed.deviceCookie;
          password = `${RIGHT} changed`;
          changedAt = time.now;
        } else {
          const result = await signIn(trusted, password, cookie);
          userOutcomes.push(result.outcome);
          if (result.outcome === 'ok') cookie = result.deviceCookie;
        }
        userNext = time.now + 600_000;
        continue;
      }
      time.now = attackAt;
      times.splice(times.indexOf(attackAt), 1);
      attacks++;
      const result = await signIn(email, `guess-${attacks}`);
      if (result.outcome === 'locked') {
        if (email === plain) plainLockedAt ??= time.now;
        times.push(time.now + 3_600_000);
      } else if (result.outcome === 'throttled') {
        if (times.length === 0) times.push(time.now + result.retryAfterSeconds * 1000, time.now + result.retryAfterSeconds * 1000 + 1000);
      } else if (times.length === 0) times.push(time.now);
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
    // A tool's process that has read the owner's device key already, as a long-running one has: its calls counted at the gate.
    const warm = w.newTool();
    await w.signIn(email, RIGHT, forged, owner, warm);
    const attempt = async (cookie: string | undefined) => {
      w.gate.calls.length = 0;
      const result = await w.signIn(email, RIGHT, cookie, owner, warm);
      return { outcome: result.outcome, calls: [...w.gate.calls] };
    };
    const none = await attempt(undefined);
    expect(none.outcome).toBe('throttled');
    for (const cookie of [forged, tampered, neighbours, otherOwners, 'junk', 'x'.repeat(100_000)])
      expect(await attempt(cookie)).toEqual(none);
    // Of another type than a string (an object, as cookie parsers make of `j:` values; a number; null): no cookie.
    for (const cookie of [{ j: valid }, [valid], 42, null] as unknown as string[]) expect(await attempt(cookie)).toEqual(none);
    expect(await attempt(valid)).toMatchObject({ outcome: 'ok' });
    // Expired: past the cookie's lifetime, with the account waiting again.
    time.now += 3_600_000;
    const later = cookieOf(await signIn(email, RIGHT));
    time.now += DEVICE_COOKIE_DAYS * 86_400_000 + 1000;
    await untilWaiting(email);
    expect((await signIn(email, RIGHT, later)).outcome).toBe('throttled');
    // Voided by an API reset; a re-created user is another user.
    time.now += 3_600_000;
    const beforeReset = cookieOf(await signIn(email, RIGHT));
    await w.reset(email, `${RIGHT} reset`);
    await untilWaiting(email);
    expect((await signIn(email, `${RIGHT} reset`, beforeReset)).outcome).toBe('throttled');
    time.now += 3_600_000;
    const beforeDelete = cookieOf(await signIn(email, `${RIGHT} reset`));
    expect(await w.api('deleteUser', { user_email: email })).toBe(200);
    await create(email, `${RIGHT} reset`);
    await untilWaiting(email);
    expect((await signIn(email, `${RIGHT} reset`, beforeDelete)).outcome).toBe('throttled');
  }, 120_000);
});

describe('must-reset, changePassword and a rehash', () => {
  it('must-reset carries a cookie; changePassword with it answers changed with a fresh one and voids the others', async () => {
    const email = uniqueEmail('must-reset');
    await create(email, RIGHT, true);
    const elsewhere = cookieOf(await signIn(email, RIGHT));
    const mustReset = await signIn(email, RIGHT);
    expect(mustReset).toMatchObject({ outcome: 'must-reset', deviceCookie: expect.any(String) });
    await untilWaiting(email);
    const changed = await w.tool.changePassword({
      ownerId: owner.ownerId,
      email,
      currentPassword: RIGHT,
      newPassword: `${RIGHT} chosen`,
      deviceCookie: cookieOf(mustReset),
    });
    expect(changed).toMatchObject({ outcome: 'changed', deviceCookie: expect.any(String), deviceCookieExpiresAt: expect.any(String) });
    if (changed.outcome !== 'changed') throw new Error('unreachable');
    expect(Date.parse(changed.deviceCookieExpiresAt)).toBe(Math.floor(time.now / 1000) * 1000 + DEVICE_COOKIE_DAYS * 86_400_000);
    await untilWaiting(email);
    expect((await signIn(email, `${RIGHT} chosen`, changed.deviceCookie)).outcome).toBe('ok');
    expect((await signIn(email, `${RIGHT} chosen`, elsewhere)).outcome).toBe('throttled');
  }, 60_000);

  it('an imported bcrypt user: the success that upgrades the hash keeps the cookie valid (a rehash is no change of password)', async () => {
    const email = uniqueEmail('imported');
    await w.db.send(
      new PutCommand({
        TableName: config.usersTableName,
        Item: {
          ...userKey(owner.ownerId, email),
          user_email: email,
          password_hash: await bcrypt.hash(RIGHT, 4),
          should_reset_password: false,
          created_at: new Date(time.now).toISOString(),
          updated_at: new Date(time.now).toISOString(),
        },
      }),
    );
    const first = await signIn(email, RIGHT);
    const { Item } = await w.db.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(owner.ownerId, email) }));
    expect(Item!.password_hash).toMatch(/^\$argon2id\$/);
    await untilWaiting(email);
    expect((await signIn(email, RIGHT, cookieOf(first))).outcome).toBe('ok');
  }, 60_000);
});

describe('the owner lists and revokes trusted devices', () => {
  it('lists the devices whose cookie signs in (last use first, never a secret); revoking one or all ends their trust', async () => {
    const email = uniqueEmail('devices');
    await create(email, RIGHT);
    expect(await w.tool.listDevices({ ownerId: owner.ownerId, email: uniqueEmail('nobody') })).toEqual([]);
    const a = cookieOf(await signIn(email, RIGHT));
    time.now += 1000;
    const b = cookieOf(await signIn(email, RIGHT));
    const listed = await w.tool.listDevices({ ownerId: owner.ownerId, email: email.toUpperCase() });
    expect(listed).toHaveLength(2);
    expect(listed[0]!.lastSignedInAt > listed[1]!.lastSignedInAt).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(a.split('.')[1]);
    expect(Object.keys(listed[0]!).sort()).toEqual(['deviceId', 'expiresAt', 'firstSignedInAt', 'lastSignedInAt']);
    // Rotating keeps the device: a success with b updates its record, and b's old value no longer signs in as trusted.
    const rotated = cookieOf(await signIn(email, RIGHT, b));
    expect(rotated).not.toBe(b);
    expect((await w.tool.listDevices({ ownerId: owner.ownerId, email })).map((d) => d.deviceId).sort()).toEqual(
      listed.map((d) => d.deviceId).sort(),
    );
    // Past the rotation's grace (rotation-with-grace tests below), b's old value no longer signs in as trusted.
    time.now += ROTATION_GRACE_SECONDS * 1000 + 1000;
    await untilWaiting(email);
    expect((await signIn(email, RIGHT, b)).outcome).toBe('throttled');
    expect(
      await w.tool.revokeDevices({ ownerId: owner.ownerId, email, deviceId: listed.find((d) => rotated.startsWith(d.deviceId))!.deviceId }),
    ).toBe(1);
    expect((await signIn(email, RIGHT, rotated)).outcome).toBe('throttled');
    expect((await signIn(email, RIGHT, a)).outcome).toBe('ok');
    expect(await w.tool.revokeDevices({ ownerId: owner.ownerId, email })).toBe(1);
    expect(await w.tool.listDevices({ ownerId: owner.ownerId, email })).toEqual([]);
  }, 60_000);

  it('the cookie’s name is one per account, under __Host-, naming neither the owner nor the e-mail', () => {
    const name = w.dist.deviceCookieName(owner.ownerId, 'Jane@Example.com');
    expect(name).toBe(w.dist.deviceCookieName(owner.ownerId, 'jane@example.com'));
    expect(name).not.toBe(w.dist.deviceCookieName(other.ownerId, 'jane@example.com'));
    expect(name).toMatch(/^__Host-device-[A-Za-z0-9_-]{16}$/);
    expect(w.dist.DEVICE_COOKIE).toEqual({
      prefix: '__Host-device-',
      days: 30,
      perBrowser: 5,
      failureLimit: 5,
      perUser: 8,
      graceSeconds: 60,
    });
  });
});
