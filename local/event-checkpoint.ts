/**
 * `npm start`'s lifecycle-event checkpoint, checked against the stream and the events file before
 * delivery resumes from it. A checkpoint that does not fit would drop events without a word (a
 * cursor past the shard's last record reads nothing, ever) or fail every round (a shard the
 * stream no longer has), so any misfit stops the start with one line naming the file and what to do:
 *
 * - each open shard it names must still be in the stream, and hold the record it names (DynamoDB
 *   Local's data restored from a copy older than the checkpoint, or an edited checkpoint, fail this);
 * - the events file must be as long as the checkpoint says, or longer by whole lifecycle events
 *   only: those an append wrote just before the process died, before its checkpoint could be
 *   saved, which delivery then skips once. Shorter (truncated, replaced, an older copy) or longer
 *   by anything else fails.
 */

import { open, stat } from 'node:fs/promises';
import { type DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { EVENT_SOURCE, EVENT_TYPES } from '#contract/lifecycle-events';

/** What of a checkpoint is checked: each open shard's last delivered record (null: none yet), and the file's length then. */
export interface CheckedCheckpoint {
  readonly shards: Readonly<Record<string, string | null>>;
  readonly eventsBytes: number;
}

/** The events file's length as a checkpoint records it: 0 while it is missing or not a regular file (nothing was appended). */
export async function eventsFileBytes(eventsFile: string): Promise<number> {
  const stats = await stat(eventsFile).catch(() => undefined);
  return stats?.isFile() ? stats.size : 0;
}

/** Rejects with one line (the checkpoint file, what does not fit, what to do) when the checkpoint does not fit. */
export async function assertCheckpointFits(options: {
  readonly checkpoint: CheckedCheckpoint;
  readonly checkpointFile: string;
  readonly eventsFile: string;
  readonly streams: DynamoDBStreamsClient;
  readonly streamArn: string;
}): Promise<void> {
  const { checkpoint, checkpointFile: file, eventsFile } = options;
  const startOver = `move ${file} away to deliver only the writes made from now on (the events of writes since it was saved are then not written)`;

  for (const [shardId, sequenceNumber] of Object.entries(checkpoint.shards)) {
    let iterator: string | undefined;
    try {
      ({ ShardIterator: iterator } = await options.streams.send(
        new GetShardIteratorCommand({
          StreamArn: options.streamArn,
          ShardId: shardId,
          ...(sequenceNumber === null
            ? { ShardIteratorType: 'TRIM_HORIZON' as const }
            : { ShardIteratorType: 'AT_SEQUENCE_NUMBER' as const, SequenceNumber: sequenceNumber }),
        }),
      ));
    } catch (error) {
      if ((error as Error).name !== 'ResourceNotFoundException') throw error;
      throw new Error(
        `${file} names shard ${shardId} of the users table's stream, which the stream no longer has (DynamoDB Local's data is not the data the checkpoint was saved with): restore the two together, or ${startOver}.`,
      );
    }
    if (sequenceNumber === null || !iterator) continue;
    const { Records = [] } = await options.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1 }));
    if (Records[0]?.dynamodb?.SequenceNumber !== sequenceNumber) {
      throw new Error(
        `${file} says events were delivered up to record ${sequenceNumber} of shard ${shardId}, which the stream does not hold (its records end before it: DynamoDB Local's data is older than the checkpoint, or the checkpoint was edited): restore the two together, or ${startOver}.`,
      );
    }
  }

  const size = await eventsFileBytes(eventsFile);
  if (size < checkpoint.eventsBytes) {
    throw new Error(
      `${eventsFile} is ${size} bytes long, but its checkpoint ${file} says ${checkpoint.eventsBytes} were written (the file was truncated, replaced or restored from an older copy): restore the events file that belongs to the checkpoint, or move both away to start a new events file.`,
    );
  }
  if (size > checkpoint.eventsBytes && !(await onlyEventsAfter(eventsFile, checkpoint.eventsBytes))) {
    throw new Error(
      `${eventsFile} holds ${size - checkpoint.eventsBytes} bytes after the ${checkpoint.eventsBytes} its checkpoint ${file} accounts for, and they are not lifecycle events: remove what was added after byte ${checkpoint.eventsBytes}, or move both files away to start a new events file.`,
    );
  }
}

/** Whether the file from `from` on is whole lifecycle-event lines (what an append wrote before its checkpoint was saved). */
async function onlyEventsAfter(eventsFile: string, from: number): Promise<boolean> {
  const file = await open(eventsFile, 'r');
  let tail: string;
  try {
    const { size } = await file.stat();
    const buffer = Buffer.alloc(size - from);
    await file.read(buffer, 0, buffer.length, from);
    tail = buffer.toString('utf8');
  } finally {
    await file.close();
  }
  if (!tail.endsWith('\n')) return false;
  return tail
    .slice(0, -1)
    .split('\n')
    .every((line) => {
      try {
        const event = JSON.parse(line) as { source?: unknown; 'detail-type'?: unknown; detail?: unknown };
        return (
          event.source === EVENT_SOURCE &&
          (EVENT_TYPES as readonly unknown[]).includes(event['detail-type']) &&
          typeof event.detail === 'object' &&
          event.detail !== null
        );
      } catch {
        return false;
      }
    });
}
