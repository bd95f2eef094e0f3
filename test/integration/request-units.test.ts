/**
 * The bench's request-units measurement (bench/measurements/request-units.ts), the capacity model's
 * DynamoDB inputs, run on the real engine: what each request consumes and sends down the users
 * table's stream, and the item-size rules against DynamoDB Local's own accounting at the 1 KB edge.
 */

import { randomUUID } from 'node:crypto';
import { type AttributeValue, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { processStores } from '#store/stores';
import { measureRequestUnits, type RequestUnits } from '../../bench/measurements/request-units';
import { itemBytes } from '../../bench/request-units';
import { localClient } from '../../local/dynamodb-local';
import { newOwner } from '../support/local';

const { config, stores } = processStores();
const endpoint = process.env.DYNAMODB_ENDPOINT!;

let measured: RequestUnits;
beforeAll(async () => {
  const owner = await newOwner('units');
  measured = await measureRequestUnits({
    endpoint,
    tables: {
      usersTableName: config.usersTableName,
      ownersTableName: config.ownersTableName,
      idempotencyTableName: config.idempotencyTableName,
      signInTableName: config.signInTableName,
    },
    client: stores.client,
    owner: { email: owner.ownerEmail, apiKey: owner.apiKey, ownerId: (await stores.owners.findOwner(owner.ownerEmail))!.ownerId },
    setting: config.argon2,
  });
}, 60_000);

describe('each request, once', () => {
  it('createUser and resetUserPassword: one write unit on the users table, one profile record to the consumer, one event', () => {
    for (const op of ['createUser', 'resetUserPassword'] as const) {
      expect(measured.operations[op]).toEqual({
        units: { users: { writeUnits: 1, readUnits: 0 } },
        streamRecords: 1,
        consumerRecords: 1,
        events: 1,
        ledgerWrites: 0,
      });
    }
  });

  it("deleteUser: the collection's consistent Query (one read unit) and the profile's delete, the Query of its sign-in partition; its UserDeleted writes the ledger", () => {
    expect(measured.operations.deleteUser).toEqual({
      // DynamoDB Local counts no read unit for a Query that finds nothing; AWS bills it one (a strongly consistent read's least).
      units: { users: { writeUnits: 1, readUnits: 1 }, 'sign-in': { writeUnits: 0, readUnits: 0 } },
      streamRecords: 1,
      consumerRecords: 1,
      events: 1,
      ledgerWrites: 1,
    });
  });

  it('an Idempotency-Key adds its claim and its completion on the idempotency table, and nothing to the stream', () => {
    for (const op of ['createUser', 'resetUserPassword', 'deleteUser'] as const) {
      const { units, ...rest } = measured.withIdempotencyKey[op];
      const { units: plain, ...plainRest } = measured.operations[op];
      expect(units.idempotency).toEqual({ writeUnits: 2, readUnits: 0 });
      expect(units.users).toEqual(plain.users);
      expect(rest).toEqual(plainRest);
    }
  });

  it("a sign-in: a consistent read of the profile and its state, a write of the state, a success's transaction; no stream record at all", () => {
    const units = (users: [read: number, write: number], signIn: [read: number, write: number]) => ({
      users: { readUnits: users[0], writeUnits: users[1] },
      'sign-in': { readUnits: signIn[0], writeUnits: signIn[1] },
    });
    // The state lives in the sign-in table, which has no stream: no sign-in writes a record (a rehash would, filtered out).
    const none = { streamRecords: 0, consumerRecords: 0, events: 0, ledgerWrites: 0 };
    // ok: the read (DynamoDB Local counts read units by the items it found), the state written, then the transaction
    // (ConditionCheck on the profile, the state's Delete), which Local under-counts and spreads as it reports it.
    expect(measured.signIn.ok).toEqual({ units: units([1, 2], [0, 3]), ...none });
    // wrong and an unknown e-mail alike: the read, the state's upsert; none found for an e-mail no user has.
    expect(measured.signIn.wrong).toEqual({ units: units([1, 0], [0, 1]), ...none });
    expect(measured.signIn.unknown).toEqual({ units: units([0, 0], [0, 1]), ...none });
  });

  it('item sizes: every item measured, each under 1 KB (so one write unit), the owner key item and profile of their real shape', () => {
    for (const bytes of Object.values(measured.items)) expect(bytes).toBeGreaterThan(50);
    for (const bytes of Object.values(measured.items)) expect(bytes).toBeLessThan(1024);
  });
});

describe("DynamoDB's item-size rules", () => {
  it('by hand: names and values, a number by its significant digits, 3 bytes and 1 per element for a List or Map', () => {
    const item: Record<string, AttributeValue> = {
      pk: { S: 'abc' }, // 2 + 3
      n: { N: '12300' }, // 1 + ceil(3 / 2) + 1
      ok: { BOOL: true }, // 2 + 1
      l: { L: [{ S: 'xy' }, { N: '7' }] }, // 1 + 3 + (1 + 2) + (1 + 2)
      m: { M: { k: { S: 'vv' } } }, // 1 + 3 + (1 + 1 + 2)
      é: { S: 'ü' }, // 2 + 2 (UTF-8)
    };
    expect(itemBytes(item)).toBe(5 + 4 + 3 + 10 + 8 + 4);
  });

  it("agree with DynamoDB Local's consumed write units on both sides of 1 KB", async () => {
    const client = localClient(endpoint);
    try {
      const put = async (fill: number) => {
        const item = { pk: { S: `size-${randomUUID()}` }, sk: { S: 'DATA' }, body: { S: 'x'.repeat(fill) } };
        const { ConsumedCapacity } = await client.send(
          new PutItemCommand({ TableName: config.usersTableName, Item: item, ReturnConsumedCapacity: 'TOTAL' }),
        );
        return { bytes: itemBytes(item), units: ConsumedCapacity?.CapacityUnits };
      };
      // pk (2 + 41), sk (2 + 4), body (4 + fill): 53 bytes besides the fill.
      const under = await put(1024 - 53);
      const over = await put(1025 - 53);
      expect([under.bytes, under.units]).toEqual([1024, 1]);
      expect([over.bytes, over.units]).toEqual([1025, 2]);
    } finally {
      client.destroy();
    }
  });
});
