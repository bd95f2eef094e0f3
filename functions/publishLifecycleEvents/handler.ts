import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { deliverChanges, type EventSink } from '#events/lifecycle-events';
import { readEventDeliveryConfig } from '#platform/config';
import { logger } from '#platform/logger';
import { createDocumentClient } from '#store/client';
import { createDeletionLedger } from '#store/deletion-ledger';

// Configuration is read and checked once, at cold start.
const config = readEventDeliveryConfig();
const eventBridge = new EventBridgeClient({});
const ledger = createDeletionLedger(createDocumentClient({ endpoint: config.dynamodbEndpoint }), config.deletionsTableName, {
  retentionDays: config.recoveryPeriodDays,
});

const sink: EventSink = {
  async publish(events) {
    const { Entries = [] } = await eventBridge.send(
      new PutEventsCommand({
        Entries: events.map((event) => ({
          EventBusName: config.eventBusName,
          Source: event.source,
          DetailType: event['detail-type'],
          Detail: JSON.stringify(event.detail),
          Time: new Date(event.detail.occurred_at),
        })),
      }),
    );
    // PutEvents answers 200 with per-entry errors on a partial failure: an entry without an id was not accepted.
    return events.map((_, index) => Entries[index]?.EventId !== undefined && Entries[index]?.ErrorCode === undefined);
  },
  recordDeletion: (deletion) => ledger.record(deletion),
};

/**
 * The users table's stream consumer: the event source mapping hands it profile changes only (its
 * filter), it publishes their lifecycle events to the stage's bus and records deletions in the ledger.
 * A batch that is not fully delivered reports the first undelivered record, so Lambda retries from it
 * (then bisects, then gives up to the dead-letter queue after the mapping's bounded retries).
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const result = await deliverChanges(event.Records, sink);
  // Counts and error names only: a record holds e-mails and password hashes.
  if (result.retryFrom !== undefined) {
    logger.error('Lifecycle events not delivered', { records: event.Records.length, delivered: result.delivered, failure: result.failure });
    return { batchItemFailures: [{ itemIdentifier: result.retryFrom }] };
  }
  logger.info('Lifecycle events delivered', { records: event.Records.length, delivered: result.delivered });
  return { batchItemFailures: [] };
}
