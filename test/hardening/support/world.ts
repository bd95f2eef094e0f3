/** Test helpers that read and seed DynamoDB Local directly, beside the API. */

import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { verifyPassword } from '#domain/passwords';
import { processStores } from '#store/stores';
import { PROFILE_SK, userPk } from '#store/table-layout';
import { lambdaContext as baseLambdaContext, proxyEvent as baseProxyEvent } from '../../../local/lambda-runtime';
import { newOwner } from '../../support/local';
import { scanAll } from '../../support/scan';

const { config, stores } = processStores();
const { client } = stores;

export type TestOwner = Awaited<ReturnType<typeof ownerWithId>>;

/** A fresh owner with its key and its id (to read its users' items directly). */
export async function ownerWithId(tag: string) {
  const owner = await newOwner(tag);
  const record = await stores.owners.findOwner(owner.ownerEmail);
  return { ...owner, ownerId: record!.ownerId };
}

/** Every item of a user's item collection, profile included. */
export async function collection(ownerId: string, email: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: config.usersTableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': userPk(ownerId, email) },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

export const profileOf = (items: Record<string, unknown>[]) => items.find((item) => item.sk === PROFILE_SK);

/** Writes `count` items of associated data into a user's collection (no API creates them). */
export async function seedAssociatedData(ownerId: string, email: string, count: number): Promise<void> {
  const pk = userPk(ownerId, email);
  const items = Array.from({ length: count }, (_, i) => ({ pk, sk: `DATA#${String(i).padStart(4, '0')}`, payload: `item ${i}` }));
  for (let i = 0; i < items.length; i += 25) {
    const batch = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    const result = await client.send(new BatchWriteCommand({ RequestItems: { [config.usersTableName]: batch } }));
    if (Object.keys(result.UnprocessedItems ?? {}).length > 0) throw new Error('DynamoDB Local left seed items unprocessed');
  }
}

/** Whether the user's stored argon2id hash verifies this password. */
export async function storedPasswordIs(ownerId: string, email: string, password: string): Promise<boolean> {
  const profile = profileOf(await collection(ownerId, email));
  return typeof profile?.password_hash === 'string' && (await verifyPassword(profile.password_hash, password));
}

/** Every item in the users table under these owners' tools (a full scan, filtered). */
export async function itemsOfOwners(ownerIds: readonly string[]): Promise<Record<string, unknown>[]> {
  const items = await scanAll(client, { TableName: config.usersTableName, ConsistentRead: true });
  return items.filter((item) => ownerIds.some((id) => (item.pk as string).startsWith(`${id}#`)));
}

/** An API Gateway REST (v1 proxy) event, as the deployed API would pass it; `init` overrides any part. */
export function proxyEvent(operation: string, init: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return { ...baseProxyEvent({ path: `/v1/${operation}`, body: null, stage: 'test' }), ...init };
}

/** A Lambda context with a 10 s deadline, like the deployed functions'. */
export const lambdaContext = (functionName: string): Context => baseLambdaContext(functionName);

/** Runs `task` over `items` with at most `limit` in flight. */
export async function inParallel<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
