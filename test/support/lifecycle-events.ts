/** Lifecycle events in tests: the local delivery on the test's DynamoDB Local, and the file it writes. */

import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LifecycleEvent } from '#contract/lifecycle-events';
import { LOCAL_TABLES } from '#store/local-engine';
import { type EventDelivery, type EventDeliveryOptions, startEventDelivery } from '../../local/event-delivery';

/** Every event in an events file, in order. */
export const readEvents = (file: string): LifecycleEvent[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LifecycleEvent)
    : [];

/**
 * The delivery `npm start` runs, started against the test's DynamoDB Local, writing to a file of
 * its own (or `options.file`, to resume from its checkpoint); `options` changes the polling
 * interval and the time before failing events are kept, or listens to its failures.
 */
export async function startTestDelivery(
  options: Pick<EventDeliveryOptions, 'intervalMs' | 'onError' | 'keepAfterMs' | 'onRound'> & { file?: string } = {},
): Promise<EventDelivery & { file: string; events: () => LifecycleEvent[] }> {
  const file = options.file ?? join(mkdtempSync(join(tmpdir(), 'events-')), 'events.jsonl');
  const delivery = await startEventDelivery({
    endpoint: process.env.DYNAMODB_ENDPOINT!,
    usersTableName: LOCAL_TABLES.usersTableName,
    deletionsTableName: LOCAL_TABLES.deletionsTableName,
    undeliveredEventsTableName: LOCAL_TABLES.undeliveredEventsTableName,
    eventsFile: file,
    recoveryPeriodDays: 35,
    ...options,
  });
  return { ...delivery, file, events: () => readEvents(file) };
}
