/**
 * The physical floor: each DynamoDB call an operation must make, sent with the SDK straight to
 * the same DynamoDB Local, and one hash with the chosen binding. No pipeline, no HTTP. Sampled in
 * rounds, so that the benchmark can interleave them with the service's own requests and both
 * meet the same machine (other work on a shared machine comes and goes).
 *
 * Below the SDK, the transport alone: the same PutItem sent with Node's own HTTP client, its JSON
 * written by hand, unsigned (DynamoDB Local does not check signatures). No client the SDK can be
 * given sends a request for less, so no request that writes to DynamoDB can cost less CPU beyond
 * its hash than this does on the same machine.
 */

import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#store/client';
import { PROFILE_SK, userKey, userPk } from '#store/table-layout';
import { CHOSEN, hashOnce } from './argon2';
import { median, round } from './stats';

export interface Floor {
  readonly hash_ms_p50: number;
  readonly put_ms_p50: number;
  readonly update_ms_p50: number;
  readonly query_ms_p50: number;
  readonly delete_ms_p50: number;
  /** Not part of any ratio: a hash and then the write, back to back, as an operation does them. */
  readonly hash_then_put_ms_p50: number;
  readonly hash_then_update_ms_p50: number;
}

/** A PHC string of the right length, so items weigh what the service's weigh. */
export const FAKE_HASH = `$argon2id$v=19$m=19456,t=2,p=1$${'a'.repeat(22)}$${'b'.repeat(43)}`;

export function floorProbe(endpoint: string, usersTableName: string) {
  const db = createDocumentClient({ endpoint });
  const ownerId = `floor-${randomUUID()}`;
  const email = (i: number) => `floor-${i}@example.com`;
  const now = () => new Date().toISOString();
  const samples = {
    hash: [] as number[],
    put: [] as number[],
    update: [] as number[],
    query: [] as number[],
    delete: [] as number[],
    hashThenPut: [] as number[],
    hashThenUpdate: [] as number[],
  };
  let next = 0;
  let lastPut = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(endpoint);
  /** One DynamoDB request over Node's HTTP client, unsigned; resolves true on a 200. */
  const nodeHttp = (operation: string, payload: object) =>
    new Promise<boolean>((resolve, reject) => {
      const body = JSON.stringify(payload);
      const call = request(
        {
          host: target.hostname,
          port: target.port,
          method: 'POST',
          path: '/',
          agent,
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': `DynamoDB_20120810.${operation}`,
            authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            JSON.parse(Buffer.concat(chunks).toString('utf8'));
            resolve(response.statusCode === 200);
          });
        },
      );
      call.on('error', reject);
      call.end(body);
    });
  /** Users put by the back-to-back calls and not yet deleted, by how they were put. */
  const putBare = { sdk: [] as number[], nodeHttp: [] as number[] };

  // Same item, condition and expressions as the repository's createUser / setPasswordHash / listUserItems / deleteProfile
  // (functions/shared/repository.ts): keep them in step.
  const calls = {
    put: (i: number) =>
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
            create_id: randomUUID(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
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
    hash: () => hashOnce(CHOSEN),
    /** The same put, query and delete in DynamoDB's wire JSON over Node's own HTTP client. */
    nodeHttpPut: (i: number) => {
      const { pk, sk } = userKey(ownerId, email(i));
      return nodeHttp('PutItem', {
        TableName: usersTableName,
        Item: {
          pk: { S: pk },
          sk: { S: sk },
          owner_id: { S: ownerId },
          user_email: { S: email(i) },
          password_hash: { S: FAKE_HASH },
          should_reset_password: { BOOL: false },
          created_at: { S: now() },
          updated_at: { S: now() },
          create_id: { S: randomUUID() },
        },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
    },
    nodeHttpQuery: (i: number) =>
      nodeHttp('Query', {
        TableName: usersTableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: userPk(ownerId, email(i)) } },
        ProjectionExpression: 'sk, white_label',
        ConsistentRead: true,
      }),
    nodeHttpDelete: (i: number) =>
      nodeHttp('DeleteItem', {
        TableName: usersTableName,
        Key: { pk: { S: userPk(ownerId, email(i)) }, sk: { S: PROFILE_SK } },
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(white_label)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
  };

  return {
    /** `n` of each call, one after another (each user is put, updated, queried, deleted); recorded unless warming up. */
    async round(n: number, record = true): Promise<void> {
      const ids = Array.from({ length: n }, () => next++);
      for (const kind of ['put', 'update', 'query', 'delete', 'hash'] as const) {
        for (const id of ids) {
          const started = performance.now();
          await calls[kind](id);
          if (record) samples[kind].push(performance.now() - started);
        }
      }
    },
    /** A hash then the PutItem, back to back, as createUser does them; recorded. */
    async hashThenPut(): Promise<void> {
      const id = next++;
      const started = performance.now();
      await calls.hash();
      await calls.put(id);
      samples.hashThenPut.push(performance.now() - started);
      lastPut = id;
      putBare.sdk.push(id);
    },
    /** A hash then the same PutItem over Node's own HTTP client, no SDK: the transport's floor. True on a 200. */
    async hashThenNodeHttpPut(): Promise<boolean> {
      const id = next++;
      await calls.hash();
      putBare.nodeHttp.push(id);
      return calls.nodeHttpPut(id);
    },
    /** The Query then the DeleteItem of a user put by `hashThenPut`, as deleteUser makes them (no hash). */
    async queryThenDelete(): Promise<boolean> {
      const id = putBare.sdk.shift();
      if (id === undefined) return false;
      await calls.query(id);
      await calls.delete(id);
      return true;
    },
    /** The same over Node's own HTTP client, of a user put by `hashThenNodeHttpPut`. True on two 200s. */
    async nodeHttpQueryThenDelete(): Promise<boolean> {
      const id = putBare.nodeHttp.shift();
      if (id === undefined) return false;
      return (await calls.nodeHttpQuery(id)) && (await calls.nodeHttpDelete(id));
    },
    /** A hash then the UpdateItem of the last user put, back to back, as resetUserPassword does them; recorded. */
    async hashThenUpdate(): Promise<void> {
      const started = performance.now();
      await calls.hash();
      await calls.update(lastPut);
      samples.hashThenUpdate.push(performance.now() - started);
    },
    result(): Floor {
      return {
        hash_ms_p50: round(median(samples.hash), 3),
        put_ms_p50: round(median(samples.put), 3),
        update_ms_p50: round(median(samples.update), 3),
        query_ms_p50: round(median(samples.query), 3),
        delete_ms_p50: round(median(samples.delete), 3),
        hash_then_put_ms_p50: round(median(samples.hashThenPut), 3),
        hash_then_update_ms_p50: round(median(samples.hashThenUpdate), 3),
      };
    },
    close: () => {
      db.destroy();
      agent.destroy();
    },
  };
}
