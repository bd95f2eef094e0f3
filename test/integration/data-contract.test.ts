/**
 * docs/data-contract.md, followed step by step as the tool's engineers would: find the owner id,
 * write associated items under the documented key, delete the user through the API and find them
 * gone; sign in with the module and honour should_reset_password with the documented calls.
 */

import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hash, verify } from '@node-rs/argon2';
import { formatArgon2Setting } from '#platform/config';
import { localConnection } from '#store/client';
import { processStores } from '#store/stores';
import { createSignIn } from '../../packages/sign-in/src/index';
import { apiClient } from '../support/http-client';
import { newOwner, startLocalServer, uniqueEmail } from '../support/local';
import { plainOutcomes } from '../support/sign-in-results';

const { config, stores } = processStores();

const db = stores.client;
const usersTable = config.usersTableName;
const { argon2 } = config;
const ownersTable = config.ownersTableName;
let server: Awaited<ReturnType<typeof startLocalServer>>;
let api: ReturnType<typeof apiClient>;
let owner: { ownerEmail: string; apiKey: string };
let ownerId: string;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await newOwner('contract');
  api = apiClient(server.baseUrl, owner.apiKey);
  // Section 1: the owner id, from the owners table.
  const { Item } = await db.send(new GetCommand({ TableName: ownersTable, Key: { pk: `OWNER#${owner.ownerEmail}` } }));
  ownerId = Item!.owner_id as string;
});
afterAll(async () => server.close());

const collection = async (pk: string) =>
  (await db.send(new QueryCommand({ TableName: usersTable, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } })))
    .Items ?? [];

/** The documented write: a ConditionCheck that the profile exists, and the item. */
const writeAssociated = (pk: string, sk: string, attributes: Record<string, unknown>) =>
  db.send(
    new TransactWriteCommand({
      TransactItems: [
        { ConditionCheck: { TableName: usersTable, Key: { pk, sk: 'PROFILE' }, ConditionExpression: 'attribute_exists(pk)' } },
        { Put: { TableName: usersTable, Item: { pk, sk, ...attributes } } },
      ],
    }),
  );

describe('the data contract', () => {
  it('associated items written under the documented key are deleted with the user', async () => {
    const email = uniqueEmail('jane');
    expect((await api('/v1/createUser', { user_email: ` ${email.toUpperCase()}`, user_password: 'janes password' })).status).toBe(200);
    const pk = `${ownerId}#${email}`;
    await writeAssociated(pk, 'DOC#2026-03-01#42', { title: 'Q1 report' });
    await writeAssociated(pk, 'PREFS', { theme: 'dark' });
    await writeAssociated(pk, 'FILE#invoice-7.pdf', { bytes: 1024 });
    expect((await collection(pk)).map((item) => item.sk).sort()).toEqual(['DOC#2026-03-01#42', 'FILE#invoice-7.pdf', 'PREFS', 'PROFILE']);

    expect((await api('/v1/deleteUser', { user_email: email })).status).toBe(200);
    expect(await collection(pk)).toEqual([]);

    // And the documented condition keeps data from being written for a user who is gone.
    await expect(writeAssociated(pk, 'DOC#late', { title: 'too late' })).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(await collection(pk)).toEqual([]);
  });

  it('the sign-in module answers must-reset for a flagged user, and the documented update stores the new password', async () => {
    const email = uniqueEmail('sign-in');
    expect(
      (await api('/v1/createUser', { user_email: email, user_password: 'initial password', should_reset_password: 'true' })).status,
    ).toBe(200);
    const key = { pk: `${ownerId}#${email}`, sk: 'PROFILE' };
    const { Item: profile } = await db.send(new GetCommand({ TableName: usersTable, Key: key, ConsistentRead: true }));
    expect(profile!.password_hash).toMatch(
      new RegExp(`^\\$argon2id\\$v=19\\$${formatArgon2Setting(argon2)}\\$[A-Za-z0-9+/]+\\$[A-Za-z0-9+/]+$`),
    );
    expect(profile!.should_reset_password).toBe(true);
    // Section 2: the module, built from the stack outputs.
    const users = plainOutcomes(
      createSignIn({
        usersTable,
        signInTable: process.env.SIGN_IN_TABLE_NAME!,
        argon2Setting: formatArgon2Setting(argon2),
        dynamodb: localConnection(process.env.DYNAMODB_ENDPOINT!),
      }),
    );
    expect(await users.signIn({ ownerId, email, password: 'a wrong password' })).toEqual({ outcome: 'wrong' });
    expect(await users.signIn({ ownerId, email, password: 'initial password' })).toEqual({ outcome: 'must-reset' });

    // The documented reset at sign-in: new hash and cleared flag in one conditional update.
    // At the stage's own setting (the stack's output Argon2Setting; ARGON2_SETTING locally), as the service hashes.
    const passwordHash = await hash('chosen at sign-in'.normalize('NFC'), { algorithm: 2, ...argon2 });
    await db.send(
      new UpdateCommand({
        TableName: usersTable,
        Key: key,
        UpdateExpression: 'SET password_hash = :hash, should_reset_password = :false, updated_at = :now REMOVE failed_sign_ins',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(white_label)',
        ExpressionAttributeValues: { ':hash': passwordHash, ':false': false, ':now': new Date().toISOString() },
      }),
    );
    const { Item: after } = await db.send(new GetCommand({ TableName: usersTable, Key: key, ConsistentRead: true }));
    expect(after!.should_reset_password).toBe(false);
    expect(await verify(after!.password_hash as string, 'chosen at sign-in')).toBe(true);
    expect(await users.signIn({ ownerId, email, password: 'chosen at sign-in' })).toEqual({ outcome: 'ok' });
    // The service's own reset still works on the result, and leaves the flag alone.
    expect((await api('/v1/resetUserPassword', { user_email: email, new_password: 'reset by the owner' })).status).toBe(200);
    const { Item: reset } = await db.send(new GetCommand({ TableName: usersTable, Key: key, ConsistentRead: true }));
    expect(await verify(reset!.password_hash as string, 'reset by the owner')).toBe(true);
    expect(reset!.should_reset_password).toBe(false);
  });

  it('the owner account is flagged white_label and cannot be reset through the documented update', async () => {
    const key = { pk: `${ownerId}#${owner.ownerEmail}`, sk: 'PROFILE' };
    const { Item } = await db.send(new GetCommand({ TableName: usersTable, Key: key, ConsistentRead: true }));
    expect(Item!.white_label).toBe(true);
    await expect(
      db.send(
        new UpdateCommand({
          TableName: usersTable,
          Key: key,
          UpdateExpression: 'SET should_reset_password = :false',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(white_label)',
          ExpressionAttributeValues: { ':false': false },
        }),
      ),
    ).rejects.toThrow();
  });
});
