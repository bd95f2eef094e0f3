/**
 * The SDK retry policy that functions/shared/store/client.ts sets explicitly, and what
 * it means for callers: standard mode, three attempts, exponential backoff with
 * full jitter (longer for throttling), a retry quota, and a 3 s bound per attempt.
 */

import { createServer, type Socket } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { createDocumentClient } from '#store/client';
import { processStores } from '#store/stores';
import { fastJitter, faultsInjected, injectFault, pinJitter, retryCapacity } from '../support/faults';
import { apiClient } from '../support/http-client';
import { startLocalServer, uniqueEmail } from '../support/local';
import { ownerWithId, storedPasswordIs, type TestOwner } from './support/world';

const { stores } = processStores();
const { client } = stores;
let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: TestOwner;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('sdk-retries');
  api = apiClient(server.baseUrl, owner.apiKey);
});
afterEach(() => {
  jest.restoreAllMocks();
});
afterAll(async () => {
  await server.close();
  if (process.env.HARDENING_REPORT) console.log(`sdk-retries: ${faultsInjected()} faults injected`);
});

const gaps = (times: readonly number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('the shared DynamoDB client', () => {
  it('retries in standard mode, three attempts in all', async () => {
    const config = client.config as unknown as { maxAttempts: () => Promise<number>; retryStrategy: () => Promise<{ mode: string }> };
    expect(await config.maxAttempts()).toBe(3);
    expect((await config.retryStrategy()).mode).toBe('standard');
  });

  it('gives up on an attempt that gets no answer after 3 s (requestTimeout is enforced, not only warned about)', async () => {
    const sockets: Socket[] = [];
    const blackHole = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const { port } = blackHole.address() as { port: number };
    const hung = createDocumentClient({ endpoint: `http://127.0.0.1:${port}`, maxAttempts: 1 });
    const started = performance.now();
    let guard: NodeJS.Timeout | undefined;
    try {
      const outcome = await Promise.race([
        hung.send(new GetCommand({ TableName: 'users', Key: { pk: 'a', sk: 'b' } })).then(
          () => 'answered',
          (error: Error) => error.name,
        ),
        new Promise<string>((resolve) => (guard = setTimeout(() => resolve('still waiting after 6 s'), 6_000))),
      ]);
      expect(outcome).toBe('TimeoutError');
      // Wall-clock time on shared cores: a window around the 3 s requestTimeout, not a figure.
      expect(performance.now() - started).toBeGreaterThanOrEqual(2_900);
      expect(performance.now() - started).toBeLessThan(4_500);
    } finally {
      clearTimeout(guard);
      hung.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    }
  }, 10_000);
});

describe('a fault that clears before the third attempt never reaches the caller', () => {
  it.each([
    ['throttle', 'ProvisionedThroughputExceededException'],
    ['throttle', 'ThrottlingException'],
    ['throttle', 'RequestLimitExceeded'],
    ['internal', 'InternalServerError'],
    ['timeout', 'TimeoutError'],
  ] as const)('%s (%s) on the first two attempts of the PutItem: the user is created', async (kind, errorType) => {
    fastJitter();
    const email = uniqueEmail('transient');
    const fault = injectFault(client, { operation: 'PutItem', kind, errorType, times: 2 });
    const response = await api('/v1/createUser', { user_email: email, user_password: 'third time lucky' }).finally(fault.remove);

    expect(fault.attempts).toBe(3);
    expect([response.status, response.body]).toEqual([200, { user_email: email, user_password: 'third time lucky' }]);
    expect(await storedPasswordIs(owner.ownerId, email, 'third time lucky')).toBe(true);
  });
});

describe('backoff', () => {
  // With the jitter pinned at 0.5 each delay is half its cap, base x 2^retry, rounded down:
  // DynamoDB's client uses a 25 ms base (12.5 → 12), and the standard strategy 1 s for throttling.
  it.each([
    ['throttle', [500, 1_000]],
    ['internal', [12, 25]],
    ['timeout', [12, 25]],
  ] as const)('%s: waits %j ms before the 2nd and 3rd attempts (full jitter, doubling)', async (kind, expected) => {
    pinJitter(0.5);
    // The delays the SDK asks the timer for, exactly; the wall clock only shows they were not cut short.
    const scheduled: number[] = [];
    const realSetTimeout = globalThis.setTimeout;
    jest.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number, ...args: unknown[]) => {
      scheduled.push(Number(ms ?? 0));
      return realSetTimeout(callback, ms, ...(args as []));
    }) as typeof setTimeout);
    const fault = injectFault(client, { operation: 'Query', kind });
    const response = await api('/v1/deleteUser', { user_email: uniqueEmail('backoff') }).finally(fault.remove);

    expect([response.status, response.body]).toEqual([500, { message: MESSAGES.deleteFailed }]);
    expect(fault.attempts).toBe(3);
    // Both delays were scheduled, in this order (other timers of the request sit around them).
    const first = scheduled.indexOf(expected[0]);
    expect([first >= 0, scheduled.indexOf(expected[1], first + 1) > first]).toEqual([true, true]);
    // Never early (2 ms for the timer's rounding). How late depends on two shared cores, so no upper bound.
    gaps(fault.attemptTimes).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(expected[i]! - 2);
    });
  });
});

describe('errors a retry cannot cure are not retried', () => {
  it("a ValidationException: one attempt, then the operation's 500 message", async () => {
    const fault = injectFault(client, { operation: 'PutItem', kind: 'rejected' });
    const response = await api('/v1/createUser', { user_email: uniqueEmail('rejected') }).finally(fault.remove);

    expect(fault.attempts).toBe(1);
    expect([response.status, response.body]).toEqual([500, { message: MESSAGES.createFailed }]);
  });

  it('a failed condition (the user exists): one attempt, then 409', async () => {
    const email = uniqueEmail('exists');
    expect((await api('/v1/createUser', { user_email: email })).status).toBe(200);
    const observer = injectFault(client, { operation: 'PutItem', kind: 'internal', times: 0 });
    const response = await api('/v1/createUser', { user_email: email }).finally(observer.remove);

    expect(observer.attempts).toBe(1);
    expect([response.status, response.body]).toEqual([409, { message: MESSAGES.userExists }]);
  });
});

describe('the retry quota', () => {
  it('when a fault persists the client stops retrying (fails fast), callers still get the 500 message, and successes refill it', async () => {
    fastJitter();
    const capacity = await retryCapacity(client);
    const fault = injectFault(client, { operation: 'Query', kind: 'internal' });
    const attemptsPerRequest: number[] = [];
    try {
      for (let request = 0; request < 40 && attemptsPerRequest.at(-1) !== 1; request++) {
        const before = fault.attempts;
        const response = await api('/v1/deleteUser', { user_email: uniqueEmail('quota') });
        expect([response.status, response.body]).toEqual([500, { message: MESSAGES.deleteFailed }]);
        attemptsPerRequest.push(fault.attempts - before);
      }
    } finally {
      fault.remove();
    }
    // 14 tokens a retry: full retries while the quota lasts, then one attempt only.
    const retries = attemptsPerRequest.map((attempts) => attempts - 1);
    expect(retries.reduce((a, b) => a + b, 0)).toBe(Math.floor(capacity / 14));
    expect(retries.slice(0, Math.floor(capacity / 28))).toEqual(Array(Math.floor(capacity / 28)).fill(2));
    expect(attemptsPerRequest.at(-1)).toBe(1);
    const drained = await retryCapacity(client);
    // A bound: a success refunds a token, and whether the key and owner lookups succeed during the drain
    // (or come from the cache) depends on the tests before, so the remainder is not always capacity % 14.
    expect(drained).toBeLessThan(14);

    for (let i = 0; i < 5; i++) {
      const response = await api('/v1/deleteUser', { user_email: uniqueEmail('refill') });
      expect([response.status, response.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
    }
    expect(await retryCapacity(client)).toBe(drained + 5);
  });
});
