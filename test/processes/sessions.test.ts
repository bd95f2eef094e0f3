/**
 * Sessions that end (docs/adr/0033-sessions-that-end.md), through the built sign-in package on `npm start`'s
 * DynamoDB Local, with a fake clock (test/support/npm-start-world.ts): checkSession answers `ended` after a
 * reset through npm start's API, a deletion (and for a re-created user), `admin reset-owner-password` on an
 * owner's own account, a change of password from another session, a revocation of the user's devices (all,
 * or the session's own), and past the lifetime; `valid` otherwise (a wrong attempt, another device's
 * sign-in, a rehash); a forged value, another user's or owner's, a value of another type is `ended`; and
 * each answer takes one DynamoDB call, counted at the gate, cold process or warm.
 */

import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import type { SignIn } from '../../packages/sign-in/src/index';
import { uniqueEmail } from '../support/local';
import { type SignInWorld, startSignInWorld, type WorldOwner } from '../support/npm-start-world';

jest.setTimeout(60_000);
const { config } = processStores();
let w: SignInWorld;
let tool: SignIn;
let time: { now: number };
let owner: WorldOwner;
let other: WorldOwner;
beforeAll(async () => {
  w = await startSignInWorld('sessions');
  ({ tool, owner, clock: time } = w);
  other = await w.newOwner('sessions-other');
}, 300_000);
afterAll(() => w?.close());

const PASSWORD = 'a long enough passphrase 1';
const create = (email: string, as = owner) => w.create(email, PASSWORD, false, as);
/** A session the user starts with a sign-in (a fresh device, or the one `deviceCookie` names). */
async function start(email: string, as = owner, deviceCookie?: string) {
  const result = await w.signIn(email, PASSWORD, deviceCookie, as);
  if (result.outcome !== 'ok') throw new Error(`sign-in answered ${result.outcome}`);
  return result;
}
const check = (email: string, session: unknown, as = owner) => tool.checkSession({ ownerId: as.ownerId, email, session });
const valid = { outcome: 'valid' };
const ended = { outcome: 'ended' };

describe('checkSession ends a session', () => {
  it('after an API reset, and stays ended; a session started after it is valid', async () => {
    const email = uniqueEmail('reset');
    await create(email);
    const { session } = await start(email);
    expect(await check(email, session)).toEqual(valid);
    expect(await w.api('resetUserPassword', { user_email: email, new_password: PASSWORD })).toBe(200);
    expect(await check(email, session)).toEqual(ended);
    const again = await start(email);
    expect(await check(email, again.session)).toEqual(valid);
    expect(await check(email, session)).toEqual(ended);
  });

  it('after the user is deleted, also once a user with the same e-mail is created again', async () => {
    const email = uniqueEmail('deleted');
    await create(email);
    const { session } = await start(email);
    expect(await w.api('deleteUser', { user_email: email })).toBe(200);
    expect(await check(email, session)).toEqual(ended);
    await create(email);
    expect(await check(email, session)).toEqual(ended);
    expect(await check(email, (await start(email)).session)).toEqual(valid);
  });

  it("after admin reset-owner-password, on the owner's own account", async () => {
    const own = await w.newOwner('sessions-own');
    const password = await w.resetOwnerPassword(own.ownerEmail);
    const signedIn = await tool.signIn({ ownerId: own.ownerId, email: own.ownerEmail, password });
    if (signedIn.outcome !== 'ok') throw new Error(signedIn.outcome);
    expect(await check(own.ownerEmail, signedIn.session, own)).toEqual(valid);
    await w.resetOwnerPassword(own.ownerEmail);
    expect(await check(own.ownerEmail, signedIn.session, own)).toEqual(ended);
  });

  it('after a change of password from another session; the changing one goes on with the session `changed` returns', async () => {
    const email = uniqueEmail('changed');
    await create(email);
    const laptop = await start(email);
    const phone = await start(email);
    const changed = await tool.changePassword({
      ownerId: owner.ownerId,
      email,
      currentPassword: PASSWORD,
      newPassword: 'another passphrase entirely 2',
      deviceCookie: phone.deviceCookie,
    });
    if (changed.outcome !== 'changed') throw new Error(changed.outcome);
    expect(await check(email, laptop.session)).toEqual(ended);
    expect(await check(email, phone.session)).toEqual(ended);
    expect(await check(email, changed.session)).toEqual(valid);
  });

  it('after revokeDevices: one device ends its own session only; "sign out everywhere" ends them all', async () => {
    const email = uniqueEmail('revoked');
    await create(email);
    const laptop = await start(email);
    const phone = await start(email);
    const [device] = (await tool.listDevices({ ownerId: owner.ownerId, email })).filter((d) => laptop.session.startsWith(`${d.deviceId}.`));
    expect(await tool.revokeDevices({ ownerId: owner.ownerId, email, deviceId: device!.deviceId })).toBe(1);
    expect(await check(email, laptop.session)).toEqual(ended);
    expect(await check(email, phone.session)).toEqual(valid);
    const tablet = await start(email);
    expect(await tool.revokeDevices({ ownerId: owner.ownerId, email })).toBe(2);
    expect(await check(email, phone.session)).toEqual(ended);
    expect(await check(email, tablet.session)).toEqual(ended);
  });

  it('past its lifetime, not a second before', async () => {
    const email = uniqueEmail('lifetime');
    await create(email);
    const { session } = await start(email);
    time.now += w.dist.SESSION.lifetimeHours * 3_600_000 - 1_000;
    expect(await check(email, session)).toEqual(valid);
    time.now += 1_000;
    expect(await check(email, session)).toEqual(ended);
  });
});

describe('checkSession keeps a session', () => {
  it('through wrong attempts, other devices signing in, and a rehash of the same password', async () => {
    const email = uniqueEmail('kept');
    await create(email);
    const first = await start(email);
    expect((await tool.signIn({ ownerId: owner.ownerId, email, password: 'not the password at all' })).outcome).toBe('wrong');
    await start(email);
    // An imported bcrypt hash of the same password, upgraded by the next sign-in: a rehash, no change of password.
    await w.db.send(
      new UpdateCommand({
        TableName: config.usersTableName,
        Key: userKey(owner.ownerId, email),
        UpdateExpression: 'SET password_hash = :hash',
        ExpressionAttributeValues: { ':hash': bcrypt.hashSync(PASSWORD, 4) },
      }),
    );
    const rehashed = await start(email, owner, first.deviceCookie);
    const { Item } = await w.db.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(owner.ownerId, email) }));
    expect(Item?.password_hash).toMatch(/^\$argon2id\$/);
    expect(await check(email, first.session)).toEqual(valid);
    expect(await check(email, rehashed.session)).toEqual(valid);
  });
});

describe('checkSession is not fooled', () => {
  it("by a forged or damaged value, another user's, another owner's, or a value of another type", async () => {
    const [alice, bob] = [uniqueEmail('alice'), uniqueEmail('bob')];
    await Promise.all([create(alice), create(bob), create(alice, other)]);
    const { session } = await start(alice);
    const [deviceId, startAt, mac] = session.split('.') as [string, string, string];
    const flipped = `${mac.slice(0, 5)}${mac[5] === 'A' ? 'B' : 'A'}${mac.slice(6)}`;
    // The last character's unused low bits: the same bytes, another spelling, still not the value issued.
    // (16 bytes end in one of A, Q, g, w: the next letter decodes to the same bytes).
    const respelled = `${mac.slice(0, -1)}${String.fromCharCode(mac.charCodeAt(mac.length - 1) + 1)}`;
    expect(Buffer.from(respelled, 'base64url')).toEqual(Buffer.from(mac, 'base64url'));
    for (const forged of [
      `${deviceId}.${startAt}.${flipped}`,
      `${deviceId}.${startAt}.${respelled}`,
      // A later start under the same MAC: the lifetime cannot be stretched.
      `${deviceId}.${Number(startAt) + 3_600}.${mac}`,
      `${(await start(bob)).session.split('.')[0]}.${startAt}.${mac}`,
      `${session}x`,
      '',
      'x'.repeat(1_000_000),
    ])
      expect(await check(alice, forged)).toEqual(ended);
    expect(await check(bob, session)).toEqual(ended);
    expect(await check(alice, session, other)).toEqual(ended);
    expect(await check(alice, (await start(alice, other)).session)).toEqual(ended);
    for (const notString of [undefined, null, 42, { session }, [session], Buffer.from(session)])
      expect(await check(alice, notString)).toEqual(ended);
    expect(await check(` ${alice.toUpperCase()} `, session)).toEqual(valid);
  });
});

describe('one DynamoDB call', () => {
  it('for every answer to a value of the right shape, in a cold process (the owner key read with the rest) and a warm one; none for another shape', async () => {
    const email = uniqueEmail('calls');
    await create(email);
    const { session } = await start(email);
    // A tool's process that has not read the owner's key yet, its calls counted at the gate.
    const cold = w.newTool();
    const checkWith = async (input: { email: string; session: unknown }) => {
      w.gate.calls.length = 0;
      const result = await cold.checkSession({ ownerId: owner.ownerId, ...input });
      return { result, calls: [...w.gate.calls] };
    };
    // Cold, the one call reads the owner's key too (a third item); warm, the profile and the sign-in state.
    expect(await checkWith({ email, session })).toEqual({ result: valid, calls: ['BatchGetItem:3'] });
    const one = ['BatchGetItem:2'];
    expect(await checkWith({ email, session })).toEqual({ result: valid, calls: one });
    expect(await checkWith({ email: uniqueEmail('nobody'), session })).toEqual({ result: ended, calls: one });
    expect(await checkWith({ email, session: `${session.slice(0, -8)}AAAAAAAA` })).toEqual({ result: ended, calls: one });
    expect(await checkWith({ email, session: 42 })).toEqual({ result: ended, calls: [] });
  });
});
