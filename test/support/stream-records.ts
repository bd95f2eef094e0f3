/**
 * The users table's raw change stream on the test's DynamoDB Local, from the moment a watch starts:
 * the records exactly as the event source mapping would be handed them, to hold them to its filter.
 */

import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { localConnection } from '#store/client';
import { LOCAL_TABLES } from '#store/local-engine';
import { waitFor } from './poll';

/** Starts reading every open shard at its end; `until` polls until `done` holds for the records read so far. */
export async function watchStream() {
  const connection = { ...localConnection(process.env.DYNAMODB_ENDPOINT!), maxAttempts: 1 };
  const table = new DynamoDBClient(connection);
  const { Table } = await table.send(new DescribeTableCommand({ TableName: LOCAL_TABLES.usersTableName }));
  table.destroy();
  const streams = new DynamoDBStreamsClient(connection);
  const StreamArn = Table!.LatestStreamArn!;
  const iterators = new Map<string, string>();
  const seen = new Set<string>();
  /** Open shards not seen yet: at their end at the start, from their start later (a successor of a closed shard). */
  const discover = async (at: 'LATEST' | 'TRIM_HORIZON') => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (seen.has(shard.ShardId!) || (at === 'LATEST' && shard.SequenceNumberRange?.EndingSequenceNumber)) continue;
      seen.add(shard.ShardId!);
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({ StreamArn, ShardId: shard.ShardId!, ShardIteratorType: at }),
      );
      if (ShardIterator) iterators.set(shard.ShardId!, ShardIterator);
    }
  };
  await discover('LATEST');
  const records: _Record[] = [];
  const poll = async () => {
    for (const [shard, iterator] of iterators) {
      const { Records = [], NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      records.push(...Records);
      if (NextShardIterator) iterators.set(shard, NextShardIterator);
      else {
        iterators.delete(shard);
        await discover('TRIM_HORIZON');
      }
    }
  };
  return {
    async until(done: (records: readonly _Record[]) => boolean, what: string, timeoutMs = 20_000): Promise<_Record[]> {
      await waitFor(
        async () => {
          await poll();
          return done(records) ? true : undefined;
        },
        timeoutMs,
        what,
      );
      return records;
    },
    stop: () => streams.destroy(),
  };
}

/** The partition and sort key of a record. */
export const keysOf = (record: _Record) => ({ pk: record.dynamodb?.Keys?.pk?.S, sk: record.dynamodb?.Keys?.sk?.S });
