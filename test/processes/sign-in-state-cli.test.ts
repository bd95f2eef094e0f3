/**
 * `npm run admin -- sign-in-state <owner-email> <user-email>` against DynamoDB Local: one JSON line with
 * the count the module goes by (a count made against an older hash is none), the wait's end, the lock,
 * and the trusted devices; the same keys for an e-mail no user has.
 */

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from '@jest/globals';
import { formatArgon2Setting } from '#platform/config';
import { FREE_FAILURES, hashTag, NO_PROFILE_TAG, UNTRUSTED_FAILURE_LIMIT } from '#sign-in/domain/sign-in-attempts';
import { localConnection } from '#store/client';
import { processStores } from '#store/stores';
import { signInStateKey, userKey } from '#store/table-layout';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as resetUserPassword } from '../../functions/resetUserPassword/handler';
import { createSignIn, type SignInResult } from '../../packages/sign-in/src/index';
import { invoke } from '../support/events';
import { newOwner, uniqueEmail } from '../support/local';
import { runScript } from '../support/processes';

const { config, stores } = processStores();
const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
/** A tool's sign-in on the test's DynamoDB Local; its clock, set in the past (the CLI reads the real one) and moved forward. */
let clock = Date.now();
const tool = createSignIn({
  usersTable: config.usersTableName,
  signInTable: config.signInTableName,
  argon2Setting: formatArgon2Setting(config.argon2),
  dynamodb: localConnection(process.env.DYNAMODB_ENDPOINT!),
  now: () => clock,
});
afterAll(() => tool.close());
/** The cookie a success issued: its device's id (before the first dot), and its expiry. */
const issued = (result: SignInResult) => {
  if (result.outcome !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return { cookie: result.deviceCookie, deviceId: result.deviceCookie.split('.')[0]!, expiresAt: result.deviceCookieExpiresAt };
};
const stateOf = async (ownerEmail: string, email: string) => {
  const run = await runScript('admin/cli.ts', ['sign-in-state', ownerEmail, email], env);
  expect([run.code, run.stderr]).toEqual([0, '']);
  expect(run.stdout.split('\n')).toHaveLength(2);
  return JSON.parse(run.stdout) as Record<string, unknown>;
};
/** Writes the e-mail's sign-in state as the module would have left it. */
const writeState = (ownerId: string, email: string, failures: number, waitUntil: number, tag: string) =>
  stores.client.send(
    new PutCommand({
      TableName: config.signInTableName,
      Item: { ...signInStateKey(ownerId, email), failures, wait_until: waitUntil, hash_tag: tag },
    }),
  );

describe('admin sign-in-state', () => {
  it('prints the failures in force, the wait, the lock and the devices; an unknown e-mail in the same shape', async () => {
    const owner = await newOwner('state');
    const ownerId = (await stores.owners.findOwner(owner.ownerEmail))!.ownerId;
    const [known, unknown] = [uniqueEmail('state-known'), uniqueEmail('state-unknown')];
    expect((await invoke(createUser, { user_email: known, user_password: 'the known password' }, owner.apiKey)).status).toBe(200);
    const hash = (await stores.client.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(ownerId, known) }))).Item!
      .password_hash as string;

    const fresh = await stateOf(owner.ownerEmail, known);
    expect(fresh).toEqual({
      owner_email: owner.ownerEmail,
      user_email: known,
      consecutive_failures: 0,
      wait_until: null,
      locked: false,
      trusted_devices: { count: 0, devices: [] },
    });

    const waitUntil = Date.now() + 600_000;
    await writeState(ownerId, known, 7, waitUntil, hashTag(hash));
    expect(await stateOf(owner.ownerEmail, known.toUpperCase())).toMatchObject({
      consecutive_failures: 7,
      wait_until: new Date(waitUntil).toISOString(),
      locked: false,
    });

    await writeState(ownerId, known, UNTRUSTED_FAILURE_LIMIT, 0, hashTag(hash));
    expect(await stateOf(owner.ownerEmail, known)).toMatchObject({
      consecutive_failures: UNTRUSTED_FAILURE_LIMIT,
      wait_until: null,
      locked: true,
    });

    // A reset makes another hash: the count made against the old one is none, as the module sees it.
    expect((await invoke(resetUserPassword, { user_email: known, new_password: 'a brand new passphrase' }, owner.apiKey)).status).toBe(200);
    expect(await stateOf(owner.ownerEmail, known)).toMatchObject({ consecutive_failures: 0, locked: false });

    await writeState(ownerId, unknown, 6, waitUntil, NO_PROFILE_TAG);
    const stranger = await stateOf(owner.ownerEmail, unknown);
    expect(Object.keys(stranger)).toEqual(Object.keys(fresh));
    expect(stranger).toEqual({
      owner_email: owner.ownerEmail,
      user_email: unknown,
      consecutive_failures: 6,
      wait_until: new Date(waitUntil).toISOString(),
      locked: false,
      trusted_devices: { count: 0, devices: [] },
    });
  }, 120_000);

  it('lists the devices whose cookie signs the user in: how many, each id, first and last sign-in and expiry, last used first', async () => {
    const owner = await newOwner('state-devices');
    const ownerId = (await stores.owners.findOwner(owner.ownerEmail))!.ownerId;
    const email = uniqueEmail('state-devices');
    const password = 'the devices password';
    expect((await invoke(createUser, { user_email: email, user_password: password }, owner.apiKey)).status).toBe(200);
    const signIn = (deviceCookie?: string) =>
      tool.signIn({ ownerId, email, password, ...(deviceCookie !== undefined && { deviceCookie }) });

    // Two browsers sign in (a minute apart); then the first again, with its cookie: its device's last sign-in moves, not its first.
    const start = Date.now() - 600_000;
    clock = start;
    const laptop = issued(await signIn());
    clock = start + 60_000;
    const phone = issued(await signIn());
    clock = start + 120_000;
    const laptopAgain = issued(await signIn(laptop.cookie));
    expect([laptopAgain.deviceId, phone.deviceId === laptop.deviceId]).toEqual([laptop.deviceId, false]);

    const iso = (at: number) => new Date(at).toISOString();
    expect((await stateOf(owner.ownerEmail, email.toUpperCase())).trusted_devices).toEqual({
      count: 2,
      devices: [
        {
          device_id: laptop.deviceId,
          first_signed_in_at: iso(start),
          last_signed_in_at: iso(start + 120_000),
          expires_at: laptopAgain.expiresAt,
        },
        {
          device_id: phone.deviceId,
          first_signed_in_at: iso(start + 60_000),
          last_signed_in_at: iso(start + 60_000),
          expires_at: phone.expiresAt,
        },
      ],
    });

    // A reset voids every cookie: the records are still there, but none signs in any more, so none is listed.
    expect((await invoke(resetUserPassword, { user_email: email, new_password: 'a reset passphrase' }, owner.apiKey)).status).toBe(200);
    expect((await stateOf(owner.ownerEmail, email)).trusted_devices).toEqual({ count: 0, devices: [] });
  }, 120_000);

  it('revoke-devices signs a user out everywhere, or from one device: {"revoked":N}; a revoked cookie then waits like none', async () => {
    const owner = await newOwner('revoke-devices');
    const ownerId = (await stores.owners.findOwner(owner.ownerEmail))!.ownerId;
    const email = uniqueEmail('revoke-devices');
    const password = 'the revoked password';
    expect((await invoke(createUser, { user_email: email, user_password: password }, owner.apiKey)).status).toBe(200);
    const signIn = (attempt: string, deviceCookie?: string) =>
      tool.signIn({ ownerId, email, password: attempt, ...(deviceCookie !== undefined && { deviceCookie }) });
    const revoke = async (...args: string[]) => {
      const run = await runScript('admin/cli.ts', ['revoke-devices', owner.ownerEmail, ...args], env);
      expect([run.code, run.stderr]).toEqual([0, '']);
      expect(run.stdout.split('\n')).toHaveLength(2);
      return JSON.parse(run.stdout) as unknown;
    };
    const listed = async () => ((await stateOf(owner.ownerEmail, email)).trusted_devices as { devices: { device_id: string }[] }).devices;

    clock = Date.now() - 600_000;
    const laptop = issued(await signIn(password));
    clock += 60_000;
    const phone = issued(await signIn(password));
    expect((await listed()).map((device) => device.device_id)).toEqual([phone.deviceId, laptop.deviceId]);
    // A stranger's guesses make the account wait: only a trusted device still signs in.
    for (let guess = 0; guess <= FREE_FAILURES; guess++) expect((await signIn(`guess ${guess}`)).outcome).toBe('wrong');
    expect((await signIn(password)).outcome).toBe('throttled');

    expect(await revoke(email.toUpperCase(), '--device', phone.deviceId)).toEqual({ revoked: 1 });
    expect((await listed()).map((device) => device.device_id)).toEqual([laptop.deviceId]);
    expect((await signIn(password, phone.cookie)).outcome).toBe('throttled');
    const laptopAgain = issued(await signIn(password, laptop.cookie));
    expect(await revoke(email, '--device', phone.deviceId)).toEqual({ revoked: 0 });

    expect(await revoke(email)).toEqual({ revoked: 1 });
    expect(await listed()).toEqual([]);
    expect((await signIn(password, laptopAgain.cookie)).outcome).toBe('throttled');
    expect(await revoke(email)).toEqual({ revoked: 0 });
    expect(await revoke(uniqueEmail('revoke-nobody'))).toEqual({ revoked: 0 });
  }, 120_000);

  it('revoke-devices refuses what it cannot run in one line, exit 2, and a failure exit 1', async () => {
    const owner = await newOwner('revoke-refused');
    const cases: [string[], RegExp][] = [
      [[owner.ownerEmail], /^usage: npm run admin -- revoke-devices /],
      [[owner.ownerEmail, 'a@example.com', 'extra'], /^usage: npm run admin -- revoke-devices /],
      [[owner.ownerEmail, 'a@example.com', '--device'], /^usage: npm run admin -- revoke-devices /],
      [[owner.ownerEmail, 'a@example.com', '--device', 'DEVICE#x'], /^--device takes a device id /],
      [[owner.ownerEmail, 'not-an-email'], /^Invalid e-mail address "not-an-email"$/m],
      [['not-an-owner', 'a@example.com'], /^Invalid e-mail address "not-an-owner"$/m],
      [[uniqueEmail('no-owner'), 'a@example.com'], /^No owner /],
    ];
    for (const [args, message] of cases) {
      const run = await runScript('admin/cli.ts', ['revoke-devices', ...args], env);
      expect([run.code, run.stdout, run.stderr.split('\n').length]).toEqual([2, '', 2]);
      expect(run.stderr).toMatch(message);
    }
    const unreachable = await runScript('admin/cli.ts', ['revoke-devices', owner.ownerEmail, 'a@example.com'], {
      ...env,
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    });
    expect([unreachable.code, unreachable.stdout, unreachable.stderr]).toEqual([
      1,
      '',
      expect.stringMatching(/^Cannot reach DynamoDB at http:\/\/127\.0\.0\.1:9 .*\n$/),
    ]);
  }, 60_000);

  it('refuses a command line it cannot run, in one line, exit 2', async () => {
    const missing = await runScript('admin/cli.ts', ['sign-in-state', 'dev-owner@example.com'], env);
    expect([missing.code, missing.stderr.split('\n').length]).toEqual([2, 2]);
    expect(missing.stderr).toMatch(/^usage: npm run admin -- sign-in-state/);
    const noOwner = await runScript('admin/cli.ts', ['sign-in-state', uniqueEmail('no-owner'), 'a@example.com'], env);
    expect([noOwner.code, noOwner.stderr]).toEqual([2, expect.stringMatching(/^No owner .*\n$/)]);
  }, 60_000);
});
