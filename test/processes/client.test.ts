/**
 * The client (packages/client) against `npm start` over real HTTP: the three operations, every refusal as a
 * typed value, and its retries through a proxy that loses an answer, throttles, fails or never answers.
 * A create whose answer was lost is retried into the first run's answer, generated password and
 * all, with exactly one UserCreated in the events file `npm start` writes.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { createOwner } from '#domain/owners';
import { verifyPassword } from '#domain/passwords';
import { readPasswordSettings } from '#platform/config';
import { createDocumentClient } from '#store/client';
import { LOCAL_TABLES } from '#store/local-engine';
import { createOwnersStore } from '#store/owners-store';
import { userKey } from '#store/table-layout';
import { freePort } from '../../local/free-port';
import {
  type Client,
  createClient,
  NetworkError,
  type RetryReason,
  ServerError,
  StillProcessingError,
  ThrottledError,
  UnexpectedResponseError,
} from '../../packages/client/src/index';
import { type ProxyStep, startFaultyProxy } from '../support/faulty-proxy';
import { readEvents } from '../support/lifecycle-events';
import { waitFor } from '../support/poll';
import { killStartedScripts, startScript } from '../support/processes';

jest.setTimeout(60_000);
const workdir = mkdtempSync(join(tmpdir(), 'client-'));
const { DYNAMODB_ENDPOINT: _endpoint, EVENTS_FILE: _events, ...inherited } = process.env;
const FAST = { baseDelayMs: 20, maxDelayMs: 100 };

let baseUrl: string;
let apiKey: string;
let eventsFile: string;
let client: Client;
let engine: ReturnType<typeof createDocumentClient>;
let started: ReturnType<typeof startScript>;
const proxies: { close: () => Promise<void> }[] = [];

const email = (tag: string) => `client-${tag}-${randomBytes(5).toString('hex')}@example.com`;

beforeAll(async () => {
  const env = {
    ...inherited,
    PORT: String(await freePort()),
    DYNAMODB_PORT: String(await freePort()),
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  started = startScript('local/start.ts', env, workdir);
  apiKey = (await started.waitFor(/export API_KEY=(wlk_\S+)/, 120_000))[1]!;
  await started.waitFor(/Listening on/, 120_000);
  baseUrl = `http://127.0.0.1:${env.PORT}`;
  eventsFile = join(workdir, '.data/events.jsonl');
  engine = createDocumentClient({ endpoint: `http://127.0.0.1:${env.DYNAMODB_PORT}` });
  client = createClient({ baseUrl, apiKey, retry: FAST });
}, 180_000);

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  if (started && started.child.exitCode === null) {
    started.child.kill('SIGINT');
    await started.exited;
  }
  killStartedScripts();
  rmSync(workdir, { recursive: true, force: true });
});

/** A proxy in front of npm start, closed after the file. */
async function proxy(plan: (n: number) => ProxyStep) {
  const faulty = await startFaultyProxy(baseUrl, plan);
  proxies.push(faulty);
  return faulty;
}

/** A client through `url` that records its retries. */
function recordingClient(url: string, retry: Parameters<typeof createClient>[0]['retry'] = FAST) {
  const retries: { reason: RetryReason; status?: number; delayMs: number }[] = [];
  const recording = createClient({
    baseUrl: url,
    apiKey,
    retry,
    onRetry: ({ reason, status, delayMs }) => retries.push({ reason, status, delayMs }),
  });
  return { client: recording, retries };
}

describe('the three operations', () => {
  it('create (password generated), reset, delete: success bodies, one Idempotency-Key each', async () => {
    const user = email('ops');
    const created = await client.createUser({ user_email: `  ${user.toUpperCase()} ` });
    expect(created).toMatchObject({ ok: true, status: 200, replayed: false, attempts: 1 });
    if (!created.ok) throw new Error('unreachable');
    expect(created.data.user_email).toBe(user);
    expect(created.data.user_password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(created.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);

    const reset = await client.resetUserPassword({ user_email: user, new_password: 'a new long password' });
    expect(reset).toMatchObject({ ok: true, status: 200, data: { message: MESSAGES.passwordReset }, replayed: false, attempts: 1 });
    const deleted = await client.deleteUser({ user_email: user });
    expect(deleted).toMatchObject({ ok: true, status: 200, data: { message: MESSAGES.userDeleted }, replayed: false, attempts: 1 });
    expect(new Set([created.idempotencyKey, reset.idempotencyKey, deleted.idempotencyKey]).size).toBe(3);
  });

  it("a call sent again with the caller's key is answered with the recorded answer, password included", async () => {
    const key = `order-${randomBytes(12).toString('hex')}`;
    const first = await client.createUser({ user_email: email('again') }, { idempotencyKey: key });
    const second = await client.createUser({ user_email: first.ok ? first.data.user_email : '' }, { idempotencyKey: key });
    expect(first).toMatchObject({ ok: true, replayed: false, idempotencyKey: key });
    expect(second).toMatchObject({ ok: true, replayed: true, idempotencyKey: key, data: first.ok ? first.data : {} });
  });
});

describe('every refusal is a typed value, never thrown nor retried', () => {
  const refused = (status: number, message: string) => ({ ok: false, status, message, attempts: 1, replayed: false });

  it('400: each field of each operation, and a malformed Idempotency-Key', async () => {
    const policy = `must be between ${readPasswordSettings().passwordPolicy.minLength} and ${readPasswordSettings().passwordPolicy.maxLength} characters.`;
    const cases: [Promise<unknown>, string][] = [
      [client.createUser({} as never), MESSAGES.userEmailMissing],
      [client.createUser({ user_email: email('x'), nickname: 'x' } as never), 'Unknown parameter: nickname.'],
      [client.createUser({ user_email: 'not an address' }), MESSAGES.userEmailInvalid],
      [client.createUser({ user_email: email('x'), user_password: 'short' }), `user_password ${policy}`],
      [client.createUser({ user_email: email('x'), should_reset_password: 'yes' as never }), MESSAGES.shouldResetInvalid],
      [client.resetUserPassword({ user_email: email('x') } as never), MESSAGES.missingParameters],
      [client.resetUserPassword({ user_email: email('x'), new_password: 'long enough', extra: 1 } as never), 'Unknown parameter: extra.'],
      [client.resetUserPassword({ user_email: 'a@', new_password: 'long enough' }), MESSAGES.userEmailInvalid],
      [client.resetUserPassword({ user_email: email('x'), new_password: 'short' }), `new_password ${policy}`],
      [client.deleteUser({} as never), MESSAGES.missingParameters],
      [client.deleteUser({ user_email: email('x'), cascade: true } as never), 'Unknown parameter: cascade.'],
      [client.deleteUser({ user_email: '@example.com' }), MESSAGES.userEmailInvalid],
      [client.deleteUser({ user_email: email('x') }, { idempotencyKey: 'too short' }), MESSAGES.idempotencyKeyInvalid],
    ];
    for (const [call, message] of cases) expect(await call).toMatchObject(refused(400, message));
  });

  it('401 for an unknown key; 403 for a white-label user and for a key whose owner account is gone', async () => {
    const stranger = createClient({ baseUrl, apiKey: `wlk_${randomBytes(32).toString('base64url')}`, retry: FAST });
    expect(await stranger.createUser({ user_email: email('x') })).toMatchObject(refused(401, MESSAGES.unauthorized));

    expect(await client.resetUserPassword({ user_email: 'dev-owner@example.com', new_password: 'long enough' })).toMatchObject(
      refused(403, MESSAGES.resetWhiteLabel),
    );
    expect(await client.deleteUser({ user_email: 'dev-owner@example.com' })).toMatchObject(refused(403, MESSAGES.deleteWhiteLabel));

    // An owner made on npm start's engine, whose own account is then removed before its key is first used.
    const tables = { usersTableName: LOCAL_TABLES.usersTableName, ownersTableName: LOCAL_TABLES.ownersTableName };
    const owners = createOwnersStore(engine, tables);
    const orphan = await createOwner(owners, email('orphan'), readPasswordSettings());
    const { ownerId } = (await owners.findOwner(orphan.owner_email))!;
    await engine.send(new DeleteCommand({ TableName: tables.usersTableName, Key: userKey(ownerId, orphan.owner_email) }));
    const orphaned = createClient({ baseUrl, apiKey: orphan.api_key, retry: FAST });
    expect(await orphaned.createUser({ user_email: email('x') })).toMatchObject(refused(403, MESSAGES.noOwner));
    expect(await orphaned.resetUserPassword({ user_email: email('x'), new_password: 'long enough' })).toMatchObject(
      refused(403, MESSAGES.noOwner),
    );
    expect(await orphaned.deleteUser({ user_email: email('x') })).toMatchObject(refused(403, MESSAGES.noOwner));
  });

  it('404 for an unknown user; 409 for an existing one; 422 for a key reused with another body; 413 for a body over 16 KiB', async () => {
    expect(await client.resetUserPassword({ user_email: email('nobody'), new_password: 'long enough' })).toMatchObject(
      refused(404, MESSAGES.userNotFound),
    );
    expect(await client.deleteUser({ user_email: email('nobody') })).toMatchObject(refused(404, MESSAGES.userNotFound));

    const user = email('exists');
    expect(await client.createUser({ user_email: user })).toMatchObject({ ok: true });
    expect(await client.createUser({ user_email: user })).toMatchObject(refused(409, MESSAGES.userExists));

    const key = randomBytes(16).toString('hex');
    expect(await client.deleteUser({ user_email: email('first') }, { idempotencyKey: key })).toMatchObject(
      refused(404, MESSAGES.userNotFound),
    );
    expect(await client.deleteUser({ user_email: email('second') }, { idempotencyKey: key })).toMatchObject(
      refused(422, MESSAGES.idempotencyKeyReused),
    );

    expect(await client.createUser({ user_email: email('big'), user_password: 'x'.repeat(17_000) })).toMatchObject(
      refused(413, MESSAGES.bodyTooLarge),
    );
  });

  it('415 (which the client, always sending JSON, only meets from something in between) is a value too; an unlisted status throws', async () => {
    const answers = await proxy((n) =>
      n === 1
        ? { status: 415, body: JSON.stringify({ message: MESSAGES.unsupportedMediaType }) }
        : { status: 405, headers: { allow: 'POST' }, body: JSON.stringify({ message: MESSAGES.methodNotAllowed }) },
    );
    const through = createClient({ baseUrl: answers.url, apiKey, retry: FAST });
    expect(await through.deleteUser({ user_email: email('x') })).toMatchObject(refused(415, MESSAGES.unsupportedMediaType));
    const unexpected = await through.deleteUser({ user_email: email('x') }).catch((error: unknown) => error);
    expect(unexpected).toBeInstanceOf(UnexpectedResponseError);
    expect(unexpected).toMatchObject({ status: 405, serverMessage: MESSAGES.methodNotAllowed, attempts: 1 });
    expect(answers.requests).toHaveLength(2);
  });
});

describe('retries', () => {
  it("an answer lost after the create ran: retried into the first run's answer, same generated password, one UserCreated", async () => {
    const lossy = await proxy((n) => (n === 1 ? 'drop-after-forward' : 'forward'));
    const { client: through, retries } = recordingClient(lossy.url);
    const user = email('dropped');
    const result = await through.createUser({ user_email: user });

    expect(lossy.dropped).toHaveLength(1);
    const lost = JSON.parse(lossy.dropped[0]!.body) as { user_email: string; user_password: string };
    expect(lossy.dropped[0]!.status).toBe(200);
    expect(result).toMatchObject({ ok: true, status: 200, replayed: true, attempts: 2, data: lost });
    expect(retries.map((r) => r.reason)).toEqual(['network']);
    expect(lossy.requests.map((r) => r.idempotencyKey)).toEqual([result.idempotencyKey, result.idempotencyKey]);

    // The stored hash is the generated password's, and the user was created once.
    const { ownerId } = (await createOwnersStore(engine, LOCAL_TABLES).findOwner('dev-owner@example.com'))!;
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const profile = await engine.send(new GetCommand({ TableName: LOCAL_TABLES.usersTableName, Key: userKey(ownerId, user) }));
    expect(await verifyPassword(profile.Item!.password_hash as string, lost.user_password)).toBe(true);
    const created = () => readEvents(eventsFile).filter((e) => e['detail-type'] === 'UserCreated' && e.detail.user_email === user);
    // A sentinel create after it: npm start delivers in stream order, so once the sentinel's event is in
    // the file, a second UserCreated for the user would be too.
    const sentinel = email('sentinel');
    expect(await client.createUser({ user_email: sentinel })).toMatchObject({ ok: true });
    const delivered = () => readEvents(eventsFile).some((e) => e['detail-type'] === 'UserCreated' && e.detail.user_email === sentinel);
    await waitFor(() => (delivered() ? true : undefined), 5_000, `UserCreated for the sentinel ${sentinel}`);
    expect(created()).toHaveLength(1);
    if (process.env.CLIENT_REPORT) {
      console.log(
        [
          `dropped-response: proxy saw ${lossy.requests.length} createUser requests, one Idempotency-Key (${result.idempotencyKey})`,
          `  first answer (dropped by the proxy): ${lossy.dropped[0]!.status} ${lossy.dropped[0]!.body}`,
          `  client result: ${JSON.stringify(result)}`,
          `  retries: ${JSON.stringify(retries)}`,
          `  UserCreated events for ${user} in ${eventsFile}: ${created().length}`,
        ].join('\n'),
      );
    }
  });

  it('a 429 waits its Retry-After, then succeeds with the same key', async () => {
    const throttling = await proxy((n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: JSON.stringify({ message: MESSAGES.tooManyRequests }) } : 'forward',
    );
    const { client: through, retries } = recordingClient(throttling.url);
    const before = performance.now();
    const result = await through.createUser({ user_email: email('throttled') });
    expect(performance.now() - before).toBeGreaterThanOrEqual(990);
    expect(result).toMatchObject({ ok: true, replayed: false, attempts: 2 });
    expect(retries).toEqual([{ reason: 'throttled', status: 429, delayMs: 1_000 }]);
    expect(new Set(throttling.requests.map((r) => r.idempotencyKey))).toEqual(new Set([result.idempotencyKey]));
  });

  it('a Retry-After beyond the deadline is not waited for: ThrottledError at once', async () => {
    const throttling = await proxy(() => ({
      status: 429,
      headers: { 'retry-after': '600' },
      body: JSON.stringify({ message: MESSAGES.tooManyRequests }),
    }));
    const { client: through } = recordingClient(throttling.url, { ...FAST, deadlineMs: 10_000 });
    const error = await through.deleteUser({ user_email: email('x') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThrottledError);
    expect(error).toMatchObject({ retryAfterMs: 600_000, attempts: 1 });
    expect(throttling.requests).toHaveLength(1);
  });

  it('5xx and 409 "still being processed" are asked again; a 5xx that lasts throws ServerError after maxAttempts', async () => {
    const inProgress = JSON.stringify({ message: MESSAGES.idempotencyInProgress });
    const flaky = await proxy((n) =>
      n === 1 ? { status: 503, body: '<html>Service Unavailable</html>' } : n === 2 ? { status: 409, body: inProgress } : 'forward',
    );
    const { client: through, retries } = recordingClient(flaky.url);
    const result = await through.createUser({ user_email: email('flaky') });
    expect(result).toMatchObject({ ok: true, attempts: 3 });
    expect(retries.map((r) => [r.reason, r.status])).toEqual([
      ['server', 503],
      ['in-progress', 409],
    ]);

    const failing = await proxy(() => ({ status: 500, body: JSON.stringify({ message: MESSAGES.createFailed }) }));
    const error = await recordingClient(failing.url, { ...FAST, maxAttempts: 3 })
      .client.createUser({ user_email: email('x') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 500, serverMessage: MESSAGES.createFailed, attempts: 3 });
    expect((error as Error).message).toBe('createUser: 500 "Failed to create user", after 3 attempt(s)');
    expect(failing.requests).toHaveLength(3);
    expect(new Set(failing.requests.map((r) => r.idempotencyKey)).size).toBe(1);

    const stuck = await proxy(() => ({ status: 409, body: inProgress }));
    const still = await recordingClient(stuck.url, { ...FAST, maxAttempts: 2 })
      .client.deleteUser({ user_email: email('x') })
      .catch((e: unknown) => e);
    expect(still).toBeInstanceOf(StillProcessingError);
  });

  it('the deadline holds: a proxy that never answers fails the call with NetworkError by then, each attempt timed out', async () => {
    const silent = await proxy(() => 'hang');
    const { client: through, retries } = recordingClient(silent.url, { ...FAST, deadlineMs: 2_000, attemptTimeoutMs: 300 });
    const error = await through.createUser({ user_email: email('x') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timedOut: true });
    const { attempts } = error as NetworkError;
    // Every attempt reached the proxy and none outlived its 300 ms: several fit in 2 s, not more than 2000 / 300 + 1.
    expect(silent.requests).toHaveLength(attempts);
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeLessThanOrEqual(7);
    expect(retries.every((r) => r.reason === 'timeout')).toBe(true);
    expect(new Set(silent.requests.map((r) => r.idempotencyKey)).size).toBe(1);
    // The deadline from the client's own schedule, not the clock: the waits it scheduled between attempts fit in it.
    expect(retries.reduce((sum, retry) => sum + retry.delayMs, 0)).toBeLessThan(2_000);

    // One attempt longer than the whole deadline is cut at the deadline.
    const single = await recordingClient(silent.url, { ...FAST, deadlineMs: 800, attemptTimeoutMs: 30_000 })
      .client.deleteUser({ user_email: email('x') })
      .catch((e: unknown) => e);
    expect(single).toBeInstanceOf(NetworkError);
    expect(single).toMatchObject({ timedOut: true, attempts: 1 });
  });

  it("a caller's abort stops the call at once, without a retry", async () => {
    const silent = await proxy(() => 'hang');
    const { client: through, retries } = recordingClient(silent.url);
    const controller = new AbortController();
    const call = through.deleteUser({ user_email: email('x') }, { signal: controller.signal });
    await waitFor(() => (silent.requests.length > 0 ? true : undefined), 5_000, 'the request at the proxy');
    controller.abort(new Error('caller gave up'));
    await expect(call).rejects.toThrow('caller gave up');
    expect(retries).toEqual([]);
  });
});
