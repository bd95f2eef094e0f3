import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { DeletionLedger } from '#domain/deletions';
import type { EventSink } from './lifecycle-events';

/** The deployed sink: events to the stage's EventBridge bus, deletions to the ledger (the consumer and `admin replay-events`). */
export function createEventBridgeSink(eventBridge: EventBridgeClient, eventBusName: string, ledger: DeletionLedger): EventSink {
  return {
    async publish(events) {
      const { Entries = [] } = await eventBridge.send(
        new PutEventsCommand({
          Entries: events.map((event) => ({
            EventBusName: eventBusName,
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
}
