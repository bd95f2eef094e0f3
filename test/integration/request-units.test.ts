/**
 * The request-units probe (test/support/request-units/), the capacity model's
 * DynamoDB inputs, run on the real engine: what each request consumes and sends down the users
 * table's stream, and the item-size rules against DynamoDB Local's own accounting at the 1 KB edge.
 */

import { randomUUID } from 'node:crypto';
import { type AttributeValue, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { OPERATIONS } from '#contract/operations';
import { processStores } from '#store/stores';
import { signInUnits } from '../../capacity/flows';
import { localClient } from '../../local/dynamodb-local';
import { newOwner } from '../support/local';
import { itemBytes } from '../support/request-units/footprint';
import { measureRequestUnits, type RequestUnits } from '../support/request-units/measure';

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

describe('DynamoDB calls per request', () => {
  it('each operation (its API key cached, as a warm function has it) and each sign-in outcome, command by command', () => {
    expect(measured.calls).toEqual({
      createUser: ['PutItem'],
      resetUserPassword: ['UpdateItem'],
      // The user's collection, its sign-in partition, then the profile.
      deleteUser: ['Query', 'Query', 'DeleteItem'],
      // The profile and the state in one read; a success settles in one transaction (then, having made a device record,
      // queries the user's records for the cap, ADR 30), a failure counts in one update.
      'sign-in ok': ['BatchGetItem', 'UpdateItem', 'TransactWriteItems', 'Query'],
      'sign-in wrong': ['BatchGetItem', 'UpdateItem'],
      'sign-in unknown': ['BatchGetItem', 'UpdateItem'],
      // The profile's times and the device's record (and, in a cold process, the owner's key) in one read, whatever the answer.
      'check-session valid': ['BatchGetItem'],
      'check-session ended': ['BatchGetItem'],
    });
  });
});

describe('each request, once', () => {
  it('createUser and resetUserPassword: one write unit on the users table, one profile record to the consumer, one event', () => {
    for (const op of ['createUser', 'resetUserPassword'] as const) {
      expect(measured.operations[op]).toEqual({
        units: { users: { writeUnits: 1, readUnits: 0 } },
        localUnits: { users: { writeUnits: 1, readUnits: 0 } },
        streamRecords: 1,
        consumerRecords: 1,
        events: 1,
        ledgerWrites: 0,
      });
    }
  });

  it("deleteUser: the collection's consistent Query (one read unit) and the profile's delete, the Query of its sign-in partition; its UserDeleted writes the ledger", () => {
    expect(measured.operations.deleteUser).toEqual({
      // AWS bills the Query of the user's sign-in partition a read unit even when it finds nothing; DynamoDB Local bills it nothing.
      units: { users: { writeUnits: 1, readUnits: 1 }, 'sign-in': { writeUnits: 0, readUnits: 1 } },
      localUnits: { users: { writeUnits: 1, readUnits: 1 }, 'sign-in': { writeUnits: 0, readUnits: 0 } },
      streamRecords: 1,
      consumerRecords: 1,
      events: 1,
      ledgerWrites: 1,
    });
  });

  it('an Idempotency-Key adds its claim and its completion on the idempotency table, and nothing to the stream', () => {
    for (const op of OPERATIONS) {
      const { units, localUnits, ...rest } = measured.withIdempotencyKey[op];
      const { units: plain, localUnits: _plainLocal, ...plainRest } = measured.operations[op];
      expect(units.idempotency).toEqual({ writeUnits: 2, readUnits: 0 });
      // DynamoDB Local agrees on the idempotency table (it bills deleteUser's empty Query of the sign-in table nothing).
      expect(localUnits.idempotency).toEqual(units.idempotency);
      expect(units.users).toEqual(plain.users);
      expect(rest).toEqual(plainRest);
    }
  });

  it("a sign-in by AWS's rules: the profile and the state read strongly consistent whether they exist or not, the state's write, a success's transaction twice per item; the sign-in table has no stream", () => {
    const units = (users: [read: number, write: number], signIn: [read: number, write: number]) => ({
      users: { readUnits: users[0], writeUnits: users[1] },
      'sign-in': { readUnits: signIn[0], writeUnits: signIn[1] },
    });
    const none = { streamRecords: 0, consumerRecords: 0, events: 0, ledgerWrites: 0 };
    // ok: one BatchGetItem of the profile and the state (1 R on each table), the state's conditional UpdateItem (1 W), then the
    // TransactWriteItems (ConditionCheck on the profile; the state's Delete and the new device record: each item written
    // twice, 2 W on the users table and 4 W on the sign-in table), then the cap's Query of the device records (1 R).
    expect(measured.signIn.ok).toMatchObject({ units: units([1, 2], [2, 5]), ...none });
    // wrong and an unknown e-mail alike: the read of both items (the state is missing, and for an unknown e-mail the profile too) and the count.
    expect(measured.signIn.wrong).toMatchObject({ units: units([1, 0], [1, 1]), ...none });
    expect(measured.signIn.unknown).toMatchObject({ units: units([1, 0], [1, 1]), ...none });
  });

  it('the capacity model prices the requests the sign-in really sends (capacity/flows.ts), the state sized below the profile', () => {
    const sizes = { profile: measured.items.profile, state: measured.items.signInState };
    for (const flow of ['ok', 'wrong', 'unknown'] as const) expect(measured.signIn[flow].units).toEqual(signInUnits(flow, sizes));
    // The model sizes the state as the profile: an upper bound.
    expect(measured.items.signInState).toBeLessThan(measured.items.profile);
  });

  it("DynamoDB Local's ConsumedCapacity, the cross-check: it bills a missing item's read nothing and a transaction once per item", () => {
    const units = (users: [read: number, write: number], signIn: [read: number, write: number]) => ({
      users: { readUnits: users[0], writeUnits: users[1] },
      'sign-in': { readUnits: signIn[0], writeUnits: signIn[1] },
    });
    expect(measured.signIn.ok.localUnits).toEqual(units([1, 2], [1, 3]));
    expect(measured.signIn.wrong.localUnits).toEqual(units([1, 0], [0, 1]));
    expect(measured.signIn.unknown.localUnits).toEqual(units([0, 0], [0, 1]));
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
