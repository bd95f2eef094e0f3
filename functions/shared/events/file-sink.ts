import { appendFile } from 'node:fs/promises';
import type { LifecycleEvent } from '#contract/lifecycle-events';
import type { DeletionLedger } from '#domain/deletions';
import type { EventSink } from '#events/lifecycle-events';

/** Where `npm start` and the local `admin replay-events` write events unless EVENTS_FILE says otherwise. */
export const DEFAULT_EVENTS_FILE = '.data/events.jsonl';

/** One event as the events file holds it: a JSON object and a newline. */
export const eventLine = (event: LifecycleEvent) => `${JSON.stringify(event)}\n`;

/** The events file's own sink (npm start and a local `admin replay-events`), beside the EventBridge sink: one JSON line per event, appended in one write; deletions to the ledger. */
export function createFileSink(eventsFile: string, ledger: DeletionLedger): EventSink {
  return {
    async publish(events) {
      await appendFile(eventsFile, events.map(eventLine).join(''));
      return events.map(() => true);
    },
    recordDeletion: (deletion) => ledger.record(deletion),
  };
}
