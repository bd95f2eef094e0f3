/**
 * The SDK floor: each DynamoDB call an operation must make, sent with the service's own document
 * client (the very instance its stores use, so both go over the same connections) straight to the
 * same DynamoDB Local, and one hash at the service's setting. No pipeline, no HTTP. Sampled in
 * rounds, so that the benchmark interleaves them with the service's own requests and both meet the
 * same machine (other work on a shared machine comes and goes).
 */

import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Argon2Setting } from '#platform/config';
import type { DocumentClient } from '#store/client';
import { PROFILE_SK, userKey, userPk } from '#store/table-layout';
import { hashAt } from './argon2';
import { perSecond } from './stats';

/** Each back-to-back sample in the order taken, for pairing with the calls made beside them. */
export interface FloorSamples {
  readonly hashThenPut: readonly number[];
  readonly hashThenUpdate: readonly number[];
}

/** A PHC string of the right length, so items weigh what the service's weigh; canonical base64, as an import accepts it. */
export const FAKE_HASH = `$argon2id$v=19$m=7168,t=5,p=1$${'Q'.repeat(21)}A$${'Q'.repeat(42)}A`;

/** A user's profile item as the users store writes it (users-store.ts): keep them in step. */
export const profileItem = (ownerId: string, email: string, at = new Date().toISOString()) => ({
  ...userKey(ownerId, email),
  owner_id: ownerId,
  user_email: email,
  password_hash: FAKE_HASH,
  should_reset_password: false,
  created_at: at,
  updated_at: at,
  create_id: randomUUID(),
});

/** The users store's conditional create of `item`. */
export const conditionalPut = (db: DocumentClient, tableName: string, item: Record<string, unknown>) =>
  db.send(
    new PutCommand({
      TableName: tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );

export function floorProbe(db: DocumentClient, usersTableName: string, setting: Argon2Setting) {
  const ownerId = `floor-${randomUUID()}`;
  const email = (i: number) => `floor-${i}@example.com`;
  const now = () => new Date().toISOString();
  const backToBack = { hashThenPut: [] as number[], hashThenUpdate: [] as number[] };
  let next = 0;
  let lastPut = 0;
  /** Users put by hashThenPut, not yet deleted by queryThenDelete. */
  const putUsers: number[] = [];

  // The same requests the service sends (users-store.ts): keep them in step.
  const calls = {
    put: (i: number) => conditionalPut(db, usersTableName, profileItem(ownerId, email(i))),
    update: (i: number) =>
      db.send(
        new UpdateCommand({
          TableName: usersTableName,
          Key: userKey(ownerId, email(i)),
          UpdateExpression: 'SET password_hash = :hash, updated_at = :at',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(white_label)',
          ExpressionAttributeValues: { ':hash': FAKE_HASH, ':at': now() },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    query: (i: number) =>
      db.send(
        new QueryCommand({
          TableName: usersTableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': userPk(ownerId, email(i)) },
          ProjectionExpression: 'sk, white_label',
          ConsistentRead: true,
        }),
      ),
    delete: (i: number) =>
      db.send(
        new DeleteCommand({
          TableName: usersTableName,
          Key: { pk: userPk(ownerId, email(i)), sk: PROFILE_SK },
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(white_label)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    hash: () => hashAt(setting),
  };
  const timed = async (into: number[], work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    into.push(performance.now() - started);
  };

  return {
    /**
     * Warms DynamoDB Local (its JIT: a put takes twice as long in its first few thousand) with
     * `cycles` users put, updated, queried and deleted, 8 at a time, before anything is timed.
     */
    async warm(cycles: number): Promise<void> {
      let started = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (started++ < cycles) {
            const id = next++;
            await calls.put(id);
            await calls.update(id);
            await calls.query(id);
            await calls.delete(id);
          }
        }),
      );
    },
    /** Hashes then PutItems of new users, `concurrency` at a time for `ms`: the bare work's throughput, per second. */
    saturate: (concurrency: number, ms: number): Promise<number> =>
      perSecond(concurrency, ms, async () => {
        await calls.hash();
        await calls.put(next++);
      }),
    /** A hash then the PutItem, back to back, as createUser does them. */
    async hashThenPut(): Promise<boolean> {
      const id = next++;
      await timed(backToBack.hashThenPut, async () => {
        await calls.hash();
        await calls.put(id);
      });
      lastPut = id;
      putUsers.push(id);
      return true;
    },
    /** A hash then the UpdateItem of the last user put, back to back, as resetUserPassword does them. */
    async hashThenUpdate(): Promise<boolean> {
      await timed(backToBack.hashThenUpdate, async () => {
        await calls.hash();
        await calls.update(lastPut);
      });
      return true;
    },
    /** The Query then the DeleteItem of a user put by `hashThenPut`, as deleteUser makes them (no hash). */
    async queryThenDelete(): Promise<boolean> {
      const id = putUsers.shift();
      if (id === undefined) return false;
      await calls.query(id);
      await calls.delete(id);
      return true;
    },
    /** Every back-to-back sample so far, in the order taken. */
    samples: (): FloorSamples => backToBack,
  };
}

export type FloorProbe = ReturnType<typeof floorProbe>;
