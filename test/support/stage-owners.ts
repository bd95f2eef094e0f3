/**
 * Keys the contract suite cannot get over HTTP (a key limited to other operations, revoked, past its
 * expiry, a key whose owner account is gone, an owner with blocked words), made in the target's own tables: DynamoDB Local when the suite runs
 * locally, the stage's tables (USERS_TABLE_NAME, OWNERS_TABLE_NAME, with the operator's AWS
 * credentials, as for the admin CLI) when TEST_TARGET=staging. Every key made here is revoked by
 * `revokeAll`.
 */

import { randomBytes } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { digestApiKey } from '#domain/api-keys';
import { createOwner, issueKey, type KeyScope, revokeKey, setPasswordPolicy } from '#domain/owners';
import { DEFAULT_ARGON2_SETTING, readPasswordPolicy } from '#platform/config';
import { createDocumentClient } from '#store/client';
import { createStores, processStores, type Stores } from '#store/stores';
import { apiKeyKey, userKey } from '#store/table-layout';

let cached: { stores: Stores; usersTableName: string; ownersTableName: string } | undefined;

function stageStores() {
  if (cached) return cached;
  if (process.env.TEST_TARGET !== 'staging') {
    const { config, stores } = processStores();
    cached = { stores, usersTableName: config.usersTableName, ownersTableName: config.ownersTableName };
    return cached;
  }
  const usersTableName = process.env.USERS_TABLE_NAME;
  const ownersTableName = process.env.OWNERS_TABLE_NAME;
  if (!usersTableName || !ownersTableName) throw new Error('This row needs USERS_TABLE_NAME and OWNERS_TABLE_NAME (see docs/deploy.md)');
  // The idempotency table is never touched from here.
  const stores = createStores(
    { usersTableName, ownersTableName, idempotencyTableName: 'unused', signInTableName: process.env.SIGN_IN_TABLE_NAME ?? 'unused' },
    createDocumentClient(),
  );
  cached = { stores, usersTableName, ownersTableName };
  return cached;
}

const issued: string[] = [];

/** Another key of an existing owner, with this scope. */
export async function scopedKey(ownerEmail: string, scope: KeyScope): Promise<string> {
  const key = await issueKey(stageStores().stores.owners, ownerEmail, scope);
  issued.push(key.key_id);
  return key.api_key;
}

/** A key of an existing owner, revoked before it was ever used (so no function has it cached). */
export async function revokedKey(ownerEmail: string): Promise<string> {
  const key = await issueKey(stageStores().stores.owners, ownerEmail);
  await revokeKey(stageStores().stores.owners, key.key_id);
  return key.api_key;
}

/** A key of an existing owner whose expiry has passed: issued to expire tomorrow, then its stored expiry set an hour back. */
export async function expiredKey(ownerEmail: string): Promise<string> {
  const { stores, ownersTableName } = stageStores();
  const key = await issueKey(stores.owners, ownerEmail, { expiresAt: new Date(Date.now() + 86_400_000).toISOString() });
  issued.push(key.key_id);
  await stores.client.send(
    new UpdateCommand({
      TableName: ownersTableName,
      Key: apiKeyKey(digestApiKey(key.api_key)),
      UpdateExpression: 'SET expires_at = :past',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':past': new Date(Date.now() - 3_600_000).toISOString() },
    }),
  );
  return key.api_key;
}

/** A fresh owner whose policy blocks these words, and its key (never used before the policy was set). */
export async function ownerWithBlockedWords(runPrefix: string, blockedWords: readonly string[]): Promise<string> {
  const { stores } = stageStores();
  const email = `${runPrefix}-words-owner-${randomBytes(4).toString('hex')}@example.com`;
  const passwords = { passwordPolicy: readPasswordPolicy(), argon2: DEFAULT_ARGON2_SETTING };
  const key = await createOwner(stores.owners, email, passwords);
  issued.push(key.key_id);
  await setPasswordPolicy(stores.owners, email, { blockedWords }, passwords);
  return key.api_key;
}

/** A valid key of a fresh owner whose own (white-label) account has then been removed. */
export async function keyWithoutOwnerAccount(runPrefix: string): Promise<string> {
  const { stores, usersTableName } = stageStores();
  const email = `${runPrefix}-gone-owner-${randomBytes(4).toString('hex')}@example.com`;
  // The account's random password is hashed at the default setting: the account is removed right below.
  const key = await createOwner(stores.owners, email, { passwordPolicy: readPasswordPolicy(), argon2: DEFAULT_ARGON2_SETTING });
  issued.push(key.key_id);
  const owner = await stores.owners.findOwner(email);
  await stores.client.send(new DeleteCommand({ TableName: usersTableName, Key: userKey(owner!.ownerId, email) }));
  return key.api_key;
}

/**
 * A key of a fresh owner whose password policy is `change`, set before the key is first used (so no
 * warm key cache holds the owner without it), as `admin set-password-policy` sets it.
 */
export async function keyOfOwnerWithPolicy(
  runPrefix: string,
  change: { minLength?: number; blockedWords?: readonly string[] },
): Promise<{ apiKey: string; ownerEmail: string }> {
  const { stores } = stageStores();
  const email = `${runPrefix}-policy-owner-${randomBytes(4).toString('hex')}@example.com`;
  const passwords = { passwordPolicy: readPasswordPolicy(), argon2: DEFAULT_ARGON2_SETTING };
  const key = await createOwner(stores.owners, email, passwords);
  issued.push(key.key_id);
  await setPasswordPolicy(stores.owners, email, change, passwords);
  return { apiKey: key.api_key, ownerEmail: email };
}

/** Revokes every key made here. */
export async function revokeAll(): Promise<void> {
  if (!cached) return;
  for (const keyId of issued.splice(0)) await revokeKey(cached.stores.owners, keyId);
}
