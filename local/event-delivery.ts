/**
 * `npm start`'s lifecycle events: reads DynamoDB Local's own stream of the users table and hands
 * its records to the same delivery code as the deployed consumer (functions/shared/events/lifecycle-events.ts),
 * writing each event as one JSON line to a file and each deletion to the ledger table.
 */

import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { deliverChanges, type EventSink } from '#events/lifecycle-events';
import { readRecoveryPeriodDays } from '#platform/config';
import { createDocumentClient, localConnection } from '#store/client';
import { createDeletionLedger } from '#store/deletion-ledger';
import { localClient } from './dynamodb-local';
import { LOCAL_TABLES } from './local-engine';

/** Where events go unless EVENTS_FILE says otherwise. */
export const DEFAULT_EVENTS_FILE = '.data/events.jsonl';

export interface EventDeliveryOptions {
  readonly endpoint: string;
  readonly usersTableName: string;
  readonly deletionsTableName: string;
  /** The file events are appended to, one JSON object a line. */
  readonly eventsFile: string;
  /** How long a deletion stays in the ledger. */
  readonly recoveryPeriodDays: number;
  /**
   * Pause between two rounds of GetRecords: bounds the latency and the idle CPU.
   * @default 300
   */
  readonly intervalMs?: number;
  /** Told, by error name, when a round fails; the next round tries again. @default - ignored */
  readonly onError?: (message: string) => void;
}

export interface EventDelivery {
  /** Stops polling; resolves once the round in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Starts delivering. Changes made after it resolves are delivered; changes made before (while
 * `npm start` was down, say) are not replayed. Shards that appear later are read from their start.
 */
export async function startEventDelivery(options: EventDeliveryOptions): Promise<EventDelivery> {
  const table = localClient(options.endpoint);
  const { Table } = await table.send(new DescribeTableCommand({ TableName: options.usersTableName })).finally(() => table.destroy());
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn || !Table?.StreamSpecification?.StreamEnabled) throw new Error(`Table ${options.usersTableName} has no stream`);

  const streams = new DynamoDBStreamsClient({ ...localConnection(options.endpoint), maxAttempts: 1 });
  const ledgerClient = createDocumentClient({ endpoint: options.endpoint });
  const ledger = createDeletionLedger(ledgerClient, options.deletionsTableName, {
    retentionDays: options.recoveryPeriodDays,
  });
  await mkdir(dirname(options.eventsFile), { recursive: true });
  const sink: EventSink = {
    async publish(events) {
      await appendFile(options.eventsFile, events.map((event) => `${JSON.stringify(event)}\n`).join(''));
      return events.map(() => true);
    },
    recordDeletion: (deletion) => ledger.record(deletion),
  };

  // A cursor per open shard: the last sequence number handled (undefined: read from the shard's start).
  // A round continues from the previous read's iterator; when DynamoDB Local refuses it as trimmed
  // (it numbers a transaction's writes across tables, so an iterator it hands out may point at a
  // number the shard never holds), a fresh one AFTER the cursor takes over.
  const cursors = new Map<string, string | undefined>();
  /** Shards read to their end: never read again. */
  const finished = new Set<string>();
  let lookForShards = false;
  /** Where the last read of each shard left off: one GetRecords a round while it holds. */
  const next = new Map<string, string>();
  const read = async (shardId: string, after: string | undefined) => {
    const page = async (ShardIterator: string) => {
      const { Records = [], NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator }));
      if (NextShardIterator) next.set(shardId, NextShardIterator);
      return { records: Records, open: Boolean(NextShardIterator) };
    };
    const held = next.get(shardId);
    next.delete(shardId);
    if (held) {
      try {
        return await page(held);
      } catch {
        // Expired, or refused as trimmed (the numbering quirk above): start again from the cursor.
      }
    }
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after === undefined
          ? { ShardIteratorType: 'TRIM_HORIZON' as const }
          : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: after }),
      }),
    );
    if (!ShardIterator) return { records: [], open: false };
    try {
      return await page(ShardIterator);
    } catch (error) {
      // The same numbering quirk on a shard's first record: read again next round.
      if (after === undefined && error instanceof TrimmedDataAccessException) return { records: [], open: true };
      throw error;
    }
  };
  const last = (records: readonly { dynamodb?: { SequenceNumber?: string } }[]) => records.at(-1)?.dynamodb?.SequenceNumber;
  const discover = async (skipExisting: boolean) => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId!;
      if (cursors.has(shardId) || finished.has(shardId)) continue;
      let cursor: string | undefined;
      // At start-up, what the shard already holds is history: skip to its end.
      for (let page = await read(shardId, cursor); skipExisting && page.records.length > 0; page = await read(shardId, cursor)) {
        cursor = last(page.records);
      }
      cursors.set(shardId, cursor);
    }
  };
  await discover(true);

  const interval = options.intervalMs ?? 300;
  let rounds = 0;
  /** Reads every open shard to its end; false when some records were not delivered. */
  const round = async (): Promise<boolean> => {
    let delivered = true;
    // A finished shard has a successor; look for it then, and now and again anyway.
    if (++rounds % 20 === 0 || lookForShards) {
      lookForShards = false;
      await discover(false);
    }
    for (const shardId of [...cursors.keys()]) {
      // Page after page while the shard has more (a big delete leaves thousands of records).
      for (;;) {
        const cursor = cursors.get(shardId);
        const { records, open } = await read(shardId, cursor);
        const result = await deliverChanges(records, sink);
        if (result.retryFrom !== undefined) {
          report(`Lifecycle events not delivered (${result.failure}); retrying`);
          delivered = false;
          const failed = records.findIndex((record) => record.dynamodb?.SequenceNumber === result.retryFrom);
          if (failed > 0) cursors.set(shardId, last(records.slice(0, failed)));
          next.delete(shardId);
          break;
        }
        if (records.length > 0) {
          cursors.set(shardId, last(records));
          continue;
        }
        if (!open) {
          cursors.delete(shardId);
          finished.add(shardId);
          lookForShards = true;
        }
        break;
      }
    }
    return delivered;
  };

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  // One line per kind of failure, not one per round, until a round succeeds again.
  let reported: string | undefined;
  const report = (message: string) => {
    if (message !== reported) options.onError?.(message);
    reported = message;
  };
  const schedule = () => {
    timer = setTimeout(() => {
      running = round()
        .then((delivered) => {
          if (delivered) reported = undefined;
        })
        .catch((error: Error) => report(`Lifecycle event delivery failed (${error.name}); retrying`))
        .finally(() => {
          if (!stopped) schedule();
        });
    }, interval);
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      streams.destroy();
      ledgerClient.destroy();
    },
  };
}

/**
 * `npm start`'s delivery, configured from the environment: EVENTS_FILE (default
 * .data/events.jsonl), USERS_TABLE_NAME, DELETIONS_TABLE_NAME, RECOVERY_PERIOD_DAYS. Failed rounds
 * are reported on stderr, one line each.
 */
export async function startLocalEventDelivery(endpoint: string): Promise<EventDelivery & { eventsFile: string }> {
  const eventsFile = process.env.EVENTS_FILE || DEFAULT_EVENTS_FILE;
  const delivery = await startEventDelivery({
    endpoint,
    usersTableName: process.env.USERS_TABLE_NAME ?? LOCAL_TABLES.usersTableName,
    deletionsTableName: process.env.DELETIONS_TABLE_NAME ?? LOCAL_TABLES.deletionsTableName,
    eventsFile,
    recoveryPeriodDays: readRecoveryPeriodDays(),
    onError: (message) => console.error(message),
  });
  return { ...delivery, eventsFile };
}
