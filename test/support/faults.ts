/**
 * Storage faults injected at the SDK client: a middleware inside the retry and
 * deserializer middlewares, so every attempt the SDK makes passes through it and
 * a faked error response is turned into the SDK's real exception class.
 */

import { Readable } from 'node:stream';
import { expect, jest } from '@jest/globals';
import type { DocumentClient } from '#store/client';

/** DynamoDB API operations, as they appear in the X-Amz-Target header. */
export type DynamoOperation =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'BatchWriteItem'
  | 'TransactWriteItems'
  | 'Scan';

/**
 * - `throttle`: 400 ProvisionedThroughputExceededException (or `errorType`), nothing applied.
 * - `internal`: 500 InternalServerError, nothing applied.
 * - `timeout`: the request times out before DynamoDB sees it.
 * - `lost-response`: DynamoDB applies the request, then the response is lost (timeout).
 * - `unprocessed`: BatchWriteItem answers 200 and leaves every item unprocessed.
 * - `rejected`: 400 ValidationException (or `errorType`), which no retry can cure.
 */
export type FaultKind = 'throttle' | 'internal' | 'timeout' | 'lost-response' | 'unprocessed' | 'rejected';

export interface FaultSpec {
  /** The DynamoDB operation to fault, or `*` for every one. */
  readonly operation: DynamoOperation | '*';
  readonly kind: FaultKind;
  /** Only calls on this table. */
  readonly table?: string;
  /** Matching attempts let through before the fault starts. @default 0 */
  readonly skip?: number;
  /** How many matching attempts fail. @default every one */
  readonly times?: number;
  /** Error type for `throttle` and `rejected`. @default 'ProvisionedThroughputExceededException', 'ValidationException' */
  readonly errorType?: string;
  /** Text of the faked error message (the secrets test puts secrets in it). */
  readonly message?: string;
  /** Only requests whose parsed body this accepts (e.g. one BatchWriteItem of several in flight). */
  readonly when?: (input: { RequestItems?: Record<string, unknown[]> }) => boolean;
}

export interface Fault {
  /** Matching attempts seen so far (faulted or not). */
  readonly attempts: number;
  /** Attempts that were faulted. */
  readonly injected: number;
  /** Times (performance.now) of each matching attempt. */
  readonly attemptTimes: readonly number[];
  remove(): void;
}

let sequence = 0;
let injectedInProcess = 0;

/** Faults injected by this test file so far. */
export const faultsInjected = () => injectedInProcess;

type Request = { headers: Record<string, string>; body?: unknown };
type Next = (args: { request: unknown }) => Promise<{ response: unknown; output: unknown }>;

/** Adds a fault to the client until `remove()` is called. */
export function injectFault(client: DocumentClient, spec: FaultSpec): Fault {
  const name = `hardening-fault-${++sequence}`;
  const state = { attempts: 0, injected: 0, attemptTimes: [] as number[] };
  const middleware = (next: Next) => async (args: { request: unknown }) => {
    const request = args.request as Request;
    if (spec.operation !== '*' && request.headers['x-amz-target'] !== `DynamoDB_20120810.${spec.operation}`) return next(args);
    const input = JSON.parse(bodyText(request.body)) as {
      TableName?: string;
      RequestItems?: Record<string, unknown[]>;
    };
    const tables = input.TableName ? [input.TableName] : Object.keys(input.RequestItems ?? {});
    if (spec.table && !tables.includes(spec.table)) return next(args);
    if (spec.when && !spec.when(input)) return next(args);
    state.attempts++;
    state.attemptTimes.push(performance.now());
    if (state.attempts <= (spec.skip ?? 0) || state.injected >= (spec.times ?? Infinity)) return next(args);
    state.injected++;
    injectedInProcess++;
    switch (spec.kind) {
      case 'throttle':
        return errorResponse(
          400,
          spec.errorType ?? 'ProvisionedThroughputExceededException',
          spec.message ?? 'The level of configured provisioned throughput for the table was exceeded.',
        );
      case 'internal':
        return errorResponse(500, 'InternalServerError', spec.message ?? 'Internal server error');
      case 'timeout':
        throw timeoutError(spec.message);
      case 'lost-response':
        await next(args).catch(() => undefined);
        throw timeoutError(spec.message);
      case 'rejected':
        return errorResponse(400, spec.errorType ?? 'ValidationException', spec.message ?? 'One or more parameter values were invalid');
      case 'unprocessed':
        return jsonResponse(200, { UnprocessedItems: input.RequestItems ?? {} });
    }
  };
  client.middlewareStack.add(middleware as never, { step: 'deserialize', priority: 'low', name });
  return {
    get attempts() {
      return state.attempts;
    },
    get injected() {
      return state.injected;
    },
    attemptTimes: state.attemptTimes,
    remove: () => void client.middlewareStack.remove(name),
  };
}

/**
 * Scales the SDK's backoff jitter: the standard retry strategy (and the repository's resend of
 * unprocessed items) draw their full jitter from Math.random, which returns `scale(r)` for each
 * real draw `r` until jest.restoreAllMocks(). `scaleJitter((r) => r * 0.02)` keeps fault tests
 * fast with the delays still random; `pinJitter(0.5)` makes every delay half its cap.
 */
export function scaleJitter(scale: (random: number) => number): void {
  const random = Math.random;
  jest.spyOn(Math, 'random').mockImplementation(() => scale(random()));
}

/** Backoff jitter scaled to 2 % (delays of at most 20 ms for a throttle's second retry), still random. */
export const fastJitter = (): void => scaleJitter((random) => random * 0.02);

/** Pins the SDK's backoff jitter at `value` (see {@link scaleJitter}). */
export const pinJitter = (value: number): void => scaleJitter(() => value);

/** A serialized request body as text (the SDK may hand over a string or bytes). */
export const bodyText = (body: unknown): string =>
  typeof body === 'string' ? body : body instanceof Uint8Array ? new TextDecoder().decode(body) : '{}';

/** What the SDK's HTTP handler throws when `requestTimeout` passes (with throwOnRequestTimeout). */
const timeoutError = (message?: string) =>
  Object.assign(new Error(message ?? '@smithy/node-http-handler - [ERROR] a request has exceeded the configured 3000 ms requestTimeout.'), {
    name: 'TimeoutError',
    code: 'ETIMEDOUT',
  });

const jsonResponse = (statusCode: number, body: object, headers: Record<string, string> = {}) => ({
  response: {
    statusCode,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'injected-fault', ...headers },
    body: Readable.from([Buffer.from(JSON.stringify(body))]),
  },
  output: {},
});

const errorResponse = (statusCode: number, type: string, message: string) =>
  jsonResponse(statusCode, { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message }, { 'x-amzn-errortype': type });

/**
 * Tokens left in the client's standard-mode retry quota (500 to start; a retry
 * after a 5xx or timeout costs 14, after a throttle 5; a success refunds).
 * When it runs dry the SDK stops retrying, so fault tests check it first.
 */
export async function retryCapacity(client: DocumentClient): Promise<number> {
  const strategy = (await (client.config.retryStrategy as unknown as () => Promise<{ getCapacity(): number }>)()) as {
    getCapacity(): number;
  };
  return strategy.getCapacity();
}

/**
 * Checks that the retry quota can pay for `retries` retries after a 5xx or timeout (14 tokens
 * each), so a fault test's attempt count is the policy's, not an empty quota's. A lower bound on
 * purpose: the quota left depends on the tests that ran before in the file.
 */
export async function expectRetryQuotaFor(client: DocumentClient, retries: number): Promise<void> {
  expect(await retryCapacity(client)).toBeGreaterThanOrEqual(14 * retries);
}

/** Records the body of every request the client sends to DynamoDB, until `remove()`. */
export function observeRequests(client: DocumentClient): { readonly bodies: string[]; remove(): void } {
  const name = `hardening-observer-${++sequence}`;
  const bodies: string[] = [];
  const middleware = (next: Next) => async (args: { request: unknown }) => {
    bodies.push(bodyText((args.request as Request).body));
    return next(args);
  };
  client.middlewareStack.add(middleware as never, { step: 'deserialize', priority: 'low', name });
  return { bodies, remove: () => void client.middlewareStack.remove(name) };
}

/**
 * Holds the matching requests (not sent yet) until `release()`, so a test can act while an
 * operation is in flight; `arrived` resolves when the first one is held.
 */
export function holdRequests(
  client: DocumentClient,
  spec: { operation: DynamoOperation; table?: string },
): { readonly arrived: Promise<void>; release(): void; remove(): void } {
  const name = `hardening-hold-${++sequence}`;
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const middleware = (next: Next) => async (args: { request: unknown }) => {
    const request = args.request as Request;
    if (request.headers['x-amz-target'] !== `DynamoDB_20120810.${spec.operation}`) return next(args);
    if (spec.table && (JSON.parse(bodyText(request.body)) as { TableName?: string }).TableName !== spec.table) return next(args);
    arrive();
    await released;
    return next(args);
  };
  client.middlewareStack.add(middleware as never, { step: 'deserialize', priority: 'low', name });
  return { arrived, release, remove: () => void client.middlewareStack.remove(name) };
}

/**
 * Counts the client's DynamoDB calls by operation (every attempt), until `remove()`; calls for
 * which `ignore(operation, table)` is true are left out.
 */
export function countCalls(
  client: DocumentClient,
  ignore: (operation: string, table: string | undefined) => boolean = () => false,
): { readonly counts: Map<string, number>; remove(): void } {
  const name = `hardening-counter-${++sequence}`;
  const counts = new Map<string, number>();
  const middleware = (next: Next) => async (args: { request: unknown }) => {
    const request = args.request as Request;
    const operation = (request.headers['x-amz-target'] ?? 'unknown').replace('DynamoDB_20120810.', '');
    const table = (JSON.parse(bodyText(request.body)) as { TableName?: string }).TableName;
    if (!ignore(operation, table)) counts.set(operation, (counts.get(operation) ?? 0) + 1);
    return next(args);
  };
  client.middlewareStack.add(middleware as never, { step: 'deserialize', priority: 'low', name });
  return { counts, remove: () => void client.middlewareStack.remove(name) };
}
