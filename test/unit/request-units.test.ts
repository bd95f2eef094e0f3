/**
 * capacity/request-units.ts against AWS's own worked examples, each quoted with its page and the day
 * it was read (2026-11-28). KB is 1,024 bytes, as DynamoDB counts ("DynamoDB denotes 1 KB = 1024 bytes").
 *
 * Pages:
 * - RW: "DynamoDB read and write operations" (Amazon DynamoDB Developer Guide,
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html).
 * - PT: "Managing Settings on DynamoDB Provisioned Capacity Tables" (the Developer Guide's
 *   ProvisionedThroughput page, as AWS published it in github.com/awsdocs/amazon-dynamodb-developer-guide,
 *   doc_source/ProvisionedThroughput.md).
 * - TX: "Amazon DynamoDB Transactions: How it works", section "Capacity Management for Transactions"
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html).
 * - TTL: "Using time to live (TTL) in DynamoDB"
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html).
 */

import { describe, expect, it } from '@jest/globals';
import { itemBytes, type UnitRequest, unitsByTable, unitsOf, type Write } from '../../capacity/request-units';

const KB = 1024;
const t = 'table';
const get = (item: number | null, consistency: 'strong' | 'eventual' = 'strong'): UnitRequest => ({
  kind: 'GetItem',
  table: t,
  item,
  consistency,
});
const put = (write: Write): UnitRequest => ({ kind: 'PutItem', table: t, write });

describe('reads', () => {
  it('RW: "reading a 3,500-byte item consumes the same throughput as reading a 4 KB item"', () => {
    expect(unitsOf(get(3500))).toEqual(unitsOf(get(4 * KB)));
    expect(unitsOf(get(3500)).readUnits).toBe(1);
  });

  it('RW: "A strongly consistent read request of an item up to 4 KB requires one read unit. An eventually consistent read request of an item up to 4 KB requires one-half read unit."', () => {
    expect(unitsOf(get(4 * KB, 'strong')).readUnits).toBe(1);
    expect(unitsOf(get(4 * KB, 'eventual')).readUnits).toBe(0.5);
  });

  it('PT: "a strongly consistent read of an item that is 8 KB (4 KB × 2) consumes 2 read capacity units. An eventually consistent read on that same item consumes only 1 read capacity unit."', () => {
    expect(unitsOf(get(8 * KB, 'strong')).readUnits).toBe(2);
    expect(unitsOf(get(8 * KB, 'eventual')).readUnits).toBe(1);
  });

  it('PT (GetItem): "if you read an item that is 3.5 KB, DynamoDB rounds the item size to 4 KB. If you read an item of 10 KB, DynamoDB rounds the item size to 12 KB."', () => {
    expect(unitsOf(get(3.5 * KB)).readUnits).toBe(1);
    expect(unitsOf(get(10 * KB)).readUnits).toBe(3);
  });

  it('PT (BatchGetItem): "if BatchGetItem reads a 1.5 KB item and a 6.5 KB item, DynamoDB calculates the size as 12 KB (4 KB + 8 KB), not 8 KB (1.5 KB + 6.5 KB)."', () => {
    const batch: UnitRequest = { kind: 'BatchGetItem', table: t, items: [1.5 * KB, 6.5 * KB], consistency: 'strong' };
    expect(unitsOf(batch).readUnits).toBe(12 / 4);
  });

  it('PT (Query): "suppose your query returns 10 items whose combined size is 40.8 KB. DynamoDB rounds the item size for the operation to 44 KB. If a query returns 1500 items of 64 bytes each, the cumulative size is 96 KB."', () => {
    const tenItems = Array.from({ length: 10 }, () => (40.8 * KB) / 10);
    expect(unitsOf({ kind: 'Query', table: t, items: tenItems, consistency: 'strong' }).readUnits).toBe(44 / 4);
    const small = Array.from({ length: 1500 }, () => 64);
    expect(unitsOf({ kind: 'Query', table: t, items: small, consistency: 'strong' }).readUnits).toBe(96 / 4);
  });

  it('PT: "For an eventually consistent read, if the total item size is 80 KB, the operation consumes only 10 capacity units."', () => {
    expect(unitsOf({ kind: 'Query', table: t, items: [80 * KB], consistency: 'eventual' }).readUnits).toBe(10);
  });

  it('PT: "If you perform a read operation on an item that does not exist, DynamoDB still consumes provisioned read throughput: A strongly consistent read request consumes one read capacity unit, while an eventually consistent read request consumes 0.5 of a read capacity unit."', () => {
    expect(unitsOf(get(null, 'strong')).readUnits).toBe(1);
    expect(unitsOf(get(null, 'eventual')).readUnits).toBe(0.5);
    // BatchGetItem is a GetItem per item: two keys no item has, read strongly consistent, are two units.
    expect(unitsOf({ kind: 'BatchGetItem', table: t, items: [null, null], consistency: 'strong' }).readUnits).toBe(2);
  });

  it('PT: "suppose that you want to read 80 items per second from a table. The items are 3 KB in size, and you want strongly consistent reads. [...] you have to set the table\'s provisioned read throughput to 80 read capacity units"', () => {
    expect(80 * unitsOf(get(3 * KB)).readUnits).toBe(80);
  });
});

describe('writes', () => {
  it('PT: "Item sizes for writes are rounded up to the next 1 KB multiple. For example, writing a 500-byte item consumes the same throughput as writing a 1 KB item."', () => {
    expect(unitsOf(put({ before: null, after: 500 }))).toEqual(unitsOf(put({ before: null, after: KB })));
    expect(unitsOf(put({ before: null, after: 500 })).writeUnits).toBe(1);
  });

  it('PT: "if you put or delete an item of 1.6 KB, DynamoDB rounds the item size up to 2 KB."', () => {
    expect(unitsOf(put({ before: null, after: 1.6 * KB })).writeUnits).toBe(2);
    expect(unitsOf({ kind: 'DeleteItem', table: t, write: { before: 1.6 * KB, after: null } }).writeUnits).toBe(2);
  });

  it('PT (PutItem): "If an item with the same primary key exists in the table, the operation replaces the item. For calculating provisioned throughput consumption, the item size that matters is the larger of the two."', () => {
    expect(unitsOf(put({ before: 2.5 * KB, after: 300 })).writeUnits).toBe(3);
  });

  it('PT (UpdateItem): "The provisioned throughput consumed reflects the larger of these item sizes. Even if you update just a subset of the item\'s attributes, UpdateItem will still consume the full amount"', () => {
    expect(unitsOf({ kind: 'UpdateItem', table: t, write: { before: 3.2 * KB, after: 3.3 * KB } }).writeUnits).toBe(4);
  });

  it('PT (BatchWriteItem): "if BatchWriteItem writes a 500-byte item and a 3.5 KB item, DynamoDB calculates the size as 5 KB (1 KB + 4 KB), not 4 KB (500 bytes + 3.5 KB)."', () => {
    const batch: UnitRequest = {
      kind: 'BatchWriteItem',
      table: t,
      writes: [
        { before: null, after: 500 },
        { before: null, after: 3.5 * KB },
      ],
    };
    expect(unitsOf(batch).writeUnits).toBe(5);
  });

  it('PT: "If the expression evaluates to false, DynamoDB still consumes write capacity units from the table: For an existing item, [...] a failed conditional write of a 1 KB item would consume one write capacity unit. If the new item were twice that size, the failed conditional write would consume two write capacity units. For a new item, DynamoDB consumes one write capacity unit."', () => {
    expect(unitsOf(put({ before: KB, after: KB, refused: true })).writeUnits).toBe(1);
    expect(unitsOf(put({ before: KB, after: 2 * KB, refused: true })).writeUnits).toBe(2);
    expect(unitsOf(put({ before: null, after: 3 * KB, refused: true })).writeUnits).toBe(1);
  });

  it('PT: "suppose that you want to write 100 items per second to your table, and that the items are 512 bytes in size. [...] 100 write capacity units"', () => {
    expect(100 * unitsOf(put({ before: null, after: 512 })).writeUnits).toBe(100);
  });
});

describe('transactions and TTL', () => {
  it('TX: "suppose that your application executes one transaction per second, and each transaction writes three 500-byte items in your table. Each item requires two write capacity units (WCUs): one to prepare the transaction and one to commit the transaction. Therefore, you would need to provision six WCUs to the table."', () => {
    const three = Array.from({ length: 3 }, (): Write => ({ before: null, after: 500 }));
    expect(unitsOf({ kind: 'TransactWriteItems', table: t, writes: three }).writeUnits).toBe(6);
  });

  it('TX: "if your application executes one read transaction per second, and each transaction reads three 500-byte items in your table, you would need to provision six read capacity units (RCUs) to the table."', () => {
    expect(unitsOf({ kind: 'TransactGetItems', table: t, items: [500, 500, 500] }).readUnits).toBe(6);
  });

  it('TTL: "Shortly after the date and time of the specified timestamp, DynamoDB deletes the item from your table without consuming any write throughput."', () => {
    expect(unitsOf({ kind: 'TtlDelete', table: t, item: 3 * KB })).toEqual({ readUnits: 0, writeUnits: 0 });
  });

  it('a flow adds up by table', () => {
    expect(
      unitsByTable([
        { kind: 'BatchGetItem', table: 'users', items: [null, null], consistency: 'strong' },
        { kind: 'UpdateItem', table: 'users', write: { before: null, after: 100 } },
        { kind: 'PutItem', table: 'other', write: { before: null, after: 100 } },
      ]),
    ).toEqual({ users: { readUnits: 2, writeUnits: 1 }, other: { readUnits: 0, writeUnits: 1 } });
  });
});

describe("DynamoDB's item-size rules", () => {
  it('names and values, a number by its significant digits, 3 bytes and 1 per element for a List or Map', () => {
    expect(
      itemBytes({
        pk: { S: 'abc' }, // 2 + 3
        n: { N: '12300' }, // 1 + ceil(3 / 2) + 1
        ok: { BOOL: true }, // 2 + 1
        l: { L: [{ S: 'xy' }, { N: '7' }] }, // 1 + 3 + (1 + 2) + (1 + 2)
        m: { M: { k: { S: 'vv' } } }, // 1 + 3 + (1 + 1 + 2)
        é: { S: 'ü' }, // 2 + 2 (UTF-8)
      }),
    ).toBe(5 + 4 + 3 + 10 + 8 + 4);
  });
});
