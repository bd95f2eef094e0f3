/**
 * The physical floor: each DynamoDB call an operation must make, sent with the SDK straight to
 * the same DynamoDB Local, and one hash with the chosen binding. No pipeline, no HTTP.
 */

import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../functions/shared/dynamodb';
import { PROFILE_SK, userKey, userPk } from '../functions/shared/table-layout';
import { CHOSEN, hashMsP50 } from './argon2';
import { median, round, timeEach } from './stats';

export interface Floor {
  readonly hash_ms_p50: number;
  readonly put_ms_p50: number;
  readonly update_ms_p50: number;
  readonly query_ms_p50: number;
  readonly delete_ms_p50: number;
}

/** A PHC string of the right length, so items weigh what the service's weigh. */
const FAKE_HASH = `$argon2id$v=19$m=19456,t=2,p=1$${'a'.repeat(22)}$${'b'.repeat(43)}`;

export async function measureFloor(endpoint: string, usersTableName: string, runs = 200): Promise<Floor> {
  const db = createDocumentClient({ endpoint });
  const ownerId = `floor-${randomUUID()}`;
  const email = (i: number) => `floor-${i + 10}@example.com`;
  const now = () => new Date().toISOString();

  // Same item, condition and expressions as the repository's createUser / setPasswordHash / listUserItems / deleteProfile.
  const put = (i: number) =>
    db.send(
      new PutCommand({
        TableName: usersTableName,
        Item: {
          ...userKey(ownerId, email(i)),
          owner_id: ownerId,
          user_email: email(i),
          password_hash: FAKE_HASH,
          should_reset_password: false,
          created_at: now(),
          updated_at: now(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  const putMs = await timeEach(runs, put);
  const updateMs = await timeEach(runs, (i) =>
    db.send(
      new UpdateCommand({
        TableName: usersTableName,
        Key: userKey(ownerId, email(Math.max(i, 0))),
        UpdateExpression: 'SET password_hash = :hash, updated_at = :at',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(white_label)',
        ExpressionAttributeValues: { ':hash': FAKE_HASH, ':at': now() },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  const queryMs = await timeEach(runs, (i) =>
    db.send(
      new QueryCommand({
        TableName: usersTableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': userPk(ownerId, email(Math.max(i, 0))) },
        ProjectionExpression: 'sk, white_label',
        ConsistentRead: true,
      }),
    ),
  );
  const deleteMs = await timeEach(
    runs,
    (i) =>
      db.send(
        new DeleteCommand({
          TableName: usersTableName,
          Key: { pk: userPk(ownerId, email(i)), sk: PROFILE_SK },
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(white_label)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    0,
  );
  db.destroy();
  return {
    hash_ms_p50: round(await hashMsP50(CHOSEN, 40)),
    put_ms_p50: round(median(putMs), 3),
    update_ms_p50: round(median(updateMs), 3),
    query_ms_p50: round(median(queryMs), 3),
    delete_ms_p50: round(median(deleteMs), 3),
  };
}
