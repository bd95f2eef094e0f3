/**
 * Request units by AWS's rules: what DynamoDB bills for the requests a flow sends, from the sizes of
 * the items each request touches (null: no such item). Pure arithmetic, no SDK and no I/O: the
 * capacity model (capacity/flows.ts, capacity/model.ts), the request-units probe of the tests
 * (test/support/request-units/, which records the requests really sent) and docs/capacity.md use it.
 * test/unit/request-units.test.ts reproduces AWS's own worked examples, each quoted.
 *
 * The rules, as AWS's developer guide states them (quoted in the test):
 * - a read rounds each item up to the next 4 KB, a strongly consistent read costs one unit per
 *   4 KB and an eventually consistent one half that; an item that does not exist still costs a
 *   read (one unit strongly consistent, half eventually);
 * - BatchGetItem is a GetItem per item (each rounded on its own); a Query rounds the total of the
 *   items it returns;
 * - a write rounds the item up to the next 1 KB, the larger of its size before and after; a refused
 *   conditional write still costs the new item's size, one unit for an item that did not exist;
 *   BatchWriteItem is a PutItem or DeleteItem per item;
 * - a transaction costs two underlying reads or writes of every item in it (prepare and commit);
 * - a delete by Time to Live costs nothing.
 */

/** Bytes a read unit covers, and a write unit ("DynamoDB denotes 1 KB = 1024 bytes"). */
export const READ_UNIT_BYTES = 4096;
export const WRITE_UNIT_BYTES = 1024;

/** An item's size in bytes by DynamoDB's item-size rules, or null when no item has the key. */
export type ItemSize = number | null;

export type Consistency = 'strong' | 'eventual';

/** One request a flow sends, by what DynamoDB bills it on. */
export type UnitRequest =
  | { readonly kind: 'GetItem'; readonly table: string; readonly item: ItemSize; readonly consistency: Consistency }
  | { readonly kind: 'BatchGetItem'; readonly table: string; readonly items: readonly ItemSize[]; readonly consistency: Consistency }
  /** The items the Query returns (their whole sizes: a projection does not change the size counted). */
  | { readonly kind: 'Query'; readonly table: string; readonly items: readonly number[]; readonly consistency: Consistency }
  | { readonly kind: 'TransactGetItems'; readonly table: string; readonly items: readonly ItemSize[] }
  | { readonly kind: 'PutItem' | 'UpdateItem' | 'DeleteItem'; readonly table: string; readonly write: Write }
  | { readonly kind: 'BatchWriteItem'; readonly table: string; readonly writes: readonly Write[] }
  /** Every action of the transaction, a ConditionCheck included (an item of the transaction, billed as a write). */
  | { readonly kind: 'TransactWriteItems'; readonly table: string; readonly writes: readonly Write[] }
  /** A deletion by the table's Time to Live. */
  | { readonly kind: 'TtlDelete'; readonly table: string; readonly item: number };

/**
 * One item written: its size before the write and after it (null where no item is). A refused
 * conditional write (`refused: true`) changes nothing; `after` is then the item the request would
 * have written.
 */
export interface Write {
  readonly before: ItemSize;
  readonly after: ItemSize;
  readonly refused?: boolean;
}

export interface Units {
  readonly readUnits: number;
  readonly writeUnits: number;
}

const roundUp = (bytes: number, unit: number) => Math.max(1, Math.ceil(bytes / unit));
const half = (consistency: Consistency) => (consistency === 'strong' ? 1 : 0.5);

/** Read units of one item read on its own: a missing item still costs one read. */
export const itemReadUnits = (item: ItemSize, consistency: Consistency): number =>
  (item === null ? 1 : roundUp(item, READ_UNIT_BYTES)) * half(consistency);

/** Write units of one item written: the larger of before and after, rounded up to 1 KB; a refused write by the new item, one unit for a new one. */
export function itemWriteUnits(write: Write): number {
  if (write.refused) return write.before === null ? 1 : roundUp(write.after ?? write.before, WRITE_UNIT_BYTES);
  return roundUp(Math.max(write.before ?? 0, write.after ?? 0), WRITE_UNIT_BYTES);
}

/** The units one request consumes. */
export function unitsOf(request: UnitRequest): Units {
  switch (request.kind) {
    case 'GetItem':
      return { readUnits: itemReadUnits(request.item, request.consistency), writeUnits: 0 };
    case 'BatchGetItem':
      return { readUnits: sum(request.items.map((item) => itemReadUnits(item, request.consistency))), writeUnits: 0 };
    case 'Query':
      return { readUnits: roundUp(sum(request.items), READ_UNIT_BYTES) * half(request.consistency), writeUnits: 0 };
    case 'TransactGetItems':
      return { readUnits: 2 * sum(request.items.map((item) => itemReadUnits(item, 'strong'))), writeUnits: 0 };
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return { readUnits: 0, writeUnits: itemWriteUnits(request.write) };
    case 'BatchWriteItem':
      return { readUnits: 0, writeUnits: sum(request.writes.map(itemWriteUnits)) };
    case 'TransactWriteItems':
      return { readUnits: 0, writeUnits: 2 * sum(request.writes.map(itemWriteUnits)) };
    case 'TtlDelete':
      return { readUnits: 0, writeUnits: 0 };
  }
}

/** The units a flow's requests consume, by table. */
export function unitsByTable(requests: readonly UnitRequest[]): Record<string, Units> {
  const tables: Record<string, { readUnits: number; writeUnits: number }> = {};
  for (const request of requests) {
    const units = unitsOf(request);
    const entry = tables[request.table] ?? { readUnits: 0, writeUnits: 0 };
    tables[request.table] = { readUnits: entry.readUnits + units.readUnits, writeUnits: entry.writeUnits + units.writeUnits };
  }
  return tables;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

// DynamoDB's item-size rules ("Item sizes and formats"): an attribute's name and its value.

/** An attribute value in DynamoDB's wire form (the subset of the SDK's AttributeValue this needs). */
export interface WireValue {
  readonly S?: string;
  readonly N?: string;
  readonly B?: Uint8Array;
  readonly BOOL?: boolean;
  readonly NULL?: boolean;
  readonly L?: readonly WireValue[];
  readonly M?: Readonly<Record<string, WireValue>>;
  readonly SS?: readonly string[];
  readonly NS?: readonly string[];
  readonly BS?: readonly Uint8Array[];
}

const utf8 = (text: string) => new TextEncoder().encode(text).length;
/** Significant digits of a DynamoDB number: leading and trailing zeros trimmed, sign and point dropped. */
const significantDigits = (n: string) => n.replace(/^[-+]/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length || 1;

/** A value's size by DynamoDB's item-size rules: the name is counted by the caller. */
export function valueBytes(value: WireValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return Math.ceil(significantDigits(value.N) / 2) + 1;
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  // A List or Map: 3 bytes, and 1 byte per element besides the element itself.
  if (value.L !== undefined) return 3 + value.L.reduce((total, element) => total + 1 + valueBytes(element), 0);
  if (value.M !== undefined) return 3 + itemBytes(value.M) + Object.keys(value.M).length;
  if (value.SS !== undefined) return value.SS.reduce((total, s) => total + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((total, n) => total + Math.ceil(significantDigits(n) / 2) + 1, 0);
  if (value.BS !== undefined) return value.BS.reduce((total, b) => total + b.length, 0);
  throw new Error(`no size rule for ${Object.keys(value).join(', ')}`);
}

/** An item's size in bytes: each attribute's name and value. */
export const itemBytes = (item: Readonly<Record<string, WireValue>>): number =>
  Object.entries(item).reduce((total, [name, value]) => total + utf8(name) + valueBytes(value), 0);
