import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Refusal, UserItems, UserRecord, UserStore } from '#domain/users';
import type { DocumentClient } from './client';
import { collectionItems, deleteCollectionItems } from './item-collections';
import { LEGACY_FAILED_SIGN_INS_ATTRIBUTE, PROFILE_SK, REHASHED_AT_ATTRIBUTE, userKey, userPk } from './table-layout';

/** Tells a refused conditional write apart from the item it found (ALL_OLD), without a second read. */
const refusal = (error: ConditionalCheckFailedException): Refusal => {
  const old = error.Item ? unmarshall(error.Item as never) : undefined;
  return old?.white_label ? 'white_label' : 'not_found';
};

/**
 * One conditional put of a new user's profile; false when the e-mail already exists in this owner's tool.
 * Each call tags its item with a random id and asks for the found item on refusal: an item with this
 * call's id means the SDK retried a put whose response was lost, and the user is ours. The import
 * (user-transfer-store.ts) creates its users with it too.
 */
export async function putNewUser(db: DocumentClient, Users: string, user: UserRecord): Promise<boolean> {
  const at = new Date().toISOString();
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
          created_at: user.createdAt ?? at,
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
}

/**
 * The users table behind the domain's {@link UserStore} port: one conditional write per change. A delete
 * erases the user's partition of the sign-in table (`signInTableName`: its failed attempts and whatever
 * else its sign-ins keep) with the associated items, before the profile.
 */
export function createUsersStore(db: DocumentClient, tableName: string, signInTableName: string): UserStore {
  const Users = tableName;
  const now = () => new Date().toISOString();
  return {
    /** One conditional put; false when the e-mail already exists in this owner's tool ({@link putNewUser}). */
    createUser: (user: UserRecord) => putNewUser(db, Users, user),

    /** One conditional update that refuses unknown users and white-label users alike. */
    async setPasswordHash(ownerId: string, email: string, passwordHash: string): Promise<'updated' | Refusal> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: Users,
            Key: userKey(ownerId, email),
            // A new hash voids the sign-in's count, counted against the old one (sign-in-attempts.ts): a reset
            // ends a lockout. The mark of a sign-in's rehash goes, or the stream's filter would drop this change.
            UpdateExpression: `SET password_hash = :hash, updated_at = :at REMOVE ${REHASHED_AT_ATTRIBUTE}, ${LEGACY_FAILED_SIGN_INS_ATTRIBUTE}`,
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

    /**
     * Deletes items of the collection, 25 a batch, retrying what DynamoDB leaves unprocessed; and the user's
     * items in the sign-in table, found by one consistent Query of its partition (the same partition key).
     */
    async deleteUserItems(ownerId: string, email: string, sortKeys: readonly string[]): Promise<void> {
      const pk = userPk(ownerId, email);
      const signInItems = await collectionItems(db, signInTableName, pk, 'sk');
      await deleteCollectionItems(
        db,
        signInTableName,
        pk,
        signInItems.map((item) => item.sk as string),
      );
      await deleteCollectionItems(db, Users, pk, sortKeys);
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
  };
}
