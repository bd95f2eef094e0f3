/**
 * Sessions that end (packages/sign-in/src/domain/sessions.ts, docs/adr/0033-sessions-that-end.md), through the
 * sign-in package's entry on DynamoDB Local, on users the service stored, with a fake clock: checkSession
 * answers `ended` after an API reset, a deletion (and for a re-created user), an owner's reset of its own
 * account, a change of password from another session, a revocation of the user's devices (all, or the
 * session's own), and past the lifetime; `valid` otherwise (a wrong attempt, another device's sign-in, a
 * rehash); a forged value, another user's or owner's, a value of another type is `ended`; and each
 * answer takes one DynamoDB call, cold process or warm.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { resetOwnerPassword } from '#domain/owners';
import { formatArgon2Setting } from '#platform/config';
import { checkSession as checkSessionRule } from '#sign-in/domain/sessions';
import { createSignInStore } from '#sign-in/store/sign-in-store';
import { localConnection } from '#store/client';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as deleteUser } from '../../functions/deleteUser/handler';
import { handler as resetUserPassword } from '../../functions/resetUserPassword/handler';
import { createSignIn, SESSION } from '../../packages/sign-in/src/index';
import { ownerWithId } from '../hardening/support/world';
import { invoke } from '../support/events';
import { uniqueEmail } from '../support/local';

const { config, stores } = processStores();
const endpoint = process.env.DYNAMODB_ENDPOINT!;
let clock = Date.now();
const tool = createSignIn({
  usersTable: config.usersTableName,
  signInTable: config.signInTableName,
  argon2Setting: formatArgon2Setting(config.argon2),
  dynamodb: localConnection(endpoint),
  now: () => clock,
});

type Owner = Awaited<ReturnType<typeof ownerWithId>>;
let owner: Owner;
let other: Owner;
beforeAll(async () => {
  [owner, other] = await Promise.all([ownerWithId('sessions'), ownerWithId('sessions-other')]);
});
afterAll(() => tool.close());

const PASSWORD = 'a long enough passphrase 1';
const create = async (email: string, as = owner) =>
  expect((await invoke(createUser, { user_email: email, user_password: PASSWORD }, as.apiKey)).status).toBe(200);
/** A session the user starts with a sign-in (a fresh device, or the one `deviceCookie` names). */
async function start(email: string, as = owner, deviceCookie?: string, on = tool) {
  const result = await on.signIn({ ownerId: as.ownerId, email, password: PASSWORD, ...(deviceCookie && { deviceCookie }) });
  if (result.outcome !== 'ok') throw new Error(`sign-in answered ${result.outcome}`);
  return result;
}
const check = (email: string, session: unknown, as = owner, on = tool) => on.checkSession({ ownerId: as.ownerId, email, session });
const valid = { outcome: 'valid' };
const ended = { outcome: 'ended' };

describe('checkSession ends a session', () => {
  it('after an API reset, and stays ended; a session started after it is valid', async () => {
    const email = uniqueEmail('reset');
    await create(email);
    const { session } = await start(email);
    expect(await check(email, session)).toEqual(valid);
    expect((await invoke(resetUserPassword, { user_email: email, new_password: PASSWORD }, owner.apiKey)).status).toBe(200);
    expect(await check(email, session)).toEqual(ended);
    const again = await start(email);
    expect(await check(email, again.session)).toEqual(valid);
    expect(await check(email, session)).toEqual(ended);
  });

  it('after the user is deleted, also once a user with the same e-mail is created again', async () => {
    const email = uniqueEmail('deleted');
    await create(email);
    const { session } = await start(email);
    expect((await invoke(deleteUser, { user_email: email }, owner.apiKey)).status).toBe(200);
    expect(await check(email, session)).toEqual(ended);
    await create(email);
    expect(await check(email, session)).toEqual(ended);
    expect(await check(email, (await start(email)).session)).toEqual(valid);
  });

  it("after admin reset-owner-password, on the owner's own account", async () => {
    const own = await ownerWithId('sessions-own');
    const first = await resetOwnerPassword(stores.owners, own.ownerEmail, config);
    const signedIn = await tool.signIn({ ownerId: own.ownerId, email: own.ownerEmail, password: first.password });
    if (signedIn.outcome !== 'ok') throw new Error(signedIn.outcome);
    expect(await check(own.ownerEmail, signedIn.session, own)).toEqual(valid);
    await resetOwnerPassword(stores.owners, own.ownerEmail, config);
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
    clock += SESSION.lifetimeHours * 3_600_000 - 1_000;
    expect(await check(email, session)).toEqual(valid);
    clock += 1_000;
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
    await stores.client.send(
      new UpdateCommand({
        TableName: config.usersTableName,
        Key: userKey(owner.ownerId, email),
        UpdateExpression: 'SET password_hash = :hash',
        ExpressionAttributeValues: { ':hash': bcrypt.hashSync(PASSWORD, 4) },
      }),
    );
    const rehashed = await start(email, owner, first.deviceCookie);
    const { Item } = await stores.client.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(owner.ownerId, email) }));
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
    const sent: string[] = [];
    const client = DynamoDBDocumentClient.from(new DynamoDBClient(localConnection(endpoint)));
    client.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(String(context.commandName));
        return next(args);
      },
      { step: 'finalizeRequest', name: 'countCommands' },
    );
    // A process that has not read the owner's key yet: the module's own store, on a client that counts.
    const store = createSignInStore(client, { usersTable: config.usersTableName, signInTable: config.signInTableName });
    const checkWith = async (input: { email: string; session: unknown }) => {
      sent.length = 0;
      const result = await checkSessionRule({ store, now: () => clock }, { ownerId: owner.ownerId, ...input });
      return { result, sent: [...sent] };
    };
    try {
      const one = ['BatchGetItemCommand'];
      expect(await checkWith({ email, session })).toEqual({ result: valid, sent: one });
      expect(await checkWith({ email, session })).toEqual({ result: valid, sent: one });
      expect(await checkWith({ email: uniqueEmail('nobody'), session })).toEqual({ result: ended, sent: one });
      expect(await checkWith({ email, session: `${session.slice(0, -8)}AAAAAAAA` })).toEqual({
        result: ended,
        sent: one,
      });
      expect(await checkWith({ email, session: 42 })).toEqual({ result: ended, sent: [] });
    } finally {
      client.destroy();
    }
  });
});
