/**
 * The requests a flow really sends, recorded for billing by AWS's rules (capacity/request-units.ts):
 * an SDK middleware on the flow's document client notes each DynamoDB call, and around it reads the
 * items it touches on a separate client (unmetered, strongly consistent) for their whole sizes before
 * and after, so that a missing item, a refused condition, a transaction's every item and a projection
 * are billed as AWS bills them. DynamoDB Local's own ConsumedCapacity (capacityMeter) is kept beside
 * it as a cross-check only.
 */

import { ConditionalCheckFailedException, DescribeTableCommand, type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { type ItemSize, itemBytes, type UnitRequest, type Write } from '../../../capacity/request-units';

type Doc = Record<string, unknown>;

/** The middleware and its `measure`: installed once on `client`, idle outside `measure`. */
export function requestRecorder(client: DynamoDBDocumentClient, raw: DynamoDBClient, tableKinds: Readonly<Record<string, string>>) {
  const lookups = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const keyNames = new Map<string, string[]>();
  let recorded: UnitRequest[] | undefined;

  const keyOf = async (table: string, item: Doc): Promise<Doc> => {
    let names = keyNames.get(table);
    if (!names) {
      const { Table } = await raw.send(new DescribeTableCommand({ TableName: table }));
      names = (Table?.KeySchema ?? []).map((k) => k.AttributeName!);
      keyNames.set(table, names);
    }
    return Object.fromEntries(names.map((name) => [name, item[name]]));
  };
  const sizeAt = async (table: string, key: Doc): Promise<ItemSize> => {
    const { Item } = await raw.send(
      new GetItemCommand({ TableName: table, Key: marshall(key, { removeUndefinedValues: true }), ConsistentRead: true }),
    );
    return Item ? itemBytes(Item) : null;
  };
  const kind = (table: string) => tableKinds[table] ?? table;

  /** The items a write command touches, as [table, key, the item it would write (Put), whether only checked]. */
  const writeTargets = (command: string, input: Doc): { table: string; key: Doc; put?: Doc; check?: boolean }[] => {
    if (command === 'PutItem') return [{ table: input.TableName as string, key: input.Item as Doc, put: input.Item as Doc }];
    if (command === 'UpdateItem' || command === 'DeleteItem') return [{ table: input.TableName as string, key: input.Key as Doc }];
    if (command === 'BatchWriteItem')
      return Object.entries(input.RequestItems as Record<string, Doc[]>).flatMap(([table, requests]) =>
        requests.map((r) =>
          r.PutRequest
            ? { table, key: (r.PutRequest as Doc).Item as Doc, put: (r.PutRequest as Doc).Item as Doc }
            : { table, key: (r.DeleteRequest as Doc).Key as Doc },
        ),
      );
    if (command === 'TransactWriteItems')
      return (input.TransactItems as Doc[]).map((action) => {
        const [name, body] = Object.entries(action)[0] as [string, Doc];
        return {
          table: body.TableName as string,
          key: (body.Item as Doc | undefined) ?? (body.Key as Doc),
          ...(name === 'Put' && { put: body.Item as Doc }),
          ...(name === 'ConditionCheck' && { check: true }),
        };
      });
    return [];
  };

  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context.commandName ?? '').replace(/Command$/, '');
      if (!recorded) return next(args);
      const record = recorded;
      const input = args.input as Doc;
      if (command === 'GetItem' || command === 'BatchGetItem') {
        const reads =
          command === 'GetItem'
            ? [{ table: input.TableName as string, keys: [input.Key as Doc], consistent: input.ConsistentRead === true }]
            : Object.entries(input.RequestItems as Record<string, Doc>).map(([table, request]) => ({
                table,
                keys: request.Keys as Doc[],
                consistent: request.ConsistentRead === true,
              }));
        const result = await next(args);
        for (const { table, keys, consistent } of reads) {
          const items = await Promise.all(keys.map((key) => sizeAt(table, key)));
          const consistency = consistent ? 'strong' : 'eventual';
          record.push(
            command === 'GetItem'
              ? { kind: 'GetItem', table: kind(table), item: items[0]!, consistency }
              : { kind: 'BatchGetItem', table: kind(table), items, consistency },
          );
        }
        return result;
      }
      if (command === 'Query') {
        const result = await next(args);
        // The whole items the Query read (a projection does not change what is billed): the same Query, unprojected.
        const { ProjectionExpression: _projection, ExpressionAttributeNames: names, ...rest } = input;
        const used = `${String(input.KeyConditionExpression ?? '')} ${String(input.FilterExpression ?? '')}`;
        const kept = names ? Object.fromEntries(Object.entries(names as Doc).filter(([alias]) => used.includes(alias))) : undefined;
        const whole = await lookups.send(
          new QueryCommand({
            ...(rest as unknown as ConstructorParameters<typeof QueryCommand>[0]),
            ...(kept && Object.keys(kept).length > 0 && { ExpressionAttributeNames: kept as Record<string, string> }),
          }),
        );
        record.push({
          kind: 'Query',
          table: kind(input.TableName as string),
          items: (whole.Items ?? []).map((item) => itemBytes(marshall(item, { removeUndefinedValues: true }))),
          consistency: input.ConsistentRead === true ? 'strong' : 'eventual',
        });
        return result;
      }
      const targets = writeTargets(command, input);
      if (targets.length === 0) return next(args);
      const keyed = await Promise.all(targets.map(async (target) => ({ ...target, key: await keyOf(target.table, target.key) })));
      const before = await Promise.all(keyed.map((target) => sizeAt(target.table, target.key)));
      let refused = false;
      try {
        return await next(args);
      } catch (error) {
        // A refused condition (or a cancelled transaction) writes nothing and is still billed.
        refused = error instanceof ConditionalCheckFailedException || (error as { name?: string }).name === 'TransactionCanceledException';
        throw error;
      } finally {
        const after = await Promise.all(keyed.map((target) => sizeAt(target.table, target.key)));
        const writes: Write[] = keyed.map((target, i) => {
          if (target.check) return { before: before[i]!, after: before[i]! };
          if (!refused) return { before: before[i]!, after: after[i]! };
          const attempted = target.put ? itemBytes(marshall(target.put, { removeUndefinedValues: true })) : before[i]!;
          return { before: before[i]!, after: attempted, refused: true };
        });
        const table = kind(keyed[0]!.table);
        if (command === 'BatchWriteItem' || command === 'TransactWriteItems') {
          // One request per table, as AWS bills each table's items.
          for (const name of new Set(keyed.map((t) => kind(t.table)))) {
            const mine = writes.filter((_, i) => kind(keyed[i]!.table) === name);
            record.push({ kind: command, table: name, writes: mine });
          }
        } else {
          record.push({ kind: command as 'PutItem' | 'UpdateItem' | 'DeleteItem', table, write: writes[0]! });
        }
      }
    },
    { step: 'initialize', name: 'benchRequestRecorder' },
  );

  return {
    /** Runs `fn` and returns the requests its calls sent, each with the sizes AWS bills it by. */
    async measure(fn: () => Promise<unknown>): Promise<UnitRequest[]> {
      recorded = [];
      try {
        await fn();
        return recorded;
      } finally {
        recorded = undefined;
      }
    },
  };
}
