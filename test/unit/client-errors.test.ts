/**
 * The client's errors in one line: a missing or malformed `baseUrl` or `apiKey` throws at
 * `createClient`, naming the option (and never showing a key); an address where nothing listens is
 * given up within a few attempts and about two seconds, naming the URL, over real sockets; every
 * other failure keeps the retry policy.
 */

import { describe, expect, it } from '@jest/globals';
import { freePort } from '../../local/free-port';
import { createClient, NetworkError, type RetryReason, UNREACHABLE_CODES, UNREACHABLE_RETRY } from '../../packages/client/src/index';

const KEY = `wlk_${'a'.repeat(43)}`;
const FAST = { baseDelayMs: 5, maxDelayMs: 10 };

describe('createClient refuses a missing or malformed option at once, naming it', () => {
  const baseUrlMust = 'createClient: baseUrl must be an absolute http(s) URL';
  it.each([
    [undefined, `${baseUrlMust}, got undefined`],
    [null, `${baseUrlMust}, got null`],
    ['', `${baseUrlMust}, got an empty string`],
    [3000, `${baseUrlMust}, got a number`],
    ['localhost:3000', `${baseUrlMust}, got "localhost:3000"`],
    ['127.0.0.1:3000', `${baseUrlMust}, got "127.0.0.1:3000"`],
    ['/v1', `${baseUrlMust}, got "/v1"`],
    ['ftp://example.com', `${baseUrlMust}, got "ftp://example.com"`],
    ['http://example.com/?stage=prod', `${baseUrlMust} without a query or fragment, got "http://example.com/?stage=prod"`],
  ])('baseUrl %p', (baseUrl, message) => {
    expect(() => createClient({ baseUrl: baseUrl as string, apiKey: KEY })).toThrow(new TypeError(message));
  });

  it('a baseUrl with credentials, without showing them', () => {
    const call = () => createClient({ baseUrl: 'https://admin:s3cret-pw@example.com', apiKey: KEY });
    expect(call).toThrow(new TypeError(`${baseUrlMust} without a user name or password`));
  });

  const apiKeyMust = "createClient: apiKey must be the owner's API key (wlk_...), got";
  it.each([
    ['missing', undefined, `${apiKeyMust} undefined`],
    ['null', null, `${apiKeyMust} null`],
    ['empty', '', `${apiKeyMust} an empty string`],
    ['a number', 42, `${apiKeyMust} a number`],
    ['with a trailing newline', `${KEY}\n`, `${apiKeyMust} a string with spaces, control or non-ASCII characters`],
    ['with a scheme before it', `Bearer ${KEY}`, `${apiKeyMust} a string with spaces, control or non-ASCII characters`],
    ['with a non-ASCII letter', `${KEY.slice(0, -1)}é`, `${apiKeyMust} a string with spaces, control or non-ASCII characters`],
  ])('apiKey %s, never showing it', (_, apiKey, message) => {
    let thrown: unknown;
    try {
      createClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: apiKey as string });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toEqual(new TypeError(message));
    expect((thrown as Error).message).not.toContain('aaaa');
  });

  it('no options at all', () => {
    expect(() => (createClient as (options?: unknown) => unknown)()).toThrow(
      new TypeError('createClient: options must be an object, got undefined'),
    );
  });

  it('accepts the forms the docs give: an address, a trailing slash or /v1, a stage path', () => {
    for (const baseUrl of ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/', 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/v1']) {
      expect(() => createClient({ baseUrl, apiKey: KEY })).not.toThrow();
    }
  });
});

/** A client whose retries are recorded. */
function recording(baseUrl: string, extra: Partial<Parameters<typeof createClient>[0]> = {}) {
  const retries: { reason: RetryReason; delayMs: number }[] = [];
  const client = createClient({ baseUrl, apiKey: KEY, onRetry: ({ reason, delayMs }) => retries.push({ reason, delayMs }), ...extra });
  return { client, retries };
}

/** A fetch that fails each attempt as undici does (`TypeError: fetch failed`, the socket's error in `cause`), or answers. */
function scriptedFetch(steps: readonly (string | number)[]) {
  const calls: string[] = [];
  const fetch = async (request: Request) => {
    calls.push(request.url);
    const step = steps[calls.length - 1] ?? 200;
    if (typeof step === 'number') {
      return new Response(
        JSON.stringify(step === 200 ? { message: 'User and all associated data deleted successfully.' } : { message: 'x' }),
        {
          status: step,
          headers: { 'content-type': 'application/json' },
        },
      );
    }
    throw new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${step}`), { code: step }) });
  };
  return { fetch, calls };
}

describe('an address where nothing listens', () => {
  it('a refused connection (real socket) with the default policy: at most a few attempts, given up within seconds, naming the URL', async () => {
    const baseUrl = `http://127.0.0.1:${await freePort()}`;
    const { client, retries } = recording(`${baseUrl}/v1`);
    const before = performance.now();
    const error = await client.createUser({ user_email: 'jane@example.com' }).catch((e: unknown) => e);
    const elapsed = performance.now() - before;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timedOut: false, code: 'ECONNREFUSED' });
    const { attempts } = error as NetworkError;
    expect(attempts).toBeLessThanOrEqual(UNREACHABLE_RETRY.maxAttempts);
    expect((error as Error).message).toBe(
      `createUser: nothing answers at ${baseUrl} (ECONNREFUSED: ${UNREACHABLE_CODES.ECONNREFUSED}), after ${attempts} attempt(s)`,
    );
    expect(retries.every((r) => r.reason === 'network' && r.delayMs <= 500)).toBe(true);
    // The old policy waited out its 60 s deadline (59.5 s and 19 attempts, measured); this gives up in about one.
    expect(elapsed).toBeLessThan(10_000);
  }, 30_000);

  it('localhost (both address families refused) is given up the same way', async () => {
    const baseUrl = `http://localhost:${await freePort()}`;
    const error = await recording(baseUrl)
      .client.deleteUser({ user_email: 'jane@example.com' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNREFUSED', timedOut: false });
    expect((error as NetworkError).attempts).toBeLessThanOrEqual(UNREACHABLE_RETRY.maxAttempts);
    expect((error as Error).message).toContain(`nothing answers at ${baseUrl} (ECONNREFUSED`);
  }, 30_000);

  it.each(Object.keys(UNREACHABLE_CODES))('%s: three attempts, then the URL and what to check', async (code) => {
    const { fetch, calls } = scriptedFetch([code, code, code, code, code]);
    const error = await recording('https://users.example.com/prod', { fetch })
      .client.deleteUser({ user_email: 'jane@example.com' })
      .catch((e: unknown) => e);
    expect(calls).toHaveLength(3);
    expect((error as Error).message).toBe(
      `deleteUser: nothing answers at https://users.example.com/prod (${code}: ${UNREACHABLE_CODES[code]}), after 3 attempt(s)`,
    );
  });

  it("the call's own maxAttempts still applies", async () => {
    const { fetch, calls } = scriptedFetch(['ECONNREFUSED', 'ECONNREFUSED']);
    const error = await recording('http://127.0.0.1:3000', { fetch, retry: { maxAttempts: 1 } })
      .client.deleteUser({ user_email: 'jane@example.com' })
      .catch((e: unknown) => e);
    expect(calls).toHaveLength(1);
    expect(error).toMatchObject({ attempts: 1, code: 'ECONNREFUSED' });
  });
});

describe('every other failure keeps the retry policy', () => {
  it('a reset or dropped connection is retried past three attempts, until it succeeds', async () => {
    const { fetch, calls } = scriptedFetch(['ECONNRESET', 'ECONNRESET', 'UND_ERR_SOCKET', 'ECONNRESET', 'ECONNRESET', 200]);
    const result = await recording('http://127.0.0.1:3000', { fetch, retry: FAST }).client.deleteUser({ user_email: 'jane@example.com' });
    expect(result).toMatchObject({ ok: true, attempts: 6 });
    expect(calls).toHaveLength(6);
  });

  it('refusals apart from one another start the count again: a service restarting between 503s is waited for', async () => {
    const steps = ['ECONNREFUSED', 'ECONNREFUSED', 503, 'ECONNREFUSED', 'ECONNREFUSED', 503, 200];
    const { fetch, calls } = scriptedFetch(steps);
    const result = await recording('http://127.0.0.1:3000', { fetch, retry: FAST }).client.deleteUser({ user_email: 'jane@example.com' });
    expect(result).toMatchObject({ ok: true, attempts: 7 });
    expect(calls).toHaveLength(7);
  });

  it('a code that is also an object property name is no unreachable address', async () => {
    const { fetch, calls } = scriptedFetch(['constructor', 'toString', 'hasOwnProperty', 'constructor', 200]);
    const result = await recording('http://127.0.0.1:3000', { fetch, retry: FAST }).client.deleteUser({ user_email: 'jane@example.com' });
    expect(result).toMatchObject({ ok: true, attempts: 5 });
    expect(calls).toHaveLength(5);
  });

  it('a reset connection keeps its message form: no answer (code)', async () => {
    const { fetch } = scriptedFetch(['ECONNRESET', 'ECONNRESET']);
    const error = await recording('http://127.0.0.1:3000', { fetch, retry: { ...FAST, maxAttempts: 2 } })
      .client.deleteUser({ user_email: 'jane@example.com' })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('deleteUser: no answer (ECONNRESET), after 2 attempt(s)');
  });
});
