/** The sign-in store's counting writes (sign-in-store.ts): an untrusted attempt on the state's item, a trusted one on its device's record. */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DocumentClient } from '@white-label-user-management/shared/store/client';
import { deviceKey, signInStateKey } from '@white-label-user-management/shared/store/table-layout';
import type { SignInStore } from '../domain/sign-in';
import { DEVICE_FAILURE_LIMIT } from '../domain/trusted-devices';
import { DEVICE, NAMES, retryingConflicts, stateOf } from './sign-in-items';

/** Counts on the sign-in table: the {@link SignInStore} port's `count` and `countTrusted`. */
export function createSignInCounts(db: DocumentClient, signInTable: string): Pick<SignInStore, 'count' | 'countTrusted'> {
  return {
    /**
     * One UpdateItem on the state's item, on condition that it holds exactly the state read: the
     * upsert is the same for a known and an unknown e-mail (only the TTL differs: set for the one, removed
     * for the other). On refusal the item found comes back with the error (ALL_OLD): no second read.
     */
    async count(ownerId, email, expected, next) {
      try {
        await retryingConflicts(() =>
          db.send(
            new UpdateCommand({
              TableName: signInTable,
              Key: signInStateKey(ownerId, email),
              UpdateExpression:
                next.expiresAt === undefined
                  ? 'SET #failures = :failures, #wait = :wait, #tag = :tag REMOVE #expires'
                  : 'SET #failures = :failures, #wait = :wait, #tag = :tag, #expires = :expires',
              ConditionExpression:
                expected === undefined ? 'attribute_not_exists(pk)' : '#failures = :was_failures AND #wait = :was_wait AND #tag = :was_tag',
              ExpressionAttributeNames: NAMES,
              ExpressionAttributeValues: {
                ':failures': next.failures,
                ':wait': next.waitUntil,
                ':tag': next.tag,
                ...(next.expiresAt !== undefined && { ':expires': next.expiresAt }),
                ...(expected !== undefined && {
                  ':was_failures': expected.failures,
                  ':was_wait': expected.waitUntil,
                  ':was_tag': expected.tag,
                }),
              },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          ),
        );
        return { counted: true };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        return { counted: false, found: stateOf(error.Item ? unmarshall(error.Item as never) : undefined) };
      }
    },

    /**
     * One UpdateItem on the device's record, apart from the untrusted state: one more failure, on condition
     * that it holds the digest, is under its limit and unexpired. No other device's failures are involved.
     */
    async countTrusted(ownerId, email, device, now, previous = false) {
      try {
        await retryingConflicts(() =>
          db.send(
            new UpdateCommand({
              TableName: signInTable,
              Key: deviceKey(ownerId, email, device.deviceId),
              // The previous cookie's one attempt: counted as the device's, and the grace ended in the same write.
              UpdateExpression: previous ? 'ADD #failures :one REMOVE #was, #until' : 'ADD #failures :one',
              ConditionExpression: previous
                ? '#was = :digest AND #until > :now_ms AND #failures < :limit AND #expires > :now'
                : '#digest = :digest AND #failures < :limit AND #expires > :now',
              ExpressionAttributeNames: {
                '#failures': DEVICE.failures,
                '#expires': DEVICE.expiresAt,
                ...(previous ? { '#was': DEVICE.previousDigest, '#until': DEVICE.previousUntil } : { '#digest': DEVICE.digest }),
              },
              ExpressionAttributeValues: {
                ':one': 1,
                ':digest': device.secretDigest,
                ':limit': DEVICE_FAILURE_LIMIT,
                ':now': Math.floor(now / 1000),
                ...(previous && { ':now_ms': now }),
              },
            }),
          ),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
