/**
 * The requests each sign-in outcome sends to the users and sign-in tables, as packages/sign-in/src/store/sign-in-store.ts
 * sends them, for the capacity model: billed by AWS's rules (capacity/request-units.ts), not by DynamoDB
 * Local's ConsumedCapacity, which bills a missing item's read nothing and a transaction once per item.
 * test/integration/request-units.test.ts records the requests the module really sends on DynamoDB
 * Local and fails when they bill otherwise than these.
 *
 * Every attempt reads the profile and the attempt state in one strongly consistent BatchGetItem (two
 * items, read whether they exist or not); a counted attempt writes the state with one conditional
 * UpdateItem; a success settles in one TransactWriteItems: a ConditionCheck on the profile and the
 * state's Delete (two items, each written twice). A `throttled` attempt is the read alone.
 */

import type { OperationName } from '#contract/operations';
import { type UnitRequest, type Units, unitsByTable } from './request-units';

/** The sign-in outcomes the model prices: a known user's right and wrong password, an unknown e-mail, an attempt refused during a wait. */
export const SIGN_IN_FLOWS = ['ok', 'wrong', 'unknown', 'throttled'] as const;
export type SignInFlow = (typeof SIGN_IN_FLOWS)[number];

export interface SignInSizes {
  /** The profile's size in bytes (the bench measures it). */
  readonly profile: number;
  /**
   * The attempt state's size in bytes. The model passes the profile's: the state has the profile's key
   * and fewer, smaller attributes, so its size is below the profile's (the integration test checks it).
   */
  readonly state: number;
}

/** Where the profile and the attempt state live (the model's table names): the users table and the sign-in table. */
export interface SignInTables {
  readonly profile: string;
  readonly state: string;
}
export const SIGN_IN_TABLES: SignInTables = { profile: 'users', state: 'sign-in' };

/**
 * The requests one attempt sends, the first attempt at a user (no state stored yet, as the bench
 * measures): `ok` and `wrong` at a user who exists, `unknown` at an e-mail no user has, `throttled`
 * at a user whose state holds a wait. A request that touches both tables is billed per table, as AWS
 * bills each item.
 */
export function signInRequests(flow: SignInFlow, sizes: SignInSizes, tables: SignInTables = SIGN_IN_TABLES): UnitRequest[] {
  const profile = flow === 'unknown' ? null : sizes.profile;
  const storedState = flow === 'throttled' ? sizes.state : null;
  const split = <T>(items: readonly [T, T], request: (table: string, items: T[]) => UnitRequest): UnitRequest[] =>
    tables.profile === tables.state
      ? [request(tables.profile, [...items])]
      : [request(tables.profile, [items[0]]), request(tables.state, [items[1]])];
  const read = split([profile, storedState] as const, (table, items) => ({ kind: 'BatchGetItem', table, items, consistency: 'strong' }));
  if (flow === 'throttled') return read;
  const count: UnitRequest = { kind: 'UpdateItem', table: tables.state, write: { before: storedState, after: sizes.state } };
  if (flow !== 'ok') return [...read, count];
  // An untrusted success: the profile checked, and on the sign-in table the state deleted and the new device record written
  // (under 1 KB, as the state: sized as it); then the cap's strongly consistent Query of the user's device records (here the one).
  const profileWrites = [{ before: sizes.profile, after: sizes.profile }];
  const stateWrites = [
    { before: sizes.state, after: null },
    { before: null, after: sizes.state },
  ];
  const cap: UnitRequest = { kind: 'Query', table: tables.state, items: [sizes.state], consistency: 'strong' };
  const settle: UnitRequest[] =
    tables.profile === tables.state
      ? [{ kind: 'TransactWriteItems', table: tables.profile, writes: [...profileWrites, ...stateWrites] }]
      : [
          { kind: 'TransactWriteItems', table: tables.profile, writes: profileWrites },
          { kind: 'TransactWriteItems', table: tables.state, writes: stateWrites },
        ];
  return [...read, count, ...settle, cap];
}

/** The units one attempt of `flow` consumes, by table. */
export const signInUnits = (flow: SignInFlow, sizes: SignInSizes, tables: SignInTables = SIGN_IN_TABLES): Record<string, Units> =>
  unitsByTable(signInRequests(flow, sizes, tables));

/** An item under 1 KB, as every item of the service is (test/integration/request-units.test.ts measures each): one write unit, one read unit. */
export const ITEM_BOUND_BYTES = 1024;

/**
 * The requests each operation sends, as functions/shared/store/users-store.ts sends them (its API key
 * read from the function's cache, as a warm function has it): createUser a conditional PutItem of the
 * profile; resetUserPassword a conditional UpdateItem of it; deleteUser a consistent Query of the
 * user's collection, one of its sign-in partition (found empty: still billed) and the profile's
 * DeleteItem; and the stream consumer's deletion-ledger PutItem for its UserDeleted.
 */
export function operationRequests(operation: OperationName, bytes = ITEM_BOUND_BYTES): UnitRequest[] | undefined {
  // A new operation is left out of the capacity table until it is priced here (a change of its own).
  const requests: Partial<Record<OperationName, UnitRequest[]>> = {
    createUser: [{ kind: 'PutItem', table: 'users', write: { before: null, after: bytes } }],
    resetUserPassword: [{ kind: 'UpdateItem', table: 'users', write: { before: bytes, after: bytes } }],
    deleteUser: [
      { kind: 'Query', table: 'users', items: [bytes], consistency: 'strong' },
      { kind: 'Query', table: 'sign-in', items: [], consistency: 'strong' },
      { kind: 'DeleteItem', table: 'users', write: { before: bytes, after: null } },
      { kind: 'PutItem', table: 'deletions', write: { before: null, after: bytes } },
    ],
  };
  return requests[operation];
}
