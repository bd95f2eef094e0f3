import { BatchWriteCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { DocumentClient } from './client';

const BATCH_SIZE = 25;
const BATCHES_IN_FLIGHT = 4;

/** Every item of a Query or Scan, page after page (the SDK's paginator follows LastEvaluatedKey). */
export async function allItems(pages: AsyncIterable<{ Items?: Record<string, unknown>[] }>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
}

/** One user's item collection in a consistent Query, with only the `projection` attributes. */
export const collectionItems = (db: DocumentClient, table: string, pk: string, projection: string) =>
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
export async function deleteCollectionItems(db: DocumentClient, table: string, pk: string, sortKeys: readonly string[]): Promise<void> {
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
