import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, paginateQuery, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { OperationName } from '#contract/operations';
import type { ApiKeyRecord, OwnerAccount, OwnerRecord, OwnerStore } from '#domain/owners';
import type { OwnerPasswordPolicy } from '#domain/password-policy';
import type { DocumentClient } from './client';
import { allItems } from './item-collections';
import { fromPasswordPolicy, PASSWORD_POLICY_ATTRIBUTE, toPasswordPolicy } from './owner-policy-item';
import {
  API_KEY_PK_PREFIX,
  apiKeyKey,
  KEY_LAST_USED_ATTRIBUTE,
  LEGACY_FAILED_SIGN_INS_ATTRIBUTE,
  OWNERS_TABLE,
  ownerKey,
  ownerPolicyKey,
  REHASHED_AT_ATTRIBUTE,
  userKey,
} from './table-layout';

/**
 * The owners table behind the domain's {@link OwnerStore} port: owners, their API keys (by
 * digest), and the owner's own account, which lives in the users table as a white-label user.
 */
export function createOwnersStore(db: DocumentClient, tables: { usersTableName: string; ownersTableName: string }): OwnerStore {
  const Users = tables.usersTableName;
  const Owners = tables.ownersTableName;
  const now = () => new Date().toISOString();

  /** API keys whose `attribute` is `value`, through the owners-table index keyed on it (the admin CLI's look-ups). */
  const queryKeyIndex = async (attribute: 'owner_email' | 'key_id', value: string) => {
    const index = OWNERS_TABLE.globalSecondaryIndexes.find((i) => i.partitionKey.name === attribute)!;
    const items = await allItems(
      paginateQuery(
        { client: db },
        {
          TableName: Owners,
          IndexName: index.indexName,
          KeyConditionExpression: '#attribute = :value',
          ExpressionAttributeNames: { '#attribute': attribute },
          ExpressionAttributeValues: { ':value': value },
        },
      ),
    );
    return items.map(toApiKey);
  };

  return {
    /**
     * The owner's own account (the white-label user), with the password policy stored on it: the
     * one read that tells whether the owner still exists brings its policy along.
     */
    async findOwnerAccount(ownerId: string, ownerEmail: string): Promise<OwnerAccount | undefined> {
      const { Item } = await db.send(
        new GetCommand({
          TableName: Users,
          Key: userKey(ownerId, ownerEmail),
          ProjectionExpression: 'white_label, #policy',
          ExpressionAttributeNames: { '#policy': PASSWORD_POLICY_ATTRIBUTE },
        }),
      );
      if (Item?.white_label !== true) return undefined;
      const policy = toPasswordPolicy(Item[PASSWORD_POLICY_ATTRIBUTE]);
      return policy ? { passwordPolicy: policy } : {};
    },

    /**
     * Replaces the policy on the owner's own account, and its copy beside the owner's users that the
     * sign-in module reads (it knows the owner's id, not its e-mail), in one transaction. Touches no
     * password: the change stream sees no password change and no lifecycle event follows.
     */
    async setOwnerPasswordPolicy(ownerId: string, ownerEmail: string, policy: OwnerPasswordPolicy): Promise<void> {
      const stored = fromPasswordPolicy(policy);
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: Users,
                Key: userKey(ownerId, ownerEmail),
                UpdateExpression: 'SET #policy = :policy',
                ConditionExpression: 'white_label = :yes',
                ExpressionAttributeNames: { '#policy': PASSWORD_POLICY_ATTRIBUTE },
                ExpressionAttributeValues: { ':policy': stored, ':yes': true },
              },
            },
            { Put: { TableName: Users, Item: { ...ownerPolicyKey(ownerId), [PASSWORD_POLICY_ATTRIBUTE]: stored } } },
          ],
        }),
      );
    },

    /**
     * One conditional UpdateItem on the white-label user: the new hash (which voids the sign-in's count of
     * failures, counted against the old one: sign-in-attempts.ts), and the mark of a sign-in's rehash removed.
     */
    async setOwnerPasswordHash(ownerId: string, ownerEmail: string, passwordHash: string): Promise<boolean> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: Users,
            Key: userKey(ownerId, ownerEmail),
            UpdateExpression: `SET password_hash = :hash, updated_at = :at REMOVE ${REHASHED_AT_ATTRIBUTE}, ${LEGACY_FAILED_SIGN_INS_ATTRIBUTE}`,
            ConditionExpression: 'white_label = :yes',
            ExpressionAttributeValues: { ':hash': passwordHash, ':at': now(), ':yes': true },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },

    /**
     * One strongly consistent GetItem by digest: the functions remember a refusal for a while, so
     * a key issued a moment ago must not read as unknown. Rare (answers are cached), so cheap.
     */
    async findApiKey(digest: string): Promise<ApiKeyRecord | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: Owners, Key: apiKeyKey(digest), ConsistentRead: true }));
      return Item && toApiKey(Item);
    },

    async findOwner(ownerEmail: string): Promise<OwnerRecord | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: Owners, Key: ownerKey(ownerEmail), ConsistentRead: true }));
      return Item && { ownerId: Item.owner_id, ownerEmail: Item.owner_email, createdAt: Item.created_at };
    },

    /**
     * Creates an owner, its own account (a white-label user of its own tool) and
     * its first key in one transaction; false when the owner already exists.
     */
    async createOwner(owner: OwnerRecord, account: { passwordHash: string }, key: ApiKeyRecord): Promise<boolean> {
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: Owners,
                  Item: {
                    ...ownerKey(owner.ownerEmail),
                    owner_id: owner.ownerId,
                    owner_email: owner.ownerEmail,
                    created_at: owner.createdAt,
                  },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              {
                Put: {
                  TableName: Users,
                  Item: {
                    ...userKey(owner.ownerId, owner.ownerEmail),
                    owner_id: owner.ownerId,
                    user_email: owner.ownerEmail,
                    password_hash: account.passwordHash,
                    should_reset_password: false,
                    white_label: true,
                    created_at: owner.createdAt,
                    updated_at: owner.createdAt,
                  },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              { Put: { TableName: Owners, Item: fromApiKey(key), ConditionExpression: 'attribute_not_exists(pk)' } },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') {
          return false;
        }
        throw error;
      }
    },

    async putApiKey(key: ApiKeyRecord): Promise<void> {
      await db.send(new PutCommand({ TableName: Owners, Item: fromApiKey(key), ConditionExpression: 'attribute_not_exists(pk)' }));
    },

    async listApiKeys(ownerEmail: string): Promise<ApiKeyRecord[]> {
      return queryKeyIndex('owner_email', ownerEmail);
    },

    async findApiKeyById(keyId: string): Promise<ApiKeyRecord | undefined> {
      return (await queryKeyIndex('key_id', keyId))[0];
    },

    async revokeApiKey(digest: string): Promise<void> {
      await db.send(
        new UpdateCommand({
          TableName: Owners,
          Key: apiKeyKey(digest),
          UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :at)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': now() },
        }),
      );
    },

    /**
     * One conditional UpdateItem that only ever moves last_used_at forward to `hour`: when the
     * stored hour is current (another function wrote it) or the key is gone, nothing is written.
     * It touches no attribute but last_used_at, which the functions' IAM policy enforces.
     */
    async recordKeyUse(digest: string, hour: string): Promise<void> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: Owners,
            Key: apiKeyKey(digest),
            UpdateExpression: 'SET #used = :hour',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#used) OR #used < :hour)',
            ExpressionAttributeNames: { '#used': KEY_LAST_USED_ATTRIBUTE },
            ExpressionAttributeValues: { ':hour': hour },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
  };
}

const toApiKey = (item: Record<string, unknown>): ApiKeyRecord => ({
  digest: (item.pk as string).slice(API_KEY_PK_PREFIX.length),
  keyId: item.key_id as string,
  ownerId: item.owner_id as string,
  ownerEmail: item.owner_email as string,
  createdAt: item.created_at as string,
  ...(typeof item.revoked_at === 'string' && { revokedAt: item.revoked_at }),
  // Items written before keys had scopes carry neither attribute: every operation, no expiry.
  ...(Array.isArray(item.operations) && { operations: item.operations as OperationName[] }),
  ...(item.expires_at !== undefined && { expiresAt: String(item.expires_at) }),
  ...(typeof item[KEY_LAST_USED_ATTRIBUTE] === 'string' && { lastUsedAt: item[KEY_LAST_USED_ATTRIBUTE] }),
});

const fromApiKey = (key: ApiKeyRecord) => ({
  ...apiKeyKey(key.digest),
  key_id: key.keyId,
  owner_id: key.ownerId,
  owner_email: key.ownerEmail,
  created_at: key.createdAt,
  ...(key.operations && { operations: [...key.operations] }),
  ...(key.expiresAt !== undefined && { expires_at: key.expiresAt }),
});
