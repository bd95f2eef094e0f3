import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { createEventBridgeSink } from '#events/eventbridge-sink';
import { deliverChanges } from '#events/lifecycle-events';
import { readEventDeliveryConfig } from '#platform/config';
import { logger } from '#platform/logger';
import { metrics, UNDELIVERED_EVENTS_DIMENSIONS, UNDELIVERED_EVENTS_METRIC } from '#platform/metrics';
import { createDocumentClient } from '#store/client';
import { createDeletionLedger } from '#store/deletion-ledger';
import { createUndeliveredEventsStore } from '#store/undelivered-events-store';

// Configuration is read and checked once, at cold start.
const config = readEventDeliveryConfig();
const db = createDocumentClient({ endpoint: config.dynamodbEndpoint });
const ledger = createDeletionLedger(db, config.deletionsTableName, { retentionDays: config.recoveryPeriodDays });
const sink = createEventBridgeSink(new EventBridgeClient({}), config.eventBusName, ledger);
const undelivered = createUndeliveredEventsStore(db, config.undeliveredEventsTableName, {
  retentionDays: config.undeliveredEventDays,
});

/** Tries of each chunk of events (the SDK retries each call's throttling and network errors beneath them). */
const ATTEMPTS = 3;

/**
 * The users table's stream consumer: the event source mapping hands it profile changes only (its
 * filter), it publishes their lifecycle events to the stage's bus and records deletions in the ledger.
 * An event that fails every try is kept whole in the undelivered-events table (an alarm fires on the
 * first; `admin replay-events` publishes it) and delivery moves on. Only when keeping fails too does
 * the batch report its first undelivered record, so Lambda retries from it (then bisects, then
 * gives the positions up to the dead-letter queue after the mapping's bounded retries).
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const result = await deliverChanges(event.Records, sink, { attempts: ATTEMPTS, keep: (events) => undelivered.keep(events) });
  // Counts and error names only: a record holds e-mails and password hashes.
  const counts = { records: event.Records.length, delivered: result.delivered, kept: result.kept };
  if (result.kept > 0) {
    logger.error('Lifecycle events kept for replay', { ...counts, failure: result.failure });
    metrics.addDimensions(UNDELIVERED_EVENTS_DIMENSIONS);
    metrics.addMetric(UNDELIVERED_EVENTS_METRIC, MetricUnit.Count, result.kept);
    metrics.publishStoredMetrics();
  }
  if (result.retryFrom !== undefined) {
    logger.error('Lifecycle events not delivered', { ...counts, failure: result.failure });
    return { batchItemFailures: [{ itemIdentifier: result.retryFrom }] };
  }
  logger.info('Lifecycle events delivered', counts);
  return { batchItemFailures: [] };
}
