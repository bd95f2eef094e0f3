import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyStore } from '#domain/idempotency';
import type { DocumentClient } from './client';
import { IDEMPOTENCY_TABLE, idempotencyRecordKey } from './table-layout';

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
