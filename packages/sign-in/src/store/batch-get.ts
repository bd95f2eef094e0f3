/**
 * One BatchGetItem, with its unprocessed keys retried (DynamoDB's advice: back off, then send what is left):
 * one call unless DynamoDB throttled part of it.
 */

import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { DocumentClient } from '@white-label-user-management/shared/store/client';

/** What to read from each table: its keys and the read's options (ConsistentRead, ProjectionExpression, names). */
export type BatchRequest = Record<string, { Keys: Record<string, unknown>[] } & Record<string, unknown>>;

/** The items found, by table (every table of the request, found or not). */
export async function batchGetAll(db: DocumentClient, request: BatchRequest): Promise<Record<string, Record<string, unknown>[]>> {
  const found: Record<string, Record<string, unknown>[]> = Object.fromEntries(Object.keys(request).map((table) => [table, []]));
  let left = request;
  for (let attempt = 0; Object.keys(left).length > 0; attempt++) {
    if (attempt > 8) throw new Error('BatchGetItem left keys unprocessed after 8 retries');
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** Math.min(attempt, 6)));
    const { Responses, UnprocessedKeys } = await db.send(new BatchGetCommand({ RequestItems: left }));
    for (const table of Object.keys(request)) found[table]!.push(...(Responses?.[table] ?? []));
    left = Object.fromEntries(Object.entries(UnprocessedKeys ?? {}).filter(([, keys]) => (keys?.Keys?.length ?? 0) > 0)) as BatchRequest;
  }
  return found;
}
