/**
 * A changed descriptor reaches a running tool without a redeploy: a sign-in built with
 * `createSignIn({ descriptor: descriptorFromFile(...) })` from a `.data/sign-in.json`-style file, on
 * DynamoDB Local, keeps the argon2id setting it read while the loader's cache is fresh, and upgrades a
 * user's hash to the new setting once the file changed and the re-read interval passed (the loader's
 * clock, injected). A file that becomes unreadable keeps the last good descriptor.
 */

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { formatArgon2Setting, OWASP_ARGON2ID_SETTINGS } from '#platform/config';
import { localConnection } from '#store/client';
import { processStores } from '#store/stores';
import { handler as createUser } from '../../functions/createUser/handler';
import { describeStage, type SignInDescriptor } from '../../packages/sign-in/src/descriptor';
import { createSignIn, descriptorFromFile, type SignIn } from '../../packages/sign-in/src/index';
import { invoke } from '../support/events';
import { newOwner, uniqueEmail } from '../support/local';
import { plainOutcomes } from '../support/sign-in-results';

const { config, stores } = processStores();
const endpoint = process.env.DYNAMODB_ENDPOINT!;
const db = DynamoDBDocumentClient.from(new DynamoDBClient(localConnection(endpoint)));
/** The re-read interval the package's README and the data contract state (the loader's default). */
const DOCUMENTED_MAX_AGE_MS = 60_000;
const stageSetting = formatArgon2Setting(config.argon2);
/** Another of OWASP's five: the setting the stage moves to. */
const newSetting = formatArgon2Setting(OWASP_ARGON2ID_SETTINGS.find((s) => formatArgon2Setting(s) !== stageSetting)!);

const dir = mkdtempSync(join(tmpdir(), 'descriptor-reload-'));
const file = join(dir, '.data/sign-in.json');
let clock = Date.now();
let base: SignInDescriptor;
let ownerId: string;
let ownerApiKey: string;
let users: SignIn;

/** Writes the descriptor file as npm start does (mode 0600), with `argon2Setting` set. */
function writeDescriptor(argon2Setting: string) {
  writeFileSync(file, `${JSON.stringify({ ...base, argon2Setting }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** The argon2id parameters of the user's stored hash (`m=...,t=...,p=...`). */
async function storedSetting(email: string): Promise<string> {
  const { Item } = await db.send(
    new GetCommand({ TableName: config.usersTableName, Key: { pk: `${ownerId}#${email}`, sk: 'PROFILE' }, ConsistentRead: true }),
  );
  return /^\$argon2id\$v=19\$(m=\d+,t=\d+,p=\d+)\$/.exec(Item!.password_hash as string)![1]!;
}

beforeAll(async () => {
  mkdirSync(join(dir, '.data'));
  const owner = await newOwner('descriptor-reload');
  ownerId = (await stores.owners.findOwner(owner.ownerEmail))!.ownerId;
  const arn = async (TableName: string) => (await db.send(new DescribeTableCommand({ TableName }))).Table!.TableArn!;
  base = describeStage({
    stage: 'local',
    region: localConnection(endpoint).region,
    endpoint,
    usersTable: { name: config.usersTableName, arn: await arn(config.usersTableName) },
    signInTable: { name: config.signInTableName, arn: await arn(config.signInTableName) },
    argon2Setting: stageSetting,
    passwordPolicy: config.passwordPolicy,
    breachCheck: null,
    baseUrl: 'http://127.0.0.1:3000',
  });
  writeDescriptor(stageSetting);
  users = plainOutcomes(createSignIn({ descriptor: descriptorFromFile(file, { now: () => clock }) }));
  ownerApiKey = owner.apiKey;
});

afterAll(async () => {
  await users.close();
  rmSync(dir, { recursive: true, force: true });
});

const create = async (email: string, password: string) =>
  expect((await invoke(createUser, { user_email: email, user_password: password }, ownerApiKey)).status).toBe(200);

describe('a new argon2id setting in the descriptor file', () => {
  it(`is used by the running sign-in once the file changed and ${DOCUMENTED_MAX_AGE_MS / 1000} s passed, not before, with no new createSignIn`, async () => {
    expect(newSetting).not.toBe(stageSetting);
    const [early, late] = [uniqueEmail('reload-early'), uniqueEmail('reload-late')];
    await create(early, 'the first passphrase');
    await create(late, 'the second passphrase');
    expect([await storedSetting(early), await storedSetting(late)]).toEqual([stageSetting, stageSetting]);

    // The descriptor as read: a sign-in at the stage's own setting leaves the hash alone.
    expect(await users.signIn({ ownerId, email: early, password: 'the first passphrase' })).toEqual({ outcome: 'ok' });
    expect(await storedSetting(early)).toBe(stageSetting);

    // The stage moves to another setting; within the cache the module still holds the one it read.
    writeDescriptor(newSetting);
    clock += DOCUMENTED_MAX_AGE_MS - 1;
    expect(await users.signIn({ ownerId, email: early, password: 'the first passphrase' })).toEqual({ outcome: 'ok' });
    expect(await storedSetting(early)).toBe(stageSetting);

    // Past the interval the file is read again: the next successful sign-in upgrades the hash to the new setting.
    clock += 1;
    expect(await users.signIn({ ownerId, email: late, password: 'the second passphrase' })).toEqual({ outcome: 'ok' });
    expect(await storedSetting(late)).toBe(newSetting);
    expect(await users.signIn({ ownerId, email: early, password: 'the first passphrase' })).toEqual({ outcome: 'ok' });
    expect(await storedSetting(early)).toBe(newSetting);
  });

  it('a file that became unreadable keeps the last good descriptor: sign-ins go on at the setting last read', async () => {
    const email = uniqueEmail('reload-broken');
    await create(email, 'a third passphrase');
    writeFileSync(file, '{ "descriptorVersion": 1, "stage": ');
    clock += DOCUMENTED_MAX_AGE_MS;
    expect(await users.signIn({ ownerId, email, password: 'a third passphrase' })).toEqual({ outcome: 'ok' });
    expect(await storedSetting(email)).toBe(newSetting);
  });
});
