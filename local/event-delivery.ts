/**
 * `npm start`'s lifecycle events: reads DynamoDB Local's own stream of the users table and hands
 * its records to the same delivery code as the deployed consumer (functions/shared/events/lifecycle-events.ts),
 * writing each event as one JSON line to a file and each deletion to the ledger table.
 *
 * An event exists if and only if its write happened, across `kill -9` and restart: after each
 * append the delivery saves a checkpoint beside the file (each shard's last delivered record and
 * the file's length then), and a restart resumes from it, skipping the events an append made
 * just before the process died (they follow the checkpointed length); a checkpoint that does not fit
 * the stream or the file stops the start instead (local/event-checkpoint.ts). DynamoDB Local keeps its
 * stream across restarts (same stream, same sequence numbers: measured). Events that keep
 * failing (the file unwritable for KEEP_AFTER_MS) are kept in the undelivered-events table for
 * `admin replay-events`, as deployed.
 */

import { readFileSync } from 'node:fs';
import { chmod, link, lstat, mkdir, open as openFile, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { LifecycleEvent } from '#contract/lifecycle-events';
import { createFileSink, DEFAULT_EVENTS_FILE, eventLine, PRIVATE_FILE_MODE, setAsideTornLine } from '#events/file-sink';
import { deliverChanges, type EventSink, failureName } from '#events/lifecycle-events';
import { passesRecordFilter } from '#events/record-filter';
import { readRecoveryPeriodDays, readUndeliveredEventDays, UNDELIVERED_EVENT_DAYS } from '#platform/config';
import { createDocumentClient, localConnection } from '#store/client';
import { createDeletionLedger } from '#store/deletion-ledger';
import { LOCAL_TABLES } from '#store/local-engine';
import { createUndeliveredEventsStore } from '#store/undelivered-events-store';
import { localClient } from './dynamodb-local';
import { assertCheckpointFits, eventsFileBytes } from './event-checkpoint';

/** How long delivery retries a failing sink before it keeps the events for replay. */
export const KEEP_AFTER_MS = 10_000;

/** Where the delivery resumes: each shard's last delivered record, and the events file's length after it. */
interface Checkpoint {
  readonly stream: string;
  readonly shards: Record<string, string | null>;
  readonly finished: string[];
  readonly eventsBytes: number;
}

const checkpointFile = (eventsFile: string) => `${eventsFile}.checkpoint`;

/**
 * The saved checkpoint: undefined when there is none (a new events file) or it is another stream's
 * (the table was made anew). One that cannot be read stops the start: skipping to the stream's end
 * would silently lose the events of every write since it was saved.
 */
async function readCheckpoint(eventsFile: string, stream: string): Promise<Checkpoint | undefined> {
  const file = checkpointFile(eventsFile);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadableCheckpoint(file, failureName(error));
  }
  let saved: Checkpoint;
  try {
    saved = JSON.parse(text) as Checkpoint;
  } catch {
    throw unreadableCheckpoint(file, 'not JSON');
  }
  const shards = saved?.shards;
  const valid =
    typeof saved?.stream === 'string' &&
    Number.isSafeInteger(saved.eventsBytes) &&
    saved.eventsBytes >= 0 &&
    Array.isArray(saved.finished) &&
    saved.finished.every((id) => typeof id === 'string') &&
    typeof shards === 'object' &&
    shards !== null &&
    Object.values(shards).every((seq) => seq === null || typeof seq === 'string');
  if (!valid) throw unreadableCheckpoint(file, 'not a checkpoint');
  return saved.stream === stream ? saved : undefined;
}

const unreadableCheckpoint = (file: string, why: string) =>
  new Error(
    `${file} cannot be read (${why}): it says where lifecycle events resume. Restore it from a backup, or move it away to deliver ` +
      'only the writes made from now on (the events of writes since it was saved are then not written).',
  );

/** What the file holds after `from`: the events an append wrote before its checkpoint could be saved. */
async function tailOf(eventsFile: string, from: number): Promise<string> {
  const file = await openFile(eventsFile, 'r').catch(() => undefined);
  if (!file) return '';
  try {
    const { size } = await file.stat();
    if (size <= from) return '';
    const buffer = Buffer.alloc(size - from);
    await file.read(buffer, 0, buffer.length, from);
    return buffer.toString('utf8');
  } finally {
    await file.close();
  }
}

export interface EventDeliveryOptions {
  readonly endpoint: string;
  readonly usersTableName: string;
  readonly deletionsTableName: string;
  /** Where events that keep failing are kept for `admin replay-events`. */
  readonly undeliveredEventsTableName: string;
  /** The file events are appended to, one JSON object a line. */
  readonly eventsFile: string;
  /** How long a deletion stays in the ledger. */
  readonly recoveryPeriodDays: number;
  /** How long an undelivered event is kept. @default UNDELIVERED_EVENT_DAYS.default (14) */
  readonly undeliveredEventDays?: number;
  /** How long a failing sink is retried before its events are kept for replay. @default KEEP_AFTER_MS */
  readonly keepAfterMs?: number;
  /**
   * Pause between two rounds of GetRecords: bounds the latency and the idle CPU.
   * @default 300
   */
  readonly intervalMs?: number;
  /** How the hints write the admin CLI's command (naming a non-default engine). @default 'npm run admin --' */
  readonly adminCommand?: string;
  /** Told, by error name, when a round fails (the next round tries again), and of a torn line set aside. @default - ignored */
  readonly onError?: (message: string) => void;
  /** Told after every round whether it delivered all it read: a signal to wait for, where a test would otherwise wait for time to pass. @default - ignored */
  readonly onRound?: (delivered: boolean) => void;
}

export interface EventDelivery {
  /** Stops polling; resolves once the round in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Starts delivering. With a checkpoint for this stream beside the events file, it resumes there:
 * changes made while `npm start` was down are delivered. Without one (a new events file), changes
 * made after it resolves are delivered. Shards that appear later are read from their start.
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
  const undelivered = createUndeliveredEventsStore(ledgerClient, options.undeliveredEventsTableName, {
    retentionDays: options.undeliveredEventDays ?? UNDELIVERED_EVENT_DAYS.default,
  });
  const eventsFile = options.eventsFile;
  await mkdir(dirname(eventsFile), { recursive: true, mode: 0o700 });
  // Files an older version created readable by all: owner-only from now on.
  for (const file of [eventsFile, checkpointFile(eventsFile)]) {
    if ((await lstat(file).catch(() => undefined))?.isFile()) await chmod(file, PRIVATE_FILE_MODE);
  }
  const saved = await readCheckpoint(eventsFile, streamArn);
  // Before the tail is read: a torn last line is no event, and its event comes again from the stream.
  const torn = await setAsideTornLine(eventsFile);
  if (torn) options.onError?.(torn);
  // A checkpoint that does not fit the stream or the file stops the start: resuming from it would drop events unsaid.
  if (saved) {
    await assertCheckpointFits({ checkpoint: saved, checkpointFile: checkpointFile(eventsFile), eventsFile, streams, streamArn }).catch(
      (error: unknown) => {
        streams.destroy();
        ledgerClient.destroy();
        throw error;
      },
    );
  }
  // Events appended after the checkpoint was saved: delivered again from the checkpoint, they are skipped once.
  let written = saved ? await tailOf(eventsFile, saved.eventsBytes) : '';
  const fileSink = createFileSink(eventsFile, ledger, options.onError);
  const sink: EventSink = {
    ...fileSink,
    async publish(events) {
      let fresh = events;
      if (written) {
        let from = 0;
        const done = (event: LifecycleEvent) => {
          const line = eventLine(event);
          const at = written.indexOf(line, from);
          if (at !== -1) from = at + line.length;
          return at !== -1;
        };
        const index = events.findIndex((event) => !done(event));
        fresh = index === -1 ? [] : events.slice(index);
        written = index === -1 ? written.slice(from) : '';
      }
      if (fresh.length > 0) await fileSink.publish(fresh);
      return events.map(() => true);
    },
  };

  // A cursor per open shard: the last sequence number handled (undefined: read from the shard's start).
  // A round continues from the previous read's iterator; when DynamoDB Local refuses it as trimmed
  // (it numbers a transaction's writes across tables, so an iterator it hands out may point at a
  // number the shard never holds), a fresh one AFTER the cursor takes over.
  const cursors = new Map<string, string | undefined>(Object.entries(saved?.shards ?? {}).map(([id, seq]) => [id, seq ?? undefined]));
  /** Shards read to their end: never read again. */
  const finished = new Set<string>(saved?.finished ?? []);
  /** Saved after every delivered page (a temporary file renamed over the old: never half written). */
  const saveCheckpoint = async () => {
    const eventsBytes = await eventsFileBytes(eventsFile);
    const checkpoint: Checkpoint = {
      stream: streamArn,
      shards: Object.fromEntries([...cursors].map(([id, seq]) => [id, seq ?? null])),
      finished: [...finished],
      eventsBytes,
    };
    await writeFile(`${checkpointFile(eventsFile)}.tmp`, JSON.stringify(checkpoint), { mode: PRIVATE_FILE_MODE });
    await rename(`${checkpointFile(eventsFile)}.tmp`, checkpointFile(eventsFile));
  };
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
  // Resuming: shards the checkpoint does not know are new since, read from their start.
  await discover(!saved);
  await saveCheckpoint();

  const interval = options.intervalMs ?? 300;
  const keepAfterMs = options.keepAfterMs ?? KEEP_AFTER_MS;
  /** When the sink began failing (undefined while it works). */
  let failingSince: number | undefined;
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
        // Failing for KEEP_AFTER_MS already: what still fails is kept for replay, and delivery moves on.
        const keeping = failingSince !== undefined && Date.now() - failingSince >= keepAfterMs;
        // What the deployed event source mapping filters out never reaches the delivery here either.
        const result = await deliverChanges(
          records.filter(passesRecordFilter),
          sink,
          keeping ? { keep: (events) => undelivered.keep(events) } : {},
        );
        if (result.kept > 0 && !stopped) {
          options.onError?.(
            `Lifecycle events kept for replay (${result.failure}): ${result.kept}; once the cause is fixed, run: ${options.adminCommand ?? 'npm run admin --'} replay-events`,
          );
        } else if (result.retryFrom === undefined && result.delivered > 0) {
          failingSince = undefined;
        }
        if (result.retryFrom !== undefined) {
          report(`Lifecycle events not delivered (${result.failure}); retrying`);
          failingSince ??= Date.now();
          delivered = false;
          const failed = records.findIndex((record) => record.dynamodb?.SequenceNumber === result.retryFrom);
          if (failed > 0) {
            cursors.set(shardId, last(records.slice(0, failed)));
            await saveCheckpoint();
          }
          next.delete(shardId);
          break;
        }
        if (records.length > 0) {
          cursors.set(shardId, last(records));
          await saveCheckpoint();
          continue;
        }
        if (!open) {
          cursors.delete(shardId);
          finished.add(shardId);
          lookForShards = true;
          await saveCheckpoint();
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
    // Once stopping (npm start shutting down, DynamoDB Local gone with it), a failing round says nothing.
    if (message !== reported && !stopped) options.onError?.(message);
    reported = message;
  };
  const schedule = () => {
    timer = setTimeout(() => {
      running = round()
        .then((delivered) => {
          if (delivered) reported = undefined;
          options.onRound?.(delivered);
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
 * Whether the lock's pid is a live `npm start` (EPERM: alive, someone else's). Where /proc tells
 * (Linux), a pid reused by another program after a reboot does not count.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start.ts');
  } catch {
    return true;
  }
}

/**
 * One delivery per events file: `<file>.lock` holds the delivering process's pid, made whole
 * before it appears (a hard link of a finished file, which fails when the lock exists). A lock
 * whose process is gone (`kill -9`) is taken over. Resolves with the release, or the holder's pid.
 */
async function lockDelivery(eventsFile: string): Promise<{ release: () => Promise<void> } | { holder: number }> {
  const path = `${eventsFile}.lock`;
  const mine = `${path}.${process.pid}`;
  await writeFile(mine, String(process.pid), { mode: PRIVATE_FILE_MODE });
  try {
    for (;;) {
      try {
        await link(mine, path);
        const release = async () => {
          if ((await readFile(path, 'utf8').catch(() => '')) === String(process.pid)) await unlink(path).catch(() => undefined);
        };
        return { release };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number(await readFile(path, 'utf8').catch(() => ''));
      // Its own pid in a stale lock (a reboot handed it out again) is no other holder.
      if (Number.isSafeInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) return { holder };
      await unlink(path).catch(() => undefined);
    }
  } finally {
    await unlink(mine).catch(() => undefined);
  }
}

/**
 * `npm start`'s delivery, configured from the environment: EVENTS_FILE (default
 * .data/events.jsonl), USERS_TABLE_NAME, DELETIONS_TABLE_NAME, UNDELIVERED_EVENTS_TABLE_NAME,
 * RECOVERY_PERIOD_DAYS. Failed rounds are reported on stderr, one line each.
 *
 * Another `npm start` already delivering to the same file (two on one DynamoDB Local, in one
 * folder): this one says so and does not deliver, so no event is written twice; it takes over,
 * from the checkpoint, once that one stops.
 */
export async function startLocalEventDelivery(
  endpoint: string,
  adminCommand?: string,
): Promise<EventDelivery & { eventsFile: string; delivering: boolean }> {
  const eventsFile = process.env.EVENTS_FILE || DEFAULT_EVENTS_FILE;
  await mkdir(dirname(eventsFile), { recursive: true, mode: 0o700 });
  const start = () =>
    startEventDelivery({
      endpoint,
      usersTableName: process.env.USERS_TABLE_NAME ?? LOCAL_TABLES.usersTableName,
      deletionsTableName: process.env.DELETIONS_TABLE_NAME ?? LOCAL_TABLES.deletionsTableName,
      undeliveredEventsTableName: process.env.UNDELIVERED_EVENTS_TABLE_NAME ?? LOCAL_TABLES.undeliveredEventsTableName,
      eventsFile,
      recoveryPeriodDays: readRecoveryPeriodDays(),
      undeliveredEventDays: readUndeliveredEventDays(),
      onError: (message) => console.error(message),
      ...(adminCommand && { adminCommand }),
    });
  const withLock = async (release: () => Promise<void>) => {
    const delivery = await start().catch(async (error: unknown) => {
      await release();
      throw error;
    });
    return {
      async stop() {
        await delivery.stop();
        await release();
      },
    };
  };

  const lock = await lockDelivery(eventsFile);
  if ('release' in lock) return { ...(await withLock(lock.release)), eventsFile, delivering: true };

  console.error(
    `Lifecycle events to ${eventsFile} are delivered by another npm start (pid ${lock.holder}); this one does not deliver them, and takes over when that one stops.`,
  );
  let stopped = false;
  let taken: EventDelivery | undefined;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<void> = Promise.resolve();
  const poll = () => {
    timer = setTimeout(() => {
      attempt = (async () => {
        const next = await lockDelivery(eventsFile);
        if (!('release' in next)) return;
        if (stopped) return next.release();
        taken = await withLock(next.release);
        console.error(`Lifecycle events to ${eventsFile}: the other npm start stopped; this one delivers them now.`);
      })()
        .catch((error: Error) => {
          console.error(`Lifecycle event delivery could not start (${failureName(error)}): ${error.message.split('\n')[0]}`);
        })
        .finally(() => {
          if (!stopped && !taken) poll();
        });
    }, 1_000);
  };
  poll();
  return {
    eventsFile,
    delivering: false,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await attempt;
      await taken?.stop();
    },
  };
}
