import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  paginateQuery,
  paginateScan,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { CollectionEraser, Deletion, DeletionLedger } from './deletions';
import type { DocumentClient } from './dynamodb';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyStore } from './idempotency';
import type { ApiKeyRecord, OwnerRecord, OwnerStore } from './owners';
import type { OperationName } from './schemas';
import {
  API_KEY_PK_PREFIX,
  apiKeyKey,
  DELETIONS_TABLE,
  IDEMPOTENCY_TABLE,
  idempotencyRecordKey,
  KEY_LAST_USED_ATTRIBUTE,
  OWNERS_TABLE,
  ownerKey,
  PROFILE_SK,
  userKey,
  userPk,
} from './table-layout';
import type { Refusal, UserItems, UserRecord, UserStore } from './users';

const BATCH_SIZE = 25;
const BATCHES_IN_FLIGHT = 4;

/** All DynamoDB access: the adapter behind the domain's two ports, {@link UserStore} and {@link OwnerStore}. */
export function createRepository(db: DocumentClient, tables: { usersTableName: string; ownersTableName: string }): Repository {
  const Users = tables.usersTableName;
  const Owners = tables.ownersTableName;
  const now = () => new Date().toISOString();

  /** Tells a refused conditional write apart from the item it found (ALL_OLD), without a second read. */
  const refusal = (error: ConditionalCheckFailedException): Refusal => {
    const old = error.Item ? unmarshall(error.Item as never) : undefined;
    return old?.white_label ? 'white_label' : 'not_found';
  };

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
     * One conditional put; false when the e-mail already exists in this owner's tool.
     * Each call tags its item with a random id and asks for the found item on refusal:
     * an item with this call's id means the SDK retried a put whose response was lost,
     * and the user is ours.
     */
    async createUser(user: UserRecord): Promise<boolean> {
      const at = now();
      const createId = randomUUID();
      try {
        await db.send(
          new PutCommand({
            TableName: Users,
            Item: {
              ...userKey(user.ownerId, user.email),
              owner_id: user.ownerId,
              user_email: user.email,
              password_hash: user.passwordHash,
              should_reset_password: user.shouldResetPassword,
              created_at: at,
              updated_at: at,
              create_id: createId,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) {
          return error.Item !== undefined && unmarshall(error.Item as never).create_id === createId;
        }
        throw error;
      }
    },

    /** One conditional update that refuses unknown users and white-label users alike. */
    async setPasswordHash(ownerId: string, email: string, passwordHash: string): Promise<'updated' | Refusal> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: Users,
            Key: userKey(ownerId, email),
            UpdateExpression: 'SET password_hash = :hash, updated_at = :at',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(white_label)',
            ExpressionAttributeValues: { ':hash': passwordHash, ':at': now() },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return 'updated';
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return refusal(error);
        throw error;
      }
    },

    /** The user's item collection in one consistent Query (paged): the profile's flags and the associated items' sort keys. */
    async listUserItems(ownerId: string, email: string): Promise<UserItems> {
      const items = await collectionItems(db, Users, userPk(ownerId, email), 'sk, white_label');
      const profile = items.find((item) => item.sk === PROFILE_SK);
      return {
        profileExists: profile !== undefined,
        whiteLabel: profile?.white_label === true,
        associatedItems: items.filter((item) => item !== profile).map((item) => item.sk as string),
      };
    },

    /** Deletes items of the collection, 25 a batch, retrying what DynamoDB leaves unprocessed. */
    async deleteUserItems(ownerId: string, email: string, sortKeys: readonly string[]): Promise<void> {
      await deleteCollectionItems(db, Users, userPk(ownerId, email), sortKeys);
    },

    /** Deletes the profile last, on condition, so a half-done delete leaves the user visible for a retry. */
    async deleteProfile(ownerId: string, email: string): Promise<'deleted' | Refusal> {
      try {
        await db.send(
          new DeleteCommand({
            TableName: Users,
            Key: userKey(ownerId, email),
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(white_label)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return 'deleted';
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return refusal(error);
        throw error;
      }
    },

    /** Whether the owner's own account (the white-label user) still exists. */
    async ownerAccountExists(ownerId: string, ownerEmail: string): Promise<boolean> {
      const { Item } = await db.send(
        new GetCommand({ TableName: Users, Key: userKey(ownerId, ownerEmail), ProjectionExpression: 'white_label' }),
      );
      return Item?.white_label === true;
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

/**
 * The idempotency records, on their own table (the {@link IdempotencyStore} port). Each case is one
 * call: the claim is a conditional put that hands back the live record it ran into (ALL_OLD), so
 * a replay, a 409 or a 422 costs that one write and no read.
 */
export function createIdempotencyStore(db: DocumentClient, tableName: string): IdempotencyStore {
  const ttl = IDEMPOTENCY_TABLE.timeToLiveAttribute!;
  const key = (claim: IdempotencyClaim) => idempotencyRecordKey(claim.ownerId, claim.keyDigest);
  return {
    async claimIdempotencyKey(claim, now) {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...key(claim),
              state: 'in_progress',
              fingerprint: claim.fingerprint,
              claim_id: claim.claimId,
              in_progress_until: claim.inProgressUntil,
              [ttl]: claim.expiresAt,
            },
            // DynamoDB's TTL deletes late (and DynamoDB Local never does): an expired record, or a
            // claim whose function is past its deadline, is taken over as if absent.
            ConditionExpression:
              'attribute_not_exists(pk) OR #ttl <= :nowSeconds OR (#state = :inProgress AND in_progress_until <= :nowMs)',
            ExpressionAttributeNames: { '#ttl': ttl, '#state': 'state' },
            ExpressionAttributeValues: {
              ':nowSeconds': Math.floor(now.getTime() / 1000),
              ':nowMs': now.getTime(),
              ':inProgress': 'in_progress',
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { claimed: true };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException && error.Item) {
          return { claimed: false, record: toIdempotencyRecord(unmarshall(error.Item as never)) };
        }
        throw error;
      }
    },

    async completeIdempotencyKey(claim, response) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key(claim),
            UpdateExpression:
              'SET #state = :completed, status_code = :status, sealed_body = :body, #ttl = :expiresAt REMOVE in_progress_until',
            ConditionExpression: 'claim_id = :claimId',
            ExpressionAttributeNames: { '#state': 'state', '#ttl': ttl },
            ExpressionAttributeValues: {
              ':completed': 'completed',
              ':status': response.statusCode,
              ':body': response.sealedBody,
              ':expiresAt': response.expiresAt,
              ':claimId': claim.claimId,
            },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },

    async releaseIdempotencyKey(claim) {
      try {
        await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: key(claim),
            ConditionExpression: 'claim_id = :claimId',
            ExpressionAttributeValues: { ':claimId': claim.claimId },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
  };
}

const toIdempotencyRecord = (item: Record<string, unknown>): IdempotencyRecord =>
  item.state === 'completed'
    ? {
        state: 'completed',
        fingerprint: item.fingerprint as string,
        statusCode: item.status_code as number,
        sealedBody: item.sealed_body as Uint8Array,
      }
    : { state: 'in_progress', fingerprint: item.fingerprint as string };

/** The DynamoDB repository: both ports in one object, one client. */
export type Repository = UserStore & OwnerStore;

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

/** Every item of a Query or Scan, page after page (the SDK's paginator follows LastEvaluatedKey). */
async function allItems(pages: AsyncIterable<{ Items?: Record<string, unknown>[] }>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
}

/** One user's item collection in a consistent Query, with only the `projection` attributes. */
const collectionItems = (db: DocumentClient, table: string, pk: string, projection: string) =>
  allItems(
    paginateQuery(
      { client: db },
      {
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: projection,
        ConsistentRead: true,
      },
    ),
  );

/** Deletes these items of one item collection, 25 a batch (four in flight), retrying what DynamoDB leaves unprocessed. */
async function deleteCollectionItems(db: DocumentClient, table: string, pk: string, sortKeys: readonly string[]): Promise<void> {
  const batches: string[][] = [];
  for (let i = 0; i < sortKeys.length; i += BATCH_SIZE) batches.push(sortKeys.slice(i, i + BATCH_SIZE));
  const deleteBatch = async (batch: string[]) => {
    let requests = batch.map((sk) => ({ DeleteRequest: { Key: { pk, sk } } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * 25 * 2 ** Math.min(attempt, 6)));
      if (attempt > 8) throw new Error('BatchWriteItem left items unprocessed after 8 retries');
      const result = await db.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (result.UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  };
  for (let i = 0; i < batches.length; i += BATCHES_IN_FLIGHT) {
    // Settle every batch in flight before failing, so no write outlives the request.
    const results = await Promise.allSettled(batches.slice(i, i + BATCHES_IN_FLIGHT).map(deleteBatch));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
  }
}

/**
 * The deletion ledger on its own table: one item per deletion, keyed by the user and the change
 * that deleted it, with `expires_at` (epoch seconds) for DynamoDB's TTL at the end of the
 * recovery window. The since() look-up scans: the ledger holds one recovery window of deletions.
 */
export function createDeletionLedger(db: DocumentClient, tableName: string, options: { retentionDays: number }): DeletionLedger {
  const ttl = DELETIONS_TABLE.timeToLiveAttribute!;
  const now = () => new Date().toISOString();
  return {
    async record(deletion: Deletion): Promise<void> {
      const expiresAt = Math.ceil(Date.parse(deletion.deletedAt) / 1000) + options.retentionDays * 86_400;
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            pk: userPk(deletion.ownerId, deletion.email),
            sk: `${deletion.deletedAt}#${deletion.changeId}`,
            owner_id: deletion.ownerId,
            user_email: deletion.email,
            deleted_at: deletion.deletedAt,
            // The stream's time of a delete may be early (to the second; DynamoDB Local: the minute);
            // the time it reached the ledger never is, so since() selects on this one.
            recorded_at: now(),
            change_id: deletion.changeId,
            [ttl]: expiresAt,
          },
        }),
      );
    },

    async since(since: string): Promise<Deletion[]> {
      const items = await allItems(
        paginateScan(
          { client: db },
          {
            TableName: tableName,
            // TTL deletes expired items some time after they expire; until then they are ignored here.
            FilterExpression: 'recorded_at >= :since AND #ttl > :now',
            ExpressionAttributeNames: { '#ttl': ttl },
            ExpressionAttributeValues: { ':since': since, ':now': Math.floor(Date.now() / 1000) },
            ConsistentRead: true,
          },
        ),
      );
      const deletions: Deletion[] = items.map((item) => ({
        ownerId: item.owner_id as string,
        email: item.user_email as string,
        deletedAt: item.deleted_at as string,
        changeId: item.change_id as string,
      }));
      return deletions.sort((a, b) => a.deletedAt.localeCompare(b.deletedAt));
    },
  };
}

/** Erases item collections of a users table (a restored copy, for restore safety), the profile last. */
export function createCollectionEraser(db: DocumentClient, usersTableName: string): CollectionEraser {
  return {
    async eraseUser(ownerId: string, email: string, deletedAt: string): Promise<number> {
      const pk = userPk(ownerId, email);
      const items = await collectionItems(db, usersTableName, pk, 'sk, created_at');
      const sortKeys = items.map((item) => item.sk as string);
      const createdAt = items.find((item) => item.sk === PROFILE_SK)?.created_at as string | undefined;
      // Created after that deletion: the user came back, and this collection is theirs now.
      if (createdAt !== undefined && Date.parse(createdAt) > Date.parse(deletedAt)) return 0;
      const associated = sortKeys.filter((sk) => sk !== PROFILE_SK);
      await deleteCollectionItems(db, usersTableName, pk, associated);
      if (associated.length < sortKeys.length) await deleteCollectionItems(db, usersTableName, pk, [PROFILE_SK]);
      return sortKeys.length;
    },
  };
}
