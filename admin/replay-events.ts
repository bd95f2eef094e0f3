/**
 * `npm run admin -- replay-events [--dry-run]`: publishes the lifecycle events that failed every
 * delivery try and were kept whole in the undelivered-events table (each deletion recorded in the
 * ledger first), removing each once accepted. Prints one line of JSON; exit 1 while some still fail.
 *
 * Deployed: `--undelivered-events-table` (output UndeliveredEventsTableName), `--event-bus`
 * (EventBusName) and `--deletions-table` (DeletionsTableName), or UNDELIVERED_EVENTS_TABLE_NAME,
 * EVENT_BUS_NAME and DELETIONS_TABLE_NAME. Locally (the engine `npm start` uses): the local tables,
 * and the events file `npm start` writes (EVENTS_FILE, default .data/events.jsonl). Two runs at once
 * never publish one event twice (each claims an event before publishing it). Safe to run again:
 * consumers de-duplicate an event published twice after a crash.
 */

import { parseArgs } from 'node:util';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { createEventBridgeSink } from '#events/eventbridge-sink';
import { createFileSink, DEFAULT_EVENTS_FILE } from '#events/file-sink';
import { replayUndelivered } from '#events/replay';
import { readRecoveryPeriodDays, readUndeliveredEventDays } from '#platform/config';
import { createDocumentClient } from '#store/client';
import { createDeletionLedger } from '#store/deletion-ledger';
import { adminEndpoint, LOCAL_TABLES } from '#store/local-engine';
import { createUndeliveredEventsStore } from '#store/undelivered-events-store';
import { UsageError } from './key-commands';

export const REPLAY_USAGE = `  replay-events [--dry-run] [--undelivered-events-table NAME --event-bus NAME --deletions-table NAME]
                                publish the lifecycle events kept after every delivery try failed`;

const parse = (args: string[]) =>
  parseArgs({
    args,
    options: {
      'dry-run': { type: 'boolean' },
      'undelivered-events-table': { type: 'string' },
      'event-bus': { type: 'string' },
      'deletions-table': { type: 'string' },
    },
  });

/** Runs the command with the arguments after its name; resolves with its exit code. */
export async function replayEventsCommand(args: string[]): Promise<0 | 1> {
  const usage = `usage: npm run admin -- ${REPLAY_USAGE.split('\n')[0]!.trim()}`;
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(args));
  } catch {
    throw new UsageError(usage);
  }
  const table = values['undelivered-events-table'] ?? process.env.UNDELIVERED_EVENTS_TABLE_NAME;
  const bus = values['event-bus'] ?? process.env.EVENT_BUS_NAME;
  const deletionsTable = values['deletions-table'] ?? process.env.DELETIONS_TABLE_NAME;
  const deployed = table !== undefined || bus !== undefined;
  if (deployed && (!table || !bus || !deletionsTable)) {
    throw new UsageError(`a deployed stage needs --undelivered-events-table, --event-bus and --deletions-table; ${usage}`);
  }

  const db = createDocumentClient({ endpoint: adminEndpoint(deployed) });
  const eventBridge = deployed ? new EventBridgeClient({}) : undefined;
  try {
    const ledger = createDeletionLedger(db, deletionsTable ?? LOCAL_TABLES.deletionsTableName, { retentionDays: readRecoveryPeriodDays() });
    const store = createUndeliveredEventsStore(db, table ?? LOCAL_TABLES.undeliveredEventsTableName, {
      retentionDays: readUndeliveredEventDays(),
    });
    const sink = eventBridge
      ? createEventBridgeSink(eventBridge, bus!, ledger)
      : createFileSink(process.env.EVENTS_FILE || DEFAULT_EVENTS_FILE, ledger, (warning) => process.stderr.write(`${warning}\n`));
    const outcome = await replayUndelivered(store, sink, { dryRun: values['dry-run'] === true });
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
    return outcome.failed > 0 ? 1 : 0;
  } finally {
    db.destroy();
    eventBridge?.destroy();
  }
}
