/** The three handlers in-process on DynamoDB Local: what they store, and the cases HTTP cannot reach from outside. */

import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { revokeKey } from '#domain/owners';
import { hashPassword, verifyPassword } from '#domain/passwords';
import { formatArgon2Setting, parseArgon2Setting } from '#platform/config';
import { processStores } from '#store/stores';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as deleteUser } from '../../functions/deleteUser/handler';
import { handler as resetUserPassword } from '../../functions/resetUserPassword/handler';
import { invoke } from '../support/events';
import { type DynamoOperation, injectFault } from '../support/faults';
import { newOwner, uniqueEmail } from '../support/local';

const { config, stores } = processStores();
const { client } = stores;
const Users = config.usersTableName;

async function ownerIdOf(ownerEmail: string) {
  return (await stores.owners.findOwner(ownerEmail))!.ownerId;
}

async function profile(ownerEmail: string, email: string) {
  const { Item } = await client.send(
    new GetCommand({ TableName: Users, Key: { pk: `${await ownerIdOf(ownerEmail)}#${email}`, sk: 'PROFILE' } }),
  );
  return Item;
}

/** Makes every call of `operation` fail, once `failAfter` of them succeeded, with an error no retry cures; returns the remover. */
function failCommand(operation: DynamoOperation, failAfter = 0) {
  const fault = injectFault(client, { operation, kind: 'rejected', skip: failAfter });
  return () => fault.remove();
}

let removeFault: (() => void) | undefined;
afterEach(() => {
  removeFault?.();
  removeFault = undefined;
});

describe('createUser', () => {
  it('stores an argon2id hash of the password, the flag, and no password', async () => {
    const owner = await newOwner();
    const email = uniqueEmail();
    const response = await invoke(
      createUser,
      { user_email: email, user_password: 'correct horse battery', should_reset_password: 'true' },
      owner.apiKey,
    );
    expect(response).toEqual({ status: 200, body: { user_email: email, user_password: 'correct horse battery' } });
    const item = (await profile(owner.ownerEmail, email))!;
    // At the deployment's setting (ARGON2_SETTING), named in the PHC string.
    expect(item.password_hash.startsWith(`$argon2id$v=19$${formatArgon2Setting(config.argon2)}$`)).toBe(true);
    expect(await verifyPassword(item.password_hash, 'correct horse battery')).toBe(true);
    expect(item.should_reset_password).toBe(true);
    expect(JSON.stringify(item)).not.toContain('correct horse battery');
    expect(item.white_label).toBeUndefined();
  });

  it('stores should_reset_password false by default, and for "false" and false', async () => {
    const owner = await newOwner();
    for (const body of [{}, { should_reset_password: 'false' }, { should_reset_password: false }, { should_reset_password: true }]) {
      const email = uniqueEmail();
      expect(await invoke(createUser, { user_email: email, ...body }, owner.apiKey)).toEqual({
        status: 200,
        body: { user_email: email, user_password: expect.any(String) },
      });
      expect((await profile(owner.ownerEmail, email))!.should_reset_password).toBe(body.should_reset_password === true);
    }
  });

  it('a generated password is the one stored', async () => {
    const owner = await newOwner();
    const email = uniqueEmail();
    const response = await invoke(createUser, { user_email: email }, owner.apiKey);
    expect(await verifyPassword((await profile(owner.ownerEmail, email))!.password_hash, response.body.user_password as string)).toBe(true);
  });

  it('a storage failure: 500 Failed to create user, and nothing stored', async () => {
    const owner = await newOwner();
    await invoke(createUser, { user_email: uniqueEmail() }, owner.apiKey); // warm the key cache
    const email = uniqueEmail();
    removeFault = failCommand('PutItem');
    expect(await invoke(createUser, { user_email: email }, owner.apiKey)).toEqual({
      status: 500,
      body: { message: MESSAGES.createFailed },
    });
    removeFault();
    expect(await profile(owner.ownerEmail, email)).toBeUndefined();
    expect(await invoke(createUser, { user_email: email, user_password: 'after the failure' }, owner.apiKey)).toEqual({
      status: 200,
      body: { user_email: email, user_password: 'after the failure' },
    });
  });
});

describe('resetUserPassword', () => {
  it('replaces the hash and leaves should_reset_password as it was', async () => {
    const owner = await newOwner();
    const email = uniqueEmail();
    await invoke(createUser, { user_email: email, user_password: 'first password', should_reset_password: true }, owner.apiKey);
    const response = await invoke(resetUserPassword, { user_email: email.toUpperCase(), new_password: 'second password' }, owner.apiKey);
    expect(response).toEqual({ status: 200, body: { message: MESSAGES.passwordReset } });
    const item = (await profile(owner.ownerEmail, email))!;
    expect(await verifyPassword(item.password_hash, 'second password')).toBe(true);
    expect(await verifyPassword(item.password_hash, 'first password')).toBe(false);
    expect(item.should_reset_password).toBe(true);
  });

  it('a storage failure: 500 Failed to reset password., the old password kept', async () => {
    const owner = await newOwner();
    const email = uniqueEmail();
    await invoke(createUser, { user_email: email, user_password: 'first password' }, owner.apiKey);
    removeFault = failCommand('UpdateItem');
    expect(await invoke(resetUserPassword, { user_email: email, new_password: 'second password' }, owner.apiKey)).toEqual({
      status: 500,
      body: { message: MESSAGES.resetFailed },
    });
    removeFault();
    expect(await verifyPassword((await profile(owner.ownerEmail, email))!.password_hash, 'first password')).toBe(true);
  });
});

describe('deleteUser', () => {
  async function userWithData(ownerEmail: string, apiKey: string, items: number) {
    const email = uniqueEmail();
    await invoke(createUser, { user_email: email }, apiKey);
    const pk = `${await ownerIdOf(ownerEmail)}#${email}`;
    await Promise.all(
      Array.from({ length: items }, (_, i) =>
        client.send(new PutCommand({ TableName: Users, Item: { pk, sk: `DATA#${i}`, note: `item ${i}` } })),
      ),
    );
    return { email, pk };
  }
  const collection = async (pk: string) =>
    (
      await client.send(
        new QueryCommand({ TableName: Users, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }),
      )
    ).Items ?? [];

  it('deletes the user and its 30 associated items', async () => {
    const owner = await newOwner();
    const { email, pk } = await userWithData(owner.ownerEmail, owner.apiKey, 30);
    expect(await collection(pk)).toHaveLength(31);
    expect(await invoke(deleteUser, { user_email: email }, owner.apiKey)).toEqual({ status: 200, body: { message: MESSAGES.userDeleted } });
    expect(await collection(pk)).toHaveLength(0);
  });

  it('a delete that fails half way leaves the user visible, and a retry finishes the job', async () => {
    const owner = await newOwner();
    const { email, pk } = await userWithData(owner.ownerEmail, owner.apiKey, 50);
    // Two batches of 25, in flight together: the first to reach DynamoDB goes through, the other fails.
    // Half the data is gone (whichever half), the profile is not.
    removeFault = failCommand('BatchWriteItem', 1);
    expect(await invoke(deleteUser, { user_email: email }, owner.apiKey)).toEqual({
      status: 500,
      body: { message: MESSAGES.deleteFailed },
    });
    removeFault();
    const left = await collection(pk);
    expect(left).toHaveLength(26);
    expect(left.filter((item) => item.sk === 'PROFILE')).toHaveLength(1);
    // Still a user: reset works, create collides.
    expect(await invoke(resetUserPassword, { user_email: email, new_password: 'still here' }, owner.apiKey)).toEqual({
      status: 200,
      body: { message: MESSAGES.passwordReset },
    });
    expect(await invoke(createUser, { user_email: email }, owner.apiKey)).toEqual({ status: 409, body: { message: MESSAGES.userExists } });

    expect(await invoke(deleteUser, { user_email: email }, owner.apiKey)).toEqual({ status: 200, body: { message: MESSAGES.userDeleted } });
    expect(await collection(pk)).toHaveLength(0);
  });

  it('a failure deleting the profile itself: 500, associated data gone, the user still there for a retry', async () => {
    const owner = await newOwner();
    const { email, pk } = await userWithData(owner.ownerEmail, owner.apiKey, 3);
    removeFault = failCommand('DeleteItem');
    expect(await invoke(deleteUser, { user_email: email }, owner.apiKey)).toEqual({
      status: 500,
      body: { message: MESSAGES.deleteFailed },
    });
    removeFault();
    expect((await collection(pk)).map((item) => item.sk)).toEqual(['PROFILE']);
    expect(await invoke(deleteUser, { user_email: email }, owner.apiKey)).toEqual({ status: 200, body: { message: MESSAGES.userDeleted } });
    expect(await collection(pk)).toHaveLength(0);
  });
});

describe('keys and owners', () => {
  it('a valid key whose owner account no longer exists: 403 on all three operations', async () => {
    const owner = await newOwner();
    await client.send(
      new DeleteCommand({ TableName: Users, Key: { pk: `${await ownerIdOf(owner.ownerEmail)}#${owner.ownerEmail}`, sk: 'PROFILE' } }),
    );
    for (const [handler, body] of [
      [createUser, { user_email: uniqueEmail() }],
      [resetUserPassword, { user_email: uniqueEmail(), new_password: 'long enough' }],
      [deleteUser, { user_email: uniqueEmail() }],
    ] as const) {
      expect(await invoke(handler, body, owner.apiKey)).toEqual({ status: 403, body: { message: MESSAGES.noOwner } });
    }
  });

  it('a revoked key: 401 (this process has not cached it)', async () => {
    const owner = await newOwner();
    await revokeKey(stores.owners, owner.keyId);
    expect(await invoke(createUser, { user_email: uniqueEmail() }, owner.apiKey)).toEqual({
      status: 401,
      body: { message: MESSAGES.unauthorized },
    });
  });

  it('a storage failure during the key lookup: the operation failure message', async () => {
    const owner = await newOwner();
    removeFault = failCommand('GetItem');
    expect(await invoke(deleteUser, { user_email: uniqueEmail() }, owner.apiKey)).toEqual({
      status: 500,
      body: { message: MESSAGES.deleteFailed },
    });
  });
});

describe('resetUserPassword after a change of argon2id setting', () => {
  it('a hash made with the old setting (m=19456,t=2) still verifies, and a reset rewrites it with the current one', async () => {
    const owner = await newOwner();
    const email = uniqueEmail('old-setting');
    const oldSetting = parseArgon2Setting('m=19456,t=2,p=1', 'test');
    expect(oldSetting).not.toEqual(config.argon2);
    const oldHash = await hashPassword('stored long ago', oldSetting);
    await stores.users.createUser({ ownerId: await ownerIdOf(owner.ownerEmail), email, passwordHash: oldHash, shouldResetPassword: false });
    expect(await verifyPassword((await profile(owner.ownerEmail, email))!.password_hash, 'stored long ago')).toBe(true);

    expect(await invoke(resetUserPassword, { user_email: email, new_password: 'set with the new setting' }, owner.apiKey)).toEqual({
      status: 200,
      body: { message: MESSAGES.passwordReset },
    });
    const after = (await profile(owner.ownerEmail, email))!.password_hash as string;
    expect(after.startsWith(`$argon2id$v=19$${formatArgon2Setting(config.argon2)}$`)).toBe(true);
    expect(await verifyPassword(after, 'set with the new setting')).toBe(true);
  });
});
