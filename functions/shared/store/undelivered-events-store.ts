import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LifecycleEvent } from '#contract/lifecycle-events';
import type { UndeliveredEvent, UndeliveredEventStore } from '#domain/undelivered-events';
import type { DocumentClient } from './client';
import { allItems } from './item-collections';
import { UNDELIVERED_EVENTS_TABLE } from './table-layout';

/** Stream sequence numbers are decimal strings of any length: compared as numbers. */
const streamOrder = (a: string, b: string) => {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return a.localeCompare(b);
  const [x, y] = [BigInt(a), BigInt(b)];
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * Undelivered lifecycle events on their own table: one item per event, keyed by its id (so a
 * retried batch keeps it once), the event as JSON, and `expires_at` for DynamoDB's TTL after
 * `retentionDays`. A scan lists them: the table holds only what failed, until replayed.
 */
export function createUndeliveredEventsStore(
  db: DocumentClient,
  tableName: string,
  options: { retentionDays: number },
): UndeliveredEventStore {
  const ttl = UNDELIVERED_EVENTS_TABLE.timeToLiveAttribute!;
  return {
    async keep(events) {
      for (const kept of events) {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              pk: kept.id,
              event: JSON.stringify(kept.event),
              change_id: kept.changeId,
              failure: kept.failure,
              kept_at: kept.keptAt,
              [ttl]: Math.ceil(Date.parse(kept.keptAt) / 1000) + options.retentionDays * 86_400,
            },
          }),
        );
      }
    },

    async list() {
      const items = await allItems(paginateScan({ client: db }, { TableName: tableName, ConsistentRead: true }));
      return (
        items
          .map(
            (item): UndeliveredEvent => ({
              id: item.pk as string,
              event: JSON.parse(item.event as string) as LifecycleEvent,
              changeId: item.change_id as string,
              failure: item.failure as string,
              keptAt: item.kept_at as string,
            }),
          )
          // Kept in order, and within one keeping in stream order (an event's own time can tie: a
          // delete right after a create carries the create's time where the stream's is coarse).
          .sort((a, b) => a.keptAt.localeCompare(b.keptAt) || streamOrder(a.changeId, b.changeId))
      );
    },

    async remove(id) {
      await db.send(new DeleteCommand({ TableName: tableName, Key: { pk: id } }));
    },

    async release(id) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: id },
            UpdateExpression: 'REMOVE claimed_until',
            ConditionExpression: 'attribute_exists(pk)',
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },

    async claim(id, leaseMs) {
      const now = Date.now();
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: id },
            UpdateExpression: 'SET claimed_until = :until',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(claimed_until) OR claimed_until < :now)',
            ExpressionAttributeValues: { ':until': now + leaseMs, ':now': now },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
