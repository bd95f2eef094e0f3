/**
 * Secrets never reach a log line or a response. Every log line the process
 * writes is captured while the whole HTTP contract suite (test/http, imported
 * here so its tests run again under capture) and some hostile extras run, with
 * the logger at DEBUG and Powertools' event logging switched on, as an operator
 * chasing a problem would. Then no password sent, no hash or key digest stored
 * and no API key sent may appear in any of it, and no response may carry a
 * hash, a key, a stack trace or internal error text.
 */

import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';

// Before the logger is created (it reads these once).
process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
// The metric lines too: they must hold no secret either.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

const captured = {
  lines: [] as string[],
  sentKeys: new Set<string>(),
  sentIdempotencyKeys: new Set<string>(),
  sentPasswords: new Set<string>(),
  responses: [] as string[],
};

beforeAll(() => {
  // Log lines go to process.stdout/stderr (Powertools' own Console); anything else to jest's console.
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    jest.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      captured.lines.push(text);
      return text.startsWith('{') ? true : write(chunk, ...rest);
    }) as never);
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    jest.spyOn(console, method).mockImplementation((...args: unknown[]) => void captured.lines.push(args.map(String).join(' ')));
  }
  const fetch = globalThis.fetch;
  jest.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const headers = new Headers(init?.headers);
    if (headers.get('x-api-key')) captured.sentKeys.add(headers.get('x-api-key')!);
    // An Idempotency-Key unlocks its record (the sealed answer, a password included): as secret as a password.
    if (headers.get('idempotency-key')) captured.sentIdempotencyKeys.add(headers.get('idempotency-key')!);
    if (typeof init?.body === 'string') collectPasswords(init.body);
    const response = await fetch(input, init);
    const text = await response.clone().text();
    captured.responses.push(text);
    collectPasswords(text);
    return response;
  });
});

/** Passwords in a request or response body (the generated ones come back in create responses). */
function collectPasswords(text: string) {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    for (const field of ['user_password', 'new_password']) {
      if (typeof body[field] === 'string') captured.sentPasswords.add(body[field]);
    }
  } catch {
    // Not JSON: no password to collect.
  }
}

const { logger } = await import('#platform/logger');
logger.setLogLevel('DEBUG');

// The HTTP contract suite, run again under capture (the docs and OpenAPI files serve no secrets).
for (const file of readdirSync(new URL('../http/', import.meta.url))
  .filter((f) => f.endsWith('.test.ts') && !/openapi|docs/i.test(f))
  .sort()) {
  await import(`../http/${file}`);
}

const { scanAll } = await import('../support/scan');
const { unknownParameter } = await import('#contract/messages');
const { ALL_MESSAGES: MESSAGES } = await import('#contract/operations');
const { processStores } = await import('#store/stores');
const { stores } = processStores();
const { apiClient } = await import('../support/http-client');
const { startLocalServer, uniqueEmail } = await import('../support/local');
const { injectFault } = await import('../support/faults');
const { LEAK_PATTERNS } = await import('./support/contract');
const { collection, ownerWithId } = await import('./support/world');

describe('beyond the contract suite: failures whose error text carries secrets', () => {
  let server: Awaited<ReturnType<typeof startLocalServer>>;
  beforeAll(async () => {
    server = await startLocalServer();
  });
  afterAll(async () => server.close());

  it('storage errors quoting a key, a hash and a password reach neither the log nor the caller', async () => {
    const owner = await ownerWithId('secrets');
    const api = apiClient(server.baseUrl, owner.apiKey);
    const email = uniqueEmail('secret');
    expect((await api('/v1/createUser', { user_email: email, user_password: 'a secret that must stay' })).status).toBe(200);
    const hash = (await collection(owner.ownerId, email))[0]!.password_hash as string;
    const message = `Item {password_hash: ${hash}} for key ${owner.apiKey} with a secret that must stay`;
    const operations = [
      ['UpdateItem', '/v1/resetUserPassword', { user_email: email, new_password: 'another secret to keep' }, MESSAGES.resetFailed],
      ['Query', '/v1/deleteUser', { user_email: email }, MESSAGES.deleteFailed],
      ['PutItem', '/v1/createUser', { user_email: uniqueEmail('secret'), user_password: 'a third secret to keep' }, MESSAGES.createFailed],
    ] as const;
    for (const [operation, path, body, failure] of operations) {
      for (const kind of ['internal', 'rejected'] as const) {
        const fault = injectFault(stores.client, { operation, kind, message });
        const response = await api(path, body).finally(fault.remove);
        expect([response.status, response.body]).toEqual([500, { message: failure }]);
      }
    }
  });

  it('keys sent where they do not belong are neither logged nor echoed', async () => {
    const owner = await ownerWithId('misplaced');
    const api = apiClient(server.baseUrl, owner.apiKey);
    const responses = [
      await api('/v1/createUser', { user_email: owner.apiKey }),
      await api('/v1/createUser', { user_email: uniqueEmail('k'), api_key: owner.apiKey }),
      await api('/v1/resetUserPassword', { user_email: uniqueEmail('k'), new_password: owner.apiKey }),
      await api('/v1/deleteUser', { user_email: uniqueEmail('k') }, { apiKey: null, headers: { authorization: `Bearer ${owner.apiKey}` } }),
      await api('/v1/deleteUser', { user_email: uniqueEmail('k') }, { apiKey: `${owner.apiKey}x` }),
    ];
    expect(responses.map((r) => [r.status, r.body])).toEqual([
      [400, { message: MESSAGES.userEmailInvalid }],
      [400, { message: unknownParameter('api_key') }],
      [404, { message: MESSAGES.userNotFound }],
      [401, { message: MESSAGES.unauthorized }],
      [401, { message: MESSAGES.unauthorized }],
    ]);
    captured.sentPasswords.add(owner.apiKey);
  });
});

/**
 * Judges everything captured so far: no log line holds a password sent, a hash or key digest
 * stored, or an API key sent; no response leaks.
 */
async function judge(): Promise<void> {
  const log = captured.lines.join('');
  const { config, stores } = processStores();
  const { client } = stores;
  const stored = (TableName: string) => scanAll(client, { TableName });
  const hashes = (await stored(config.usersTableName)).map((item) => item.password_hash).filter((h): h is string => typeof h === 'string');
  const digests = (await stored(config.ownersTableName))
    .map((item) => item.pk as string)
    .filter((pk) => pk.startsWith('KEY#'))
    .map((pk) => pk.slice(4));

  const secrets = [
    ...[...captured.sentPasswords].filter((p) => p.length >= 8).map((value) => ['password', value]),
    ...[...captured.sentKeys].filter((k) => k.length >= 8).map((value) => ['API key', value]),
    ...[...captured.sentIdempotencyKeys].filter((k) => k.length >= 16).map((value) => ['Idempotency-Key', value]),
    // A hash's last field (the digest itself, 22 or more base64 characters for every stored format).
    // The shared table also holds placeholders other files' tests store (repository.test.ts's 'h'),
    // which no log could be kept free of: the same floor as for passwords and keys.
    ...hashes.map((value) => ['hash', value.split('$').at(-1)!]).filter(([, digest]) => digest!.length >= 16),
    ...digests.map((value) => ['key digest', value]),
  ];
  const found = secrets.filter(([, value]) => log.includes(value!) || log.includes(JSON.stringify(value).slice(1, -1)));
  expect(found).toEqual([]);
  expect(log).not.toMatch(/\$argon2/);
  // Nor an e-mail: the erasure horizon counts on logs holding none (owners appear by id).
  expect(log.match(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g) ?? []).toEqual([]);
  expect(log).not.toMatch(/wlk_[A-Za-z0-9_-]{8}/);

  for (const text of captured.responses) {
    const created = (() => {
      try {
        return (JSON.parse(text) as { user_password?: string }).user_password;
      } catch {
        return undefined;
      }
    })();
    // A create echoes the password the caller chose; judge the rest of the body.
    const judged = created === undefined ? text : text.replace(JSON.stringify(created), '""');
    for (const pattern of LEAK_PATTERNS) expect([pattern.source, judged]).not.toEqual([pattern.source, expect.stringMatching(pattern)]);
    for (const digest of digests) expect(judged).not.toContain(digest);
  }

  // The capture saw real traffic: the suite's requests and their log lines.
  expect(captured.responses.length).toBeGreaterThan(100);
  expect(captured.sentIdempotencyKeys.size).toBeGreaterThan(10);
  expect(captured.lines.filter((line) => line.includes('"Request completed"')).length).toBeGreaterThan(100);
  expect(captured.lines.filter((line) => line.includes('"CloudWatchMetrics"')).length).toBeGreaterThan(100);
  if (process.env.HARDENING_REPORT) {
    console.log(`secrets: ${captured.lines.length} log lines, ${captured.responses.length} responses, ${secrets.length} secrets checked`);
  }
}

/** Log lines of completed deleteUser requests among these. */
const deletes = (lines: readonly string[]) =>
  lines.filter((line) => line.includes('"Request completed"') && line.includes('deleteUser')).length;
let judgedUpTo = 0;

describe('what was captured', () => {
  // Registered last, so it runs after every test above and the imported suite's own tests.
  it('no log line holds a password sent, a hash or key digest stored, or an API key sent; no response leaks', async () => {
    await judge();
    judgedUpTo = captured.lines.length;
  });
});

// Declared after every imported file's hooks, so it runs after their clean-up (the deletes of every
// user they made): the capture stays on until here, and what the clean-up wrote is judged too.
afterAll(async () => {
  jest.restoreAllMocks();
  expect(deletes(captured.lines.slice(judgedUpTo))).toBeGreaterThan(0);
  await judge();
});
