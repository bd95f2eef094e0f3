import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AttemptStart, SignInStore } from '#domain/sign-in';
import type { DocumentClient } from './client';
import { FAILED_SIGN_INS_ATTRIBUTE, REHASHED_AT_ATTRIBUTE, userKey } from './table-layout';

/** The users table behind the domain's {@link SignInStore} port: one UpdateItem to count an attempt, one to settle it. */
export function createSignInStore(db: DocumentClient, tableName: string): SignInStore {
  return {
    /**
     * One UpdateItem: ADD 1 to the count unless it has reached `limit`, answering with the profile
     * it counted on (ALL_NEW, a consistent read in the same call). A refusal brings the found item
     * back (ALL_OLD): none, the e-mail is unknown; one, the account is locked.
     */
    async startAttempt(ownerId: string, email: string, limit: number): Promise<AttemptStart> {
      try {
        const { Attributes: item } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: userKey(ownerId, email),
            UpdateExpression: 'ADD #failed :one',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#failed) OR #failed < :limit)',
            ExpressionAttributeNames: { '#failed': FAILED_SIGN_INS_ATTRIBUTE },
            ExpressionAttributeValues: { ':one': 1, ':limit': limit },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { profile: { passwordHash: String(item?.password_hash), shouldResetPassword: item?.should_reset_password === true } };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return { refused: error.Item ? 'locked' : 'unknown' };
        throw error;
      }
    },

    /** One conditional UpdateItem: the count removed and, for an upgrade, the new hash and its mark. */
    async succeed(ownerId: string, email: string, verifiedHash: string, upgradedHash?: string): Promise<boolean> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: userKey(ownerId, email),
            UpdateExpression: `REMOVE #failed${upgradedHash === undefined ? '' : ' SET password_hash = :new, #rehashed = :at'}`,
            ConditionExpression: 'password_hash = :verified',
            ExpressionAttributeNames: {
              '#failed': FAILED_SIGN_INS_ATTRIBUTE,
              ...(upgradedHash !== undefined && { '#rehashed': REHASHED_AT_ATTRIBUTE }),
            },
            ExpressionAttributeValues: {
              ':verified': verifiedHash,
              ...(upgradedHash !== undefined && { ':new': upgradedHash, ':at': new Date().toISOString() }),
            },
          }),
        );
        return true;
      } catch (error) {
        // A reset (or another sign-in's upgrade) came in between: it cleared the count or wins.
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
