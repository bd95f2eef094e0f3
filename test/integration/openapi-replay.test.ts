/**
 * The OpenAPI document proven against the local server: the server publishes the
 * committed document, and every documented example is replayed, its request sent
 * and its response expected, status and body.
 *
 * Each example runs as a fresh owner, so `jane@example.com` is a user of no other
 * test (owners' users are separate); `owner@example.com` stands for the caller's
 * own account and is replaced with the fresh owner's e-mail.
 */

import { readFileSync } from 'node:fs';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MAX_BODY_BYTES } from '../../functions/shared/middleware/parse-body';
import { DEFAULT_BASE_URL, EXAMPLE_OWNER_EMAIL, EXAMPLE_USER_EMAIL, OPENAPI_PATH } from '../../functions/shared/openapi';
import { dependencies } from '../../functions/shared/pipeline';
import { userKey } from '../../functions/shared/table-layout';
import { newOwner, startLocalServer } from '../support/local';

type Example = { summary: string; value: unknown };
type Examples = Record<string, Example>;
interface Document {
  paths: Record<
    string,
    {
      post: {
        requestBody: { content: { 'application/json': { examples: Examples } } };
        responses: Record<string, { content: { 'application/json': { examples: Examples } } }>;
      };
    }
  >;
  components: { responses: Record<string, { headers?: Record<string, unknown>; content: { 'application/json': { example: unknown } } }> };
}

/** What a request example cannot show by itself: the state it needs, its headers, its size. */
interface Replay {
  /** `jane@example.com` is a user of the caller's tool before the request. */
  readonly userExists?: boolean;
  /** The caller's own account is removed before the request. */
  readonly ownerGone?: boolean;
  /** Every storage call fails during the request. */
  readonly storageFails?: boolean;
  readonly headers?: Record<string, string | null>;
  /** Padding added to the body so it exceeds the limit. */
  readonly oversize?: boolean;
}

const REPLAYS: Record<string, Replay> = {
  passwordReset: { userExists: true },
  deleted: { userExists: true },
  userExists: { userExists: true },
  apiKeyInvalid: { headers: { 'x-api-key': `wlk_${'A'.repeat(43)}` } },
  ownerGone: { ownerGone: true },
  bodyTooLarge: { oversize: true },
  contentTypeNotJson: { headers: { 'content-type': 'text/plain' } },
  storageFailure: { storageFails: true },
};

/** Examples the local server cannot produce, and why. */
const NOT_REPLAYABLE: Record<string, string> = {
  throttled: 'API Gateway throttles the deployed stage; the local server does not throttle',
};

let server: Awaited<ReturnType<typeof startLocalServer>>;
let served: { status: number; contentType: string | null; text: string };

beforeAll(async () => {
  server = await startLocalServer();
  const response = await fetch(`${server.baseUrl}/openapi.json`);
  served = { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
});
afterAll(async () => server.close());

describe('GET /openapi.json', () => {
  it('serves the committed document, byte for byte but for the address it listens on, without a key', () => {
    expect(served.status).toBe(200);
    expect(served.contentType).toBe('application/json');
    // The committed document names `npm start` on port 3000; this server listens on a port of its own.
    const committed = readFileSync(OPENAPI_PATH, 'utf8');
    expect(committed).toContain(`"default": "${DEFAULT_BASE_URL}"`);
    expect(served.text).toBe(committed.replace(`"default": "${DEFAULT_BASE_URL}"`, `"default": "${server.baseUrl}"`));
  });

  it('answers another method with 405 and Allow', async () => {
    const response = await fetch(`${server.baseUrl}/openapi.json`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await response.json()).toEqual({ message: 'Method Not Allowed' });
  });
});

/** Every (operation, status, example) of the committed document, in document order. */
function documentedExamples() {
  const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Document;
  return Object.entries(document.paths).flatMap(([path, { post }]) =>
    Object.entries(post.responses).flatMap(([status, response]) =>
      Object.entries(response.content['application/json'].examples).map(([name, example]) => ({
        path,
        status: Number(status),
        name,
        request: post.requestBody.content['application/json'].examples[name]!.value,
        response: example.value,
      })),
    ),
  );
}

const examples = documentedExamples();
const replayed = examples.filter((e) => !(e.name in NOT_REPLAYABLE));

describe('every documented example, replayed against the local server', () => {
  it('covers every example but the ones the local server cannot produce', () => {
    expect(examples.filter((e) => e.name in NOT_REPLAYABLE).map((e) => e.status)).toEqual([429, 429, 429]);
    expect(replayed.length).toBeGreaterThanOrEqual(38);
  });

  it.each(replayed.map((e) => [`POST ${e.path} ${e.status} ${e.name}`, e] as const))('%s', async (_, example) => {
    const replay = REPLAYS[example.name] ?? {};
    const owner = await newOwner('replay');
    const asOwner = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(EXAMPLE_OWNER_EMAIL, owner.ownerEmail));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': owner.apiKey };
    for (const [name, value] of Object.entries(replay.headers ?? {})) {
      if (value === null) delete headers[name];
      else headers[name] = value;
    }
    const post = (path: string, body: string) => fetch(`${server.baseUrl}${path}`, { method: 'POST', headers, body });

    if (replay.userExists) {
      const created = await post(
        '/v1/createUser',
        JSON.stringify({ user_email: EXAMPLE_USER_EMAIL, user_password: 'the password before' }),
      );
      expect(created.status).toBe(200);
    }
    if (replay.ownerGone) {
      const { ownerId } = (await dependencies.repository.findOwner(owner.ownerEmail))!;
      await dependencies.client.send(
        new DeleteCommand({ TableName: dependencies.config.usersTableName, Key: userKey(ownerId, owner.ownerEmail) }),
      );
    }
    let body = JSON.stringify(asOwner(example.request));
    if (replay.oversize) body = JSON.stringify({ ...asOwner(example.request), padding: 'x'.repeat(MAX_BODY_BYTES) });

    const removeFault = replay.storageFails ? failEveryStorageCall() : undefined;
    try {
      const response = await post(example.path, body);
      expect({ status: response.status, contentType: response.headers.get('content-type'), body: await response.json() }).toEqual({
        status: example.status,
        contentType: 'application/json',
        body: asOwner(example.response),
      });
    } finally {
      removeFault?.();
    }
  });

  it('replays the routing answers: NotFound and MethodNotAllowed', async () => {
    const document = JSON.parse(served.text) as Document;
    const { NotFound, MethodNotAllowed } = document.components.responses;
    const notFound = await fetch(`${server.baseUrl}/v1/unknownOperation`, { method: 'POST', body: '{}' });
    expect([notFound.status, await notFound.json()]).toEqual([404, NotFound!.content['application/json'].example]);
    const wrongMethod = await fetch(`${server.baseUrl}/v1/createUser`, { method: 'GET' });
    expect([wrongMethod.status, wrongMethod.headers.get('allow'), await wrongMethod.json()]).toEqual([
      405,
      'POST',
      MethodNotAllowed!.content['application/json'].example,
    ]);
  });
});

/** Makes every DynamoDB call of this process fail until the returned function is called. */
function failEveryStorageCall(): () => void {
  const name = `fail-every-call-${Math.random()}`;
  dependencies.client.middlewareStack.add(
    () => async () => {
      throw Object.assign(new Error('injected fault'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } });
    },
    { step: 'initialize', name },
  );
  return () => void dependencies.client.middlewareStack.remove(name);
}
