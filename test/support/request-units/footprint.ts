/**
 * What one request leaves behind in DynamoDB, for the capacity model (capacity/, docs/capacity.md):
 * the request units it consumed by table, as DynamoDB Local reports them (ReturnConsumedCapacity,
 * asked for by an SDK middleware), the users table's stream records it caused, read back from
 * DynamoDB Local's stream up to a sentinel write, and the size of the items involved by DynamoDB's
 * item-size rules. A refused conditional write reports no consumed capacity, so it is counted by
 * AWS's rule: the larger of the item found and one unit.
 */

import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DescribeTableCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ChangeRecord, lifecycleEventOf } from '#events/lifecycle-events';
import { passesRecordFilter } from '#events/record-filter';
import { localConnection } from '#store/client';
import { itemBytes, valueBytes } from '../../../capacity/request-units';
import { localClient } from '../../../local/dynamodb-local';

/** Request units one request consumed on a table. */
export interface TableUnits {
  readonly writeUnits: number;
  readonly readUnits: number;
}

/** One request's footprint: units by table (the bench's table names mapped to `users`, `owners`, `idempotency`) and its stream records. */
export interface Footprint {
  /** Request units by AWS's rules (capacity/request-units.ts) from the requests really sent (bench/request-recorder.ts). */
  readonly units: Record<string, TableUnits>;
  /** DynamoDB Local's ConsumedCapacity for the same calls: a cross-check only (it bills a missing item's read and a transaction's second pass nothing). */
  readonly localUnits: Record<string, TableUnits>;
  /** Records the users table's stream got. */
  readonly streamRecords: number;
  /** Of them, the ones the consumer's filter passes (events/record-filter.ts): each reaches the stream consumer. */
  readonly consumerRecords: number;
  /** Lifecycle events those records mean. */
  readonly events: number;
  /** Deletion-ledger items the consumer writes for them (one per UserDeleted). */
  readonly ledgerWrites: number;
}

/** DynamoDB's item-size rules live with the unit rules (capacity/request-units.ts); re-exported for the bench's callers. */
export { itemBytes, valueBytes };

/** Commands that take ReturnConsumedCapacity. */
const METERED = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchWriteItem',
  'BatchGetItem',
  'TransactWriteItems',
]);

/**
 * An SDK middleware on `client` that asks every call for its consumed capacity while a `measure` runs,
 * and adds it up by table (named through `tableKinds`). Installed once; idle outside `measure`.
 */
export function capacityMeter(client: DynamoDBDocumentClient, tableKinds: Readonly<Record<string, string>>) {
  let units: Record<string, { writeUnits: number; readUnits: number }> | undefined;
  const add = (table: string | undefined, writeUnits: number, readUnits: number) => {
    if (!units || !table) return;
    const kind = tableKinds[table] ?? table;
    const entry = units[kind] ?? { writeUnits: 0, readUnits: 0 };
    units[kind] = entry;
    entry.writeUnits += writeUnits;
    entry.readUnits += readUnits;
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context.commandName ?? '').replace(/Command$/, '');
      if (!units || !METERED.has(command)) return next(args);
      const input = args.input as { ReturnConsumedCapacity?: string; TableName?: string };
      input.ReturnConsumedCapacity = 'TOTAL';
      try {
        const result = await next(args);
        const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
        for (const c of [consumed].flat() as {
          TableName?: string;
          CapacityUnits?: number;
          ReadCapacityUnits?: number;
          WriteCapacityUnits?: number;
        }[]) {
          if (!c) continue;
          // DynamoDB Local reports a total: a read command's units are reads, a write command's writes.
          const reading = command === 'GetItem' || command === 'Query' || command === 'Scan' || command === 'BatchGetItem';
          add(
            c.TableName,
            c.WriteCapacityUnits ?? (reading ? 0 : (c.CapacityUnits ?? 0)),
            c.ReadCapacityUnits ?? (reading ? (c.CapacityUnits ?? 0) : 0),
          );
        }
        return result;
      } catch (error) {
        // A refused conditional write consumes write units too: by the item found (ALL_OLD, raw), else one.
        if (error instanceof ConditionalCheckFailedException) {
          const found = error.Item as Record<string, AttributeValue> | undefined;
          add(input.TableName, found ? Math.max(1, Math.ceil(itemBytes(found) / 1024)) : 1, 0);
        }
        throw error;
      }
    },
    { step: 'initialize', name: 'benchCapacityMeter' },
  );
  return {
    /** Runs `fn` and returns the units its calls consumed, by table. */
    async measure(fn: () => Promise<unknown>): Promise<Record<string, TableUnits>> {
      units = {};
      try {
        await fn();
        return units;
      } finally {
        units = undefined;
      }
    },
  };
}

/**
 * The users table's stream, read on DynamoDB Local: `mark()` notes where every shard ends, and
 * `since(pk)` writes a sentinel item and returns the records about partition `pk` that came before
 * it, in order (other writers may share the table: their records are left out).
 */
export async function streamTap(endpoint: string, usersTableName: string) {
  const table = localClient(endpoint);
  const { Table } = await table.send(new DescribeTableCommand({ TableName: usersTableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`${usersTableName} has no stream`);
  const streams = new DynamoDBStreamsClient({ ...localConnection(endpoint), maxAttempts: 3 });
  const cursors = new Map<string, string | undefined>();

  /** Every record of a shard after its cursor, the cursor moved to the last one. */
  const drain = async (shardId: string): Promise<_Record[]> => {
    const after = cursors.get(shardId);
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after === undefined
          ? { ShardIteratorType: 'TRIM_HORIZON' }
          : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }),
      }),
    );
    const records: _Record[] = [];
    for (let iterator = ShardIterator; iterator; ) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      records.push(...(page.Records ?? []));
      if ((page.Records ?? []).length === 0) break;
      iterator = page.NextShardIterator;
    }
    if (records.length > 0) cursors.set(shardId, records.at(-1)!.dynamodb!.SequenceNumber);
    return records;
  };
  const shards = async () => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    return (StreamDescription?.Shards ?? []).map((shard) => shard.ShardId!);
  };
  return {
    async mark(): Promise<void> {
      for (const shardId of await shards()) await drain(shardId);
    },
    /** The records about `pk` since `mark()`, up to a sentinel written now (polled for, within 10 s, then deleted). */
    async since(pk: string): Promise<ChangeRecord[]> {
      const sentinel = { pk: { S: `capacity-sentinel#${randomUUID()}` }, sk: { S: 'SENTINEL' } };
      await table.send(new PutItemCommand({ TableName: usersTableName, Item: sentinel }));
      const records: _Record[] = [];
      const deadline = Date.now() + 10_000;
      const pkOf = (record: _Record) => (record.dynamodb?.Keys?.pk as { S?: string } | undefined)?.S;
      try {
        for (;;) {
          for (const shardId of await shards()) records.push(...(await drain(shardId)));
          const at = records.findIndex((record) => pkOf(record) === sentinel.pk.S);
          if (at >= 0) return records.slice(0, at).filter((record) => pkOf(record) === pk) as ChangeRecord[];
          if (Date.now() > deadline) throw new Error('the stream did not show the sentinel within 10 s');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await table.send(new DeleteItemCommand({ TableName: usersTableName, Key: sentinel }));
      }
    },
    close() {
      table.destroy();
      streams.destroy();
    },
  };
}

/** A footprint from the units a request consumed (by AWS's rules, and as DynamoDB Local reported them) and the records it caused. */
export function footprintOf(
  units: Record<string, TableUnits>,
  localUnits: Record<string, TableUnits>,
  records: readonly ChangeRecord[],
): Footprint {
  // What the event source mapping's filter passes (events/record-filter.ts): what invokes the consumer.
  const consumed = records.filter(passesRecordFilter);
  const events = consumed.map(lifecycleEventOf).filter((event) => event !== undefined);
  return {
    units,
    localUnits,
    streamRecords: records.length,
    consumerRecords: consumed.length,
    events: events.length,
    ledgerWrites: events.filter((event) => event['detail-type'] === 'UserDeleted').length,
  };
}
