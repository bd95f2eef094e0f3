/**
 * Measurements made by calling the handlers in this process, as Lambda would: DynamoDB calls per operation (counted by an SDK middleware on the service's shared client),
 * and how a delete scales with the user's associated data. Import only after the environment is set.
 */

import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { actsOnExistingUser, OPERATIONS, type OperationName, validBodyFor } from '#contract/operations';
import { issueKey } from '#domain/owners';
import type { ApiHandler } from '#http/pipeline';
import { processStores } from '#store/stores';
import { userPk } from '#store/table-layout';
import { lambdaContext as baseLambdaContext, proxyEvent } from '../local/lambda-runtime';
import { handlerOf } from '../local/server';
import { median, round } from './stats';

export type Operation = OperationName;

/** Every operation's handler, from the registry. */
const HANDLERS = Object.fromEntries(await Promise.all(OPERATIONS.map(async (name) => [name, await handlerOf(name)]))) as Record<
  Operation,
  ApiHandler
>;

/** The operation's Lambda handler. */
export const handlerFor = (operationName: Operation): ApiHandler => HANDLERS[operationName];

/** An API Gateway REST (v1 proxy) event as the gateway sends it. */
export const apiEvent = (operationName: string, apiKey: string, body: object): APIGatewayProxyEvent =>
  proxyEvent({
    path: `/v1/${operationName}`,
    headers: { 'Content-Type': 'application/json', 'X-API-Key': apiKey },
    body: JSON.stringify(body),
    stage: 'bench',
  });

export const lambdaContext = (): Context => baseLambdaContext('bench');

const { stores } = processStores();

export type CallCounter = ReturnType<typeof installCallCounter>;
let counter: CallCounter | undefined;

/** The call counter on the shared client, installed on first use (an SDK middleware is added once). */
export const callCounter = (): CallCounter => {
  counter ??= installCallCounter();
  return counter;
};

/** The commands that read; every other one writes. */
const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/**
 * Counts DynamoDB round trips (retries included: the deserialize step runs once per attempt), by
 * command, and the capacity units they consumed as DynamoDB reports them when asked
 * (ReturnConsumedCapacity TOTAL, set only while counting: the item's size rounded up, per 4 KB
 * read and per 1 KB written; DynamoDB Local computes them as DynamoDB does). A request that
 * fails (a condition not met) reports none: only successful requests' units are counted.
 */
function installCallCounter() {
  const counts = new Map<string, number>();
  const units = { read: 0, write: 0 };
  let counting = false;
  const commandOf = (name: string | undefined) => (name ?? 'unknown').replace(/Command$/, '');
  // Outermost (initialize): asks for the capacity consumed and reads it from the command's final output.
  stores.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!counting) return next(args);
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }).ConsumedCapacity;
      const total = [consumed ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      units[READS.has(commandOf(context.commandName)) ? 'read' : 'write'] += total;
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  // Innermost (deserialize): once per attempt, so retries count.
  stores.client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = commandOf(context.commandName);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'deserialize', name: 'benchCallCounter' },
  );
  return {
    /** Runs `fn` and returns how many calls it made, in all and by command, and the capacity units they consumed. */
    async count(fn: () => Promise<unknown>): Promise<CallCount> {
      counts.clear();
      units.read = 0;
      units.write = 0;
      counting = true;
      try {
        await fn();
      } finally {
        counting = false;
      }
      return {
        total: [...counts.values()].reduce((a, b) => a + b, 0),
        byCommand: Object.fromEntries(counts),
        capacityUnits: { ...units },
      };
    },
  };
}

/** DynamoDB calls made, in all and by command (`PutItem`, `Query`...), and the capacity units they consumed (every table). */
export interface CallCount {
  readonly total: number;
  readonly byCommand: Record<string, number>;
  readonly capacityUnits: { readonly read: number; readonly write: number };
}

async function call(operationName: Operation, apiKey: string, body: object, expect = 200): Promise<APIGatewayProxyResult> {
  const result = await HANDLERS[operationName](apiEvent(operationName, apiKey, body), lambdaContext());
  if (result.statusCode !== expect) throw new Error(`${operationName} answered ${result.statusCode} ${result.body}, expected ${expect}`);
  return result;
}

/** One handler call's milliseconds, as Lambda would make it (the event built beforehand). */
export async function timeCall(operationName: Operation, apiKey: string, body: object): Promise<number> {
  const event = apiEvent(operationName, apiKey, body);
  const context = lambdaContext();
  const started = performance.now();
  const result = await HANDLERS[operationName](event, context);
  const ms = performance.now() - started;
  if (result.statusCode !== 200) throw new Error(`${operationName} answered ${result.statusCode} ${result.body}`);
  return ms;
}

const email = (tag: string) => `${tag}-${randomUUID().slice(0, 12)}@example.com`;

/** DynamoDB calls per operation with a warm key cache, and for the first call with a new key. */
export async function ddbCalls(
  counter: CallCounter,
  ownerEmail: string,
  warmKey: string,
): Promise<{ warm: Record<Operation, CallCount>; firstCallWithKey: Record<Operation, CallCount> }> {
  // Each operation has its own key cache, as each deployed function does: warm the key on every one
  // (this also records its use for the hour, so the counts below are the operations' own calls).
  for (const name of OPERATIONS) await call(name, warmKey, validBodyFor(name, email('warm')), actsOnExistingUser(name) ? 404 : 200);
  // Each count on a user of its own, made beforehand (not counted) when the operation acts on one.
  const warm = {} as Record<Operation, CallCount>;
  const cold = {} as Record<Operation, CallCount>;
  for (const name of OPERATIONS) {
    const { api_key: freshKey } = await issueKey(stores.owners, ownerEmail);
    for (const [counts, key] of [
      [warm, warmKey],
      [cold, freshKey],
    ] as const) {
      const user = email('calls');
      if (actsOnExistingUser(name)) await call('createUser', warmKey, validBodyFor('createUser', user));
      counts[name] = await counter.count(() => call(name, key, validBodyFor(name, user)));
    }
  }
  return { warm, firstCallWithKey: cold };
}

export interface DeleteScalingRow {
  readonly items: number;
  readonly ms: number;
  /** null for a user without associated items. */
  readonly msPerItem: number | null;
  readonly calls: number;
  /** 2 + ceil(items / 25): the Query, one BatchWriteItem per 25 items, the DeleteItem. */
  readonly callsBound: number;
}

/** Deletes users holding n associated items (about 120 bytes each); median time of `reps`, calls of the last. */
export async function deleteScaling(
  counter: CallCounter,
  ownerId: string,
  apiKey: string,
  sizes: readonly number[] = [0, 25, 250, 2_500],
  reps = 3,
): Promise<DeleteScalingRow[]> {
  const rows: DeleteScalingRow[] = [];
  const { config } = processStores();
  const { client } = stores;
  for (const items of sizes) {
    const times: number[] = [];
    let calls = 0;
    for (let rep = 0; rep < reps; rep++) {
      const user = email(`scaling-${items}`);
      await call('createUser', apiKey, { user_email: user, user_password: 'correct horse battery staple' });
      const pk = userPk(ownerId, user);
      const puts = Array.from({ length: items }, (_, i) => ({
        PutRequest: { Item: { pk, sk: `DATA#${String(i).padStart(6, '0')}`, kind: 'note', body: 'x'.repeat(96) } },
      }));
      for (let i = 0; i < puts.length; i += 25 * 8) {
        await Promise.all(
          Array.from({ length: 8 }, (_, b) => puts.slice(i + b * 25, i + (b + 1) * 25))
            .filter((batch) => batch.length > 0)
            .map((batch) => client.send(new BatchWriteCommand({ RequestItems: { [config.usersTableName]: batch } }))),
        );
      }
      const started = performance.now();
      calls = (await counter.count(() => call('deleteUser', apiKey, { user_email: user }))).total;
      times.push(performance.now() - started);
    }
    const ms = median(times);
    rows.push({
      items,
      ms: round(ms),
      msPerItem: items > 0 ? round(ms / items, 4) : null,
      calls,
      callsBound: 2 + Math.ceil(items / 25),
    });
  }
  return rows;
}
