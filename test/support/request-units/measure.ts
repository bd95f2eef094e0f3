/**
 * What each request leaves in DynamoDB, for the capacity model (docs/capacity.md): request units by
 * table (as DynamoDB Local reports them), the users table's stream records and the events they mean,
 * for the three operations, the same with an Idempotency-Key, and a sign-in by outcome; and the size
 * of the items the hot-key rows are about. Handlers are called in this process as Lambda calls them.
 */

import { randomUUID } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { actsOnExistingUser, OPERATIONS, type OperationName as Operation, validBodyFor } from '#contract/operations';
import { digestApiKey } from '#domain/api-keys';
import { keySecrets } from '#domain/idempotency';
import type { Argon2Setting } from '#platform/config';
import { createCostlyLane } from '#sign-in/domain/costly-lane';
import { checkSession } from '#sign-in/domain/sessions';
import { signIn } from '#sign-in/domain/sign-in';
import { createSignInStore } from '#sign-in/store/sign-in-store';
import { createDeletionLedger } from '#store/deletion-ledger';
import { apiKeyKey, idempotencyRecordKey, signInStateKey, userKey, userPk } from '#store/table-layout';
import { unitsByTable } from '../../../capacity/request-units';
import { localClient } from '../../../local/dynamodb-local';
import { proxyEvent } from '../../../local/lambda-runtime';
import { capacityMeter, type Footprint, footprintOf, itemBytes, streamTap } from './footprint';
import { requestRecorder } from './recorder';

export const SIGN_IN_OUTCOMES = ['ok', 'wrong', 'unknown'] as const;
export const ITEMS = ['profile', 'signInState', 'ownerAccount', 'apiKey', 'idempotencyRecord', 'ledgerEntry'] as const;

export interface RequestUnits {
  readonly operations: Record<Operation, Footprint>;
  readonly withIdempotencyKey: Record<Operation, Footprint>;
  /** A sign-in with the right password, a wrong one, and an unknown e-mail (main's sign-in store). */
  readonly signIn: Record<(typeof SIGN_IN_OUTCOMES)[number], Footprint>;
  /** The DynamoDB commands each request sent, in order: by operation, and `sign-in <outcome>`. */
  readonly calls: Readonly<Record<string, readonly string[]>>;
  /** Bytes by DynamoDB's item-size rules. */
  readonly items: Record<(typeof ITEMS)[number], number>;
}

export interface RequestUnitsEnv {
  readonly endpoint: string;
  readonly tables: {
    readonly usersTableName: string;
    readonly ownersTableName: string;
    readonly idempotencyTableName: string;
    readonly signInTableName: string;
  };
  /** The document client the handlers use (this process's stores). */
  readonly client: DynamoDBDocumentClient;
  readonly owner: { readonly email: string; readonly apiKey: string; readonly ownerId: string };
  readonly setting: Argon2Setting;
}

const PASSWORD = 'correct horse battery staple';

/** Each request once, on a user of its own, metered and read back from the stream. */
export async function measureRequestUnits(env: RequestUnitsEnv): Promise<RequestUnits> {
  const { handlerFor, lambdaContext } = await import('./in-process');
  const kinds = {
    [env.tables.usersTableName]: 'users',
    [env.tables.ownersTableName]: 'owners',
    [env.tables.idempotencyTableName]: 'idempotency',
    [env.tables.signInTableName]: 'sign-in',
  };
  const meter = capacityMeter(env.client, kinds);
  const tap = await streamTap(env.endpoint, env.tables.usersTableName);
  const raw = localClient(env.endpoint);
  const recorder = requestRecorder(env.client, raw, kinds);
  /** The DynamoDB commands each request sent, in order (retries included), by the request's label. */
  const calls: Record<string, string[]> = {};
  let sending: string[] | undefined;
  env.client.middlewareStack.add(
    (next, context) => async (args) => {
      sending?.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'finalizeRequest', name: 'requestUnitsCalls' },
  );
  try {
    /** The request's units (by AWS's rules from the requests it sent, and DynamoDB Local's beside them), and the stream records about the user `email`. */
    const footprint = async (email: string, request: () => Promise<void>, label?: string) => {
      await tap.mark();
      if (label) {
        sending = [];
        calls[label] = sending;
      }
      let local: Record<string, { writeUnits: number; readUnits: number }> = {};
      const requests = await recorder.measure(async () => {
        local = await meter.measure(request);
      });
      const units = Object.fromEntries(
        Object.entries(unitsByTable(requests)).map(([table, u]) => [table, { writeUnits: u.writeUnits, readUnits: u.readUnits }]),
      );
      sending = undefined;
      return footprintOf(units, local, await tap.since(userPk(env.owner.ownerId, email)));
    };
    const call = async (op: Operation, body: object, idempotencyKey?: string) => {
      const headers: [string, string][] = [
        ['Content-Type', 'application/json'],
        ['X-API-Key', env.owner.apiKey],
      ];
      if (idempotencyKey) headers.push(['Idempotency-Key', idempotencyKey]);
      const result = await handlerFor(op)(
        proxyEvent({ path: `/v1/${op}`, headers, body: JSON.stringify(body), stage: 'bench' }),
        lambdaContext(),
      );
      if (result.statusCode !== 200) throw new Error(`${op} answered ${result.statusCode} ${result.body}`);
    };
    // Each operation's body: its module's documented one, about the user at hand.
    const bodies = (email: string) =>
      Object.fromEntries(OPERATIONS.map((op) => [op, validBodyFor(op, email)])) as Record<Operation, object>;
    const newUser = (tag: string) => `${tag}-${randomUUID().slice(0, 13)}@example.com`;
    /** A user for `op`: one made beforehand (part of no footprint) when the operation acts on an existing user. */
    const userFor = async (op: Operation, tag: string) => {
      const email = newUser(tag);
      if (actsOnExistingUser(op)) await call('createUser', bodies(email).createUser);
      return email;
    };
    // Each function looks its key up once and records its use once an hour: part of no request's footprint.
    for (const op of OPERATIONS) await call(op, bodies(await userFor(op, 'warm'))[op]);
    const each = async (idempotent: boolean) => {
      const result = {} as Record<Operation, Footprint>;
      for (const op of OPERATIONS) {
        const email = await userFor(op, 'units');
        result[op] = await footprint(
          email,
          () => call(op, bodies(email)[op], idempotent ? randomUUID() : undefined),
          idempotent ? undefined : op,
        );
      }
      return result;
    };
    const operations = await each(false);
    const withIdempotencyKey = await each(true);

    // The sign-in as the module runs it (the domain's rule on its DynamoDB adapter), on the handlers' client.
    const store = createSignInStore(env.client, { usersTable: env.tables.usersTableName, signInTable: env.tables.signInTableName });
    // No hash here is dear enough for the costly lane; it is built as the module builds it, and closed.
    const lane = createCostlyLane();
    const user = `sign-in-${randomUUID().slice(0, 13)}@example.com`;
    await call('createUser', { ...bodies(user).createUser, user_password: PASSWORD });
    const attempt = (email: string, password: string) => () =>
      signIn({ store, setting: env.setting, lane }, { ownerId: env.owner.ownerId, email, password }).then(() => undefined);
    const nobody = `nobody-${randomUUID().slice(0, 13)}@example.com`;
    // The owner's device key is read (or made) once per process, as the API key above: part of no attempt's footprint.
    await store.ownerDeviceKey(env.owner.ownerId);
    let session: unknown;
    const signInFootprints = {
      ok: await footprint(
        user,
        () =>
          signIn({ store, setting: env.setting, lane }, { ownerId: env.owner.ownerId, email: user, password: PASSWORD }).then((result) => {
            session = 'session' in result ? result.session : undefined;
          }),
        'sign-in ok',
      ),
      wrong: await footprint(user, attempt(user, 'not the password at all'), 'sign-in wrong'),
      unknown: await footprint(nobody, attempt(nobody, PASSWORD), 'sign-in unknown'),
    };
    await lane.close();
    // checkSession on the session the success started, the owner key known (as for the sign-in), then on a value of its shape that no success issued.
    const check = (value: unknown) => () =>
      checkSession({ store }, { ownerId: env.owner.ownerId, email: user, session: value }).then(() => undefined);
    await footprint(user, check(session), 'check-session valid');
    await footprint(user, check(`${String(session).slice(0, -8)}AAAAAAAA`), 'check-session ended');

    const sizeOf = async (tableName: string, key: Record<string, string>) => {
      const { Item } = await raw.send(new GetItemCommand({ TableName: tableName, Key: marshall(key), ConsistentRead: true }));
      if (!Item) throw new Error(`no item at ${JSON.stringify(key)} in ${tableName}`);
      return itemBytes(Item);
    };
    const idempotencyKey = randomUUID();
    await call('createUser', bodies(`idem-${randomUUID().slice(0, 13)}@example.com`).createUser, idempotencyKey);
    let ledgerItem: Record<string, unknown> | undefined;
    const capture = {
      send: async (command: { input: { Item: Record<string, unknown> } }) => {
        ledgerItem = command.input.Item;
      },
    };
    await createDeletionLedger(capture as never, 'ledger', { retentionDays: 30 }).record({
      ownerId: env.owner.ownerId,
      email: user,
      deletedAt: new Date().toISOString(),
      changeId: '000000000000000000001',
    });
    return {
      operations,
      withIdempotencyKey,
      calls,
      signIn: signInFootprints,
      items: {
        profile: await sizeOf(env.tables.usersTableName, userKey(env.owner.ownerId, user)),
        // The state a wrong password left (the success before it deleted the first one).
        signInState: await sizeOf(env.tables.signInTableName, signInStateKey(env.owner.ownerId, user)),
        ownerAccount: await sizeOf(env.tables.usersTableName, userKey(env.owner.ownerId, env.owner.email)),
        apiKey: await sizeOf(env.tables.ownersTableName, apiKeyKey(digestApiKey(env.owner.apiKey))),
        idempotencyRecord: await sizeOf(
          env.tables.idempotencyTableName,
          idempotencyRecordKey(env.owner.ownerId, keySecrets(env.owner.ownerId, idempotencyKey).keyDigest),
        ),
        ledgerEntry: itemBytes(marshall(ledgerItem!)),
      },
    };
  } finally {
    tap.close();
    raw.destroy();
  }
}
