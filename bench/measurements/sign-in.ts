/**
 * A sign-in against its floor, by outcome: the module's rules (the domain's signIn on its DynamoDB
 * adapter, over a client built as the module builds its own) call by call beside the bare work the
 * outcome needs on the same client (one verification at the stage's setting, and the same store
 * operations without their conditions: a BatchGetItem of the profile and the state, an UpdateItem
 * of a state, for `ok` a TransactWriteItems of a ConditionCheck, the trusted budget's and the state's
 * Deletes and a new device record (an untrusted success trusts the browser); for `throttled` the read
 * alone). `trustedOk` is an `ok` with a valid device cookie (trusted-devices.ts), on an account
 * that strangers' guesses keep waiting (so only the cookie's trust can answer `ok`): its floor reads
 * the device's record with the profile and the state, counts on the device and the trusted budget in
 * one TransactWriteItems, verifies, and settles in one TransactWriteItems (ConditionCheck, the budget
 * deleted, the device's record rewritten), all without conditions. The share is the sign-in's CPU
 * beyond the hash less its floor's, round by round, in this process. Also: the DynamoDB calls of each
 * outcome, and how many of the stream records that sign-ins write pass the lifecycle-events consumer's
 * filter (per 1,000 sign-ins; target 0).
 */

import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createCostlyLane } from '#domain/costly-lane';
import { verifyHash } from '#domain/password-hashes';
import { hashPassword } from '#domain/passwords';
import { dummyHash, type SignInDeps, signIn } from '#domain/sign-in';
import { FREE_FAILURES } from '#domain/sign-in-attempts';
import { DEVICE_COOKIE_DAYS, passwordBinding, secretDigest } from '#domain/trusted-devices';
import { passesRecordFilter } from '#events/record-filter';
import { localConnection } from '#store/client';
import { createSignInStore } from '#store/sign-in-store';
import { deviceKey, signInStateKey, trustedBudgetKey, userKey, userPk } from '#store/table-layout';
import { createUsersStore } from '#store/users-store';
import { atMost, holds, type Measurement } from '../measurement';
import { table } from '../report';
import { streamTap } from '../request-units';
import { measureRounds, NOTHING, nothing, type PhaseCpu } from '../stand-in';
import { formatSpread, MIN_ROUNDS, type Spread, spread } from '../stats';

export const OUTCOMES = ['ok', 'wrong', 'unknown', 'throttled', 'trustedOk'] as const;
export type Outcome = (typeof OUTCOMES)[number];
const FLOOR = {
  ok: 'floorOk',
  wrong: 'floorWrong',
  unknown: 'floorUnknown',
  throttled: 'floorThrottled',
  trustedOk: 'floorTrustedOk',
} as const;
const FLOOR_NAME: Record<Outcome, string> = {
  ok: 'verify, BatchGetItem, UpdateItem, TransactWriteItems (ConditionCheck, Delete, Delete, Update)',
  wrong: 'verify, BatchGetItem, UpdateItem',
  unknown: 'verify, BatchGetItem, UpdateItem',
  throttled: 'BatchGetItem',
  trustedOk:
    'verify, BatchGetItem (with the device), TransactWriteItems (Update, Update), TransactWriteItems (ConditionCheck, Delete, Update)',
};
/** The DynamoDB calls each outcome makes (sign-in-store.ts). */
const EXPECTED_CALLS: Record<Outcome, number> = { ok: 3, wrong: 2, unknown: 2, throttled: 1, trustedOk: 3 };
const SHARE_LIMIT_MS = 0.5;
const PASSWORD = 'correct horse battery staple';

export interface SignInShare {
  readonly floor: string;
  readonly signInMs: number;
  readonly floorMs: number;
  readonly shareMs: Spread;
}

export interface SignInBench {
  readonly rounds: number;
  readonly callsPerRound: number;
  readonly phases: Record<string, PhaseCpu>;
  readonly share: Record<Outcome, SignInShare>;
  /** DynamoDB calls of one sign-in of each outcome, by command. */
  readonly ddbCalls: Record<Outcome, Record<string, number>>;
  /** Stream records written by `signIns` sign-ins (a known user's and an unknown e-mail's), and how many pass the consumer's filter. */
  readonly stream: { readonly signIns: number; readonly records: number; readonly passing: number; readonly perThousand: number };
}

export const signInMeasurement: Measurement<SignInBench> = {
  name: 'signIn',
  title: "a sign-in by outcome against its floor (the module's rules and client, in this process), its DynamoDB calls and stream records",
  needs: ['dynamodb'],
  async run(context) {
    const { endpoint, tables } = context.dynamodb;
    const table_ = tables.usersTableName;
    const stateTable = tables.signInTableName;
    const ownerId = randomUUID();
    const setting = context.setting;
    const calls: string[] = [];
    // A client as the module builds its own (packages/sign-in/src/index.ts), counting commands.
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ ...localConnection(endpoint), maxAttempts: 3, retryMode: 'standard' }));
    db.middlewareStack.add(
      (next, ctx) => async (args) => {
        calls.push(String(ctx.commandName).replace(/Command$/, ''));
        return next(args);
      },
      { step: 'initialize' },
    );
    const lane = createCostlyLane();
    const fixedNow = Date.now();
    const deps: SignInDeps = {
      store: createSignInStore(db, { usersTable: table_, signInTable: stateTable }),
      setting,
      lane,
      now: () => fixedNow,
    };
    const users = createUsersStore(db, table_, stateTable);
    const hash = await hashPassword(PASSWORD, setting);
    const dummy = await dummyHash(setting);
    const create = async (tag: string) => {
      const email = `${tag}-${randomUUID().slice(0, 13)}@example.com`;
      await users.createUser({ ownerId, email, passwordHash: hash, shouldResetPassword: false });
      return email;
    };
    const attempt = (email: string, password: string) => signIn(deps, { ownerId, email, password });
    const expect = async (email: string, password: string, outcome: string) => {
      const result = await attempt(email, password);
      if (result.outcome !== outcome) throw new Error(`sign-in bench: expected ${outcome}, got ${result.outcome}`);
      return true;
    };

    const rounds = context.quick ? MIN_ROUNDS : 6;
    // --quick: five rounds of 8 (a full run: 6 rounds of 24), of each outcome and of each floor.
    const perRound = context.quick ? 8 : 24;
    // The warm-up's ten, the rounds', and one more for counting the DynamoDB calls.
    const total = 10 + rounds * perRound + 1;
    const okUser = await create('sign-in-ok');
    const throttledUser = await create('sign-in-throttled');
    for (let i = 0; i <= FREE_FAILURES; i++) await attempt(throttledUser, 'wrong password');
    // The `wrong` and `unknown` phases give each e-mail its free failures only, never a wait, then move on.
    const wrongUsers: string[] = [];
    for (let i = 0; i < Math.ceil(total / FREE_FAILURES); i++) wrongUsers.push(await create('sign-in-wrong'));
    const unknown = Array.from(
      { length: Math.ceil(total / FREE_FAILURES) },
      () => `sign-in-unknown-${randomUUID().slice(0, 13)}@example.com`,
    );
    // The trusted user: a device cookie from a first success, then strangers' guesses until the account waits.
    const trustedUser = await create('sign-in-trusted');
    const first = await attempt(trustedUser, PASSWORD);
    if (first.outcome !== 'ok') throw new Error(`sign-in bench: expected ok, got ${first.outcome}`);
    let deviceCookie = first.deviceCookie;
    for (let i = 0; i <= FREE_FAILURES; i++) await attempt(trustedUser, 'wrong password');
    if ((await attempt(trustedUser, PASSWORD)).outcome !== 'throttled') throw new Error('sign-in bench: the trusted user does not wait');
    const floorUser = await create('sign-in-floor');
    const floorEmail = `floor-${randomUUID().slice(0, 13)}@example.com`;
    const floorState = signInStateKey(ownerId, floorEmail);
    const floorDevice = deviceKey(ownerId, floorEmail, randomUUID());
    const floorBudget = trustedBudgetKey(ownerId, floorEmail);

    const read = (email: string) =>
      db.send(
        new BatchGetCommand({
          RequestItems: {
            [table_]: {
              Keys: [userKey(ownerId, email)],
              ConsistentRead: true,
              ProjectionExpression: 'password_hash, should_reset_password',
            },
            [stateTable]: {
              Keys: [signInStateKey(ownerId, email)],
              ConsistentRead: true,
              ProjectionExpression: 'failures, wait_until, hash_tag, expires_at',
            },
          },
        }),
      );
    const count = () =>
      db.send(
        new UpdateCommand({
          TableName: stateTable,
          Key: floorState,
          UpdateExpression: 'SET failures = :f, wait_until = :w, hash_tag = :t',
          ExpressionAttributeValues: { ':f': 1, ':w': fixedNow, ':t': 'floor' },
        }),
      );
    const settle = () =>
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: table_,
                Key: userKey(ownerId, floorUser),
                ConditionExpression: 'password_hash = :h',
                ExpressionAttributeValues: { ':h': hash },
              },
            },
            { Delete: { TableName: stateTable, Key: floorBudget } },
            { Delete: { TableName: stateTable, Key: floorState } },
            // An untrusted success trusts the browser: a new device record, with its fresh cookie's digest.
            {
              Update: {
                TableName: stateTable,
                Key: deviceKey(ownerId, floorEmail, randomUUID()),
                UpdateExpression:
                  'SET secret_digest = :digest, device_binding = :binding, failures = :zero, expires_at = :expires, last_used_at = :at, created_at = :at',
                ExpressionAttributeValues: {
                  ':digest': secretDigest(randomUUID()),
                  ':binding': passwordBinding(undefined, undefined),
                  ':zero': 0,
                  ':expires': Math.floor(fixedNow / 1000) + DEVICE_COOKIE_DAYS * 86_400,
                  ':at': new Date(fixedNow).toISOString(),
                },
              },
            },
          ],
        }),
      );
    // The trusted floor's store operations, bare: the read with the device's record, the count on the device and the budget, the settling.
    const readWithDevice = () =>
      db.send(
        new BatchGetCommand({
          RequestItems: {
            [table_]: {
              Keys: [userKey(ownerId, floorUser)],
              ConsistentRead: true,
              ProjectionExpression: 'password_hash, should_reset_password, created_at, updated_at',
            },
            [stateTable]: {
              Keys: [floorState, floorDevice],
              ConsistentRead: true,
              ProjectionExpression:
                'sk, failures, wait_until, hash_tag, expires_at, secret_digest, device_binding, created_at, last_used_at',
            },
          },
        }),
      );
    const countTrusted = () =>
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: stateTable,
                Key: floorDevice,
                UpdateExpression: 'ADD failures :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
            {
              Update: {
                TableName: stateTable,
                Key: floorBudget,
                UpdateExpression: 'ADD failures :one SET expires_at = :expires',
                ExpressionAttributeValues: { ':one': 1, ':expires': Math.floor(fixedNow / 1000) + DEVICE_COOKIE_DAYS * 86_400 },
              },
            },
          ],
        }),
      );
    const settleTrusted = () =>
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: table_,
                Key: userKey(ownerId, floorUser),
                ConditionExpression: 'password_hash = :h',
                ExpressionAttributeValues: { ':h': hash },
              },
            },
            { Delete: { TableName: stateTable, Key: floorBudget } },
            {
              Update: {
                TableName: stateTable,
                Key: floorDevice,
                UpdateExpression:
                  'SET secret_digest = :digest, device_binding = :binding, failures = :zero, expires_at = :expires, last_used_at = :at',
                ExpressionAttributeValues: {
                  ':digest': secretDigest(randomUUID()),
                  ':binding': passwordBinding(undefined, undefined),
                  ':zero': 0,
                  ':expires': Math.floor(fixedNow / 1000) + DEVICE_COOKIE_DAYS * 86_400,
                  ':at': new Date(fixedNow).toISOString(),
                },
              },
            },
          ],
        }),
      );
    const floors: Record<(typeof FLOOR)[Outcome], () => Promise<boolean>> = {
      floorOk: async () => {
        await read(floorUser);
        await count();
        await verifyHash(hash, PASSWORD);
        await settle();
        return true;
      },
      floorWrong: async () => {
        await read(floorUser);
        await count();
        await verifyHash(hash, 'wrong password');
        return true;
      },
      floorUnknown: async () => {
        await read(`nobody-${randomUUID().slice(0, 13)}@example.com`);
        await count();
        await verifyHash(dummy, 'wrong password');
        return true;
      },
      floorThrottled: async () => {
        await read(floorUser);
        return true;
      },
      floorTrustedOk: async () => {
        await readWithDevice();
        await countTrusted();
        await verifyHash(hash, PASSWORD);
        await settleTrusted();
        return true;
      },
    };
    let nextWrong = 0;
    let nextUnknown = 0;
    const outcomes: Record<Outcome, () => Promise<boolean>> = {
      ok: () => expect(okUser, PASSWORD, 'ok'),
      wrong: () => expect(wrongUsers[Math.floor(nextWrong++ / FREE_FAILURES)]!, 'wrong password', 'wrong'),
      unknown: () => expect(unknown[Math.floor(nextUnknown++ / FREE_FAILURES)]!, 'wrong password', 'wrong'),
      throttled: () => expect(throttledUser, 'wrong password', 'throttled'),
      // The account waits: only the cookie's trust answers ok. Each success rotates the cookie; the next call presents the new one.
      trustedOk: async () => {
        const result = await signIn(deps, { ownerId, email: trustedUser, password: PASSWORD, deviceCookie });
        if (result.outcome !== 'ok') throw new Error(`sign-in bench: expected a trusted ok, got ${result.outcome}`);
        deviceCookie = result.deviceCookie;
        return true;
      },
    };

    context.progress(`sign-in: ${rounds} rounds of ${perRound} of each outcome, each beside its floor`);
    const phases = await measureRounds({ rounds, perRound }, async (measure, n) => {
      for (let i = 0; i < n; i++) await measure(NOTHING, nothing);
      for (const outcome of OUTCOMES) {
        for (let i = 0; i < n; i++) {
          // The floor first on even calls, the sign-in first on odd ones.
          const pair = [() => measure(FLOOR[outcome], floors[FLOOR[outcome]]), () => measure(outcome, outcomes[outcome])];
          if (i % 2 === 1) pair.reverse();
          for (const call of pair) await call();
        }
      }
    });
    const share = Object.fromEntries(
      OUTCOMES.map((outcome) => {
        const ours = phases[outcome]!.nonHashCpuMsRounds.rounds;
        const theirs = phases[FLOOR[outcome]]!.nonHashCpuMsRounds.rounds;
        return [
          outcome,
          {
            floor: FLOOR_NAME[outcome],
            signInMs: phases[outcome]!.nonHashCpuMs,
            floorMs: phases[FLOOR[outcome]]!.nonHashCpuMs,
            shareMs: spread(ours.map((ms, r) => ms - theirs[r]!)),
          },
        ];
      }),
    ) as Record<Outcome, SignInShare>;

    const callsOf = async (call: () => Promise<boolean>) => {
      calls.length = 0;
      await call();
      return Object.fromEntries([...new Set(calls)].map((name) => [name, calls.filter((c) => c === name).length]));
    };
    const ddbCalls = {
      ok: await callsOf(outcomes.ok),
      wrong: await callsOf(outcomes.wrong),
      unknown: await callsOf(outcomes.unknown),
      throttled: await callsOf(outcomes.throttled),
      trustedOk: await callsOf(outcomes.trustedOk),
    };

    // Stream records: a known user (an imported bcrypt-like upgrade included: its first success rehashes)
    // and an unknown e-mail, each through every outcome its attempts reach, the clock moved past each wait.
    const signIns = context.quick ? 200 : 1000;
    const tap = await streamTap(endpoint, table_);
    let clock = fixedNow;
    const streamDeps: SignInDeps = { ...deps, now: () => clock };
    const streamed = { records: 0, passing: 0 };
    for (const [email, known] of [
      [await create('sign-in-stream'), true],
      [`sign-in-stream-unknown-${randomUUID().slice(0, 13)}@example.com`, false],
    ] as const) {
      if (known) await users.setPasswordHash(ownerId, email, await hashPassword(PASSWORD, { ...setting, timeCost: setting.timeCost + 1 }));
      await tap.mark();
      for (let i = 0; i < signIns / 2; i++) {
        const result = await signIn(streamDeps, { ownerId, email, password: known && i % 4 === 3 ? PASSWORD : 'wrong password' });
        if (result.outcome === 'throttled') clock += result.retryAfterSeconds * 1000;
      }
      const records = await tap.since(userPk(ownerId, email));
      streamed.records += records.length;
      streamed.passing += records.filter(passesRecordFilter).length;
    }
    tap.close();
    await lane.close();
    db.destroy();
    return {
      rounds,
      callsPerRound: perRound,
      phases,
      share,
      ddbCalls,
      stream: { signIns, ...streamed, perThousand: (streamed.passing * 1000) / signIns },
    };
  },
  targets: (r) => ({
    ...Object.fromEntries(
      OUTCOMES.map((outcome) => {
        const s = r.share[outcome];
        return [
          outcome,
          atMost(
            `a sign-in's CPU above its floor, ${outcome} <= ${SHARE_LIMIT_MS} ms`,
            SHARE_LIMIT_MS,
            s.shareMs.median,
            `median of ${s.shareMs.rounds.length} rounds, range ${s.shareMs.min} to ${s.shareMs.max}; beyond the hash: the sign-in ${s.signInMs} ms, its floor (${s.floor}) ${s.floorMs} ms`,
          ),
        ];
      }),
    ),
    ddbCalls: holds(
      `DynamoDB calls: ${OUTCOMES.map((o) => `${o} ${EXPECTED_CALLS[o]}`).join(', ')}`,
      OUTCOMES.map((o) => EXPECTED_CALLS[o]).join(', '),
      OUTCOMES.map((o) => Object.values(r.ddbCalls[o]).reduce((a, b) => a + b, 0)).join(', '),
      OUTCOMES.every((o) => Object.values(r.ddbCalls[o]).reduce((a, b) => a + b, 0) === EXPECTED_CALLS[o]),
    ),
    consumer: atMost(
      'stream records of sign-ins that reach the lifecycle-events consumer, per 1,000 sign-ins = 0',
      0,
      r.stream.perThousand,
      `${r.stream.records} records from ${r.stream.signIns} sign-ins, ${r.stream.passing} passing the filter`,
    ),
  }),
  render: (r) => `## A sign-in against its floor

The module's rules on a client built as the module builds its own, in the bench's process, ${r.rounds} rounds of ${r.callsPerRound} sign-ins of each outcome, each call beside its floor (the same verification and store operations, bare). The share is the sign-in's CPU beyond the hash less its floor's, round by round; the target is judged on the median of the rounds. \`trustedOk\` is an \`ok\` with a valid device cookie, on an account that strangers' guesses keep waiting.

${table(
  ['outcome', 'share ms: median (min to max)', "sign-in's non-hash CPU ms", "floor's non-hash CPU ms", 'floor', 'DynamoDB calls'],
  OUTCOMES.map((o) => {
    const s = r.share[o];
    return [
      o,
      formatSpread(s.shareMs),
      s.signInMs,
      s.floorMs,
      s.floor,
      Object.entries(r.ddbCalls[o])
        .map(([name, n]) => `${n} ${name}`)
        .join(' + '),
    ];
  }),
)}

Stream records of ${r.stream.signIns} sign-ins (a known user's, a first success rehashing its hash, and an unknown e-mail's, through wrong, throttled and locked): ${r.stream.records}, of which ${r.stream.passing} pass the lifecycle-events consumer's filter (${r.stream.perThousand} per 1,000).`,
};
