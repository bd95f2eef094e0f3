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
import { validators } from '#contract/generated/validators/index';
import { keySecrets, RECORD_LIFETIME_SECONDS } from '#domain/idempotency';
import { MAX_BODY_BYTES } from '#http/middleware/parse-body';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import {
  duplicated,
  EXAMPLE_IDEMPOTENCY_KEY,
  EXAMPLE_OWNER_EMAIL,
  EXAMPLE_USER_EMAIL,
  type JsonObject,
  NOT_UTF8_STAND_IN,
  OPENAPI_PATH,
} from '../../codegen/openapi';
import { injectFault } from '../support/faults';
import { iJsonProblems } from '../support/i-json';
import { newOwner, startLocalServer } from '../support/local';

const { config, stores } = processStores();

type Example = { summary: string; value: unknown; 'x-request-body'?: unknown };
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
  'x-routing-responses': Record<string, { headers?: Record<string, unknown>; content: { 'application/json': { example: unknown } } }>;
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
  /** The document's U+FFFD stands for a byte that is not UTF-8: 0xE9 is sent in its place. */
  readonly notUtf8?: boolean;
  /** The body's first member is sent twice, as the example says in words (a JSON object in the document cannot show it). */
  readonly duplicateName?: boolean;
  /** With the example Idempotency-Key: the same request was answered before (its success example's state), or
   * another body used the key, or the first request with it is still running. */
  readonly idempotencyKey?: 'sent-before' | 'used-with-another-body' | 'in-progress';
}

const REPLAYS: Record<string, Replay> = {
  passwordReset: { userExists: true },
  deleted: { userExists: true },
  userExists: { userExists: true },
  apiKeyInvalid: { headers: { 'x-api-key': `wlk_${'A'.repeat(43)}` } },
  ownerGone: { ownerGone: true },
  bodyTooLarge: { oversize: true },
  bodyNotUtf8: { notUtf8: true },
  bodyDuplicateName: { duplicateName: true },
  contentTypeNotJson: { headers: { 'content-type': 'text/plain' } },
  storageFailure: { storageFails: true },
  idempotencyKeyInvalid: { headers: { 'idempotency-key': 'too-short' } },
  replayed: { idempotencyKey: 'sent-before' },
  idempotencyKeyReused: { idempotencyKey: 'used-with-another-body' },
  idempotencyInProgress: { idempotencyKey: 'in-progress' },
};

/** Examples the local server cannot produce, and why. */
const NOT_REPLAYABLE: Record<string, string> = {
  throttled: 'API Gateway throttles the deployed stage; the local server does not throttle',
  userPasswordBreached: 'the online check is off by default; test/integration/password-breach-check.test.ts runs it against a stand-in',
  newPasswordBreached: 'the online check is off by default; test/integration/password-breach-check.test.ts runs it against a stand-in',
  notHttp: 'not an HTTP request fetch can send: test/integration/local-server-protocol.test.ts sends it over a raw socket',
  expectationFailed: 'fetch sends no Expect header: test/integration/local-server-protocol.test.ts sends it over a raw socket',
  headersTooLarge: 'a raw-socket answer: test/integration/local-server-protocol.test.ts sends it and compares it with this document',
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
  it('serves the committed document, byte for byte, without a key', () => {
    expect(served.status).toBe(200);
    expect(served.contentType).toBe('application/json');
    expect(served.text).toBe(readFileSync(OPENAPI_PATH, 'utf8'));
  });

  it('serves I-JSON (RFC 7493): no lone surrogate escape, no duplicate name, UTF-8', () => {
    expect(iJsonProblems(served.text)).toEqual([]);
  });

  it('answers another method with 405 and Allow', async () => {
    const response = await fetch(`${server.baseUrl}/openapi.json`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await response.json()).toEqual({ message: 'Method Not Allowed' });
  });
});

/**
 * Every (operation, status, example) of the committed document, in document order. The request is
 * the request example of the same name, or the response example's own `x-request-body` when the
 * request breaks the request schema.
 */
function documentedExamples() {
  const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Document;
  return Object.entries(document.paths).flatMap(([path, { post }]) =>
    Object.entries(post.responses).flatMap(([status, response]) =>
      Object.entries(response.content['application/json'].examples).map(([name, example]) => ({
        path,
        status: Number(status),
        name,
        request: example['x-request-body'] ?? post.requestBody.content['application/json'].examples[name]!.value,
        response: example.value,
      })),
    ),
  );
}

const examples = documentedExamples();
const replayed = examples.filter((e) => !(e.name in NOT_REPLAYABLE));

/** The set-up an example's replay needs; a replayed request also needs its success example's. */
function replayFor(example: (typeof examples)[number]): Replay {
  const own = REPLAYS[example.name] ?? {};
  const success = examples.find((e) => e.path === example.path && e.status === 200 && e.name !== 'replayed')!;
  return own.idempotencyKey === 'sent-before' ? { ...REPLAYS[success.name], ...own } : own;
}

describe('every documented example, replayed against the local server', () => {
  it('covers every example but the ones the local server cannot produce', () => {
    // Per operation, by status: HTTP itself (400, 417, 431, raw-socket answers), the online check (400), the throttle (429).
    const perOperation = (breached?: string) => [
      ['notHttp', 400],
      ...(breached ? [[breached, 400]] : []),
      ['expectationFailed', 417],
      ['throttled', 429],
      ['headersTooLarge', 431],
    ];
    expect(examples.filter((e) => e.name in NOT_REPLAYABLE).map((e) => [e.name, e.status])).toEqual([
      ...perOperation('userPasswordBreached'),
      ...perOperation('newPasswordBreached'),
      ...perOperation(),
    ]);
    expect(replayed.length).toBe(58);
  });

  it('runs every set-up step below in every run: each kind of Replay is needed by some replayed example', () => {
    const steps = replayed.flatMap((e) =>
      Object.entries(replayFor(e)).map(([step, value]) => (step === 'idempotencyKey' ? `${step}: ${value}` : step)),
    );
    expect([...new Set(steps)].sort()).toEqual([
      'duplicateName',
      'headers',
      'idempotencyKey: in-progress',
      'idempotencyKey: sent-before',
      'idempotencyKey: used-with-another-body',
      'notUtf8',
      'oversize',
      'ownerGone',
      'storageFails',
      'userExists',
    ]);
  });

  it.each(replayed.map((e) => [`POST ${e.path} ${e.status} ${e.name}`, e] as const))('%s', async (_, example) => {
    // A replay needs what its operation's success needs (the user, for reset and delete).
    const replay = replayFor(example);
    const owner = await newOwner('replay');
    const asOwner = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(EXAMPLE_OWNER_EMAIL, owner.ownerEmail));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': owner.apiKey };
    for (const [name, value] of Object.entries(replay.headers ?? {})) {
      if (value === null) delete headers[name];
      else headers[name] = value;
    }
    const post = (path: string, body: string | Buffer) => fetch(`${server.baseUrl}${path}`, { method: 'POST', headers, body });

    if (replay.userExists) {
      const created = await post(
        '/v1/createUser',
        JSON.stringify({ user_email: EXAMPLE_USER_EMAIL, user_password: 'the password before' }),
      );
      expect([created.status, await created.json()]).toEqual([
        200,
        { user_email: EXAMPLE_USER_EMAIL, user_password: 'the password before' },
      ]);
    }
    if (replay.ownerGone) {
      const { ownerId } = (await stores.owners.findOwner(owner.ownerEmail))!;
      await stores.client.send(new DeleteCommand({ TableName: config.usersTableName, Key: userKey(ownerId, owner.ownerEmail) }));
    }
    let body: string | Buffer = JSON.stringify(asOwner(example.request));
    if (replay.oversize) body = JSON.stringify({ ...asOwner(example.request), padding: 'x'.repeat(MAX_BODY_BYTES) });
    if (replay.duplicateName) body = duplicated(asOwner(example.request) as JsonObject);
    if (replay.notUtf8) {
      expect(body).toContain(NOT_UTF8_STAND_IN);
      body = Buffer.concat(
        body.split(NOT_UTF8_STAND_IN).flatMap((part, i) => (i === 0 ? [Buffer.from(part)] : [Buffer.of(0xe9), Buffer.from(part)])),
      );
    }

    // The state above is set up without the key; from here on, requests carry it.
    if (replay.idempotencyKey) headers['idempotency-key'] = EXAMPLE_IDEMPOTENCY_KEY;
    if (replay.idempotencyKey === 'sent-before') expect((await post(example.path, body)).status).toBe(example.status);
    if (replay.idempotencyKey === 'used-with-another-body') {
      await post(example.path, JSON.stringify({ ...asOwner(example.request), user_email: 'someone.else@example.com' }));
    }
    if (replay.idempotencyKey === 'in-progress') {
      const { ownerId } = (await stores.owners.findOwner(owner.ownerEmail))!;
      const secrets = keySecrets(ownerId, EXAMPLE_IDEMPOTENCY_KEY);
      // The request as the pipeline validates it (e-mail trimmed and lower-cased), which is what a claim fingerprints.
      const operation = example.path.slice('/v1/'.length) as keyof typeof validators;
      const validated = JSON.parse(body.toString());
      expect(validators[operation](validated)).toBe(true);
      const claim = await stores.idempotency.claimIdempotencyKey(
        {
          ownerId,
          keyDigest: secrets.keyDigest,
          fingerprint: secrets.fingerprint(operation, validated),
          claimId: 'a request still running',
          inProgressUntil: Date.now() + 60_000,
          expiresAt: Math.floor(Date.now() / 1000) + RECORD_LIFETIME_SECONDS,
        },
        new Date(),
      );
      expect(claim).toEqual({ claimed: true });
    }

    const removeFault = replay.storageFails ? failEveryStorageCall() : undefined;
    try {
      const response = await post(example.path, body);
      expect({ status: response.status, contentType: response.headers.get('content-type'), body: await response.json() }).toEqual({
        status: example.status,
        contentType: 'application/json',
        body: asOwner(example.response),
      });
      expect(response.headers.get('idempotent-replayed')).toBe(replay.idempotencyKey === 'sent-before' ? 'true' : null);
    } finally {
      removeFault?.();
    }
  });

  it('replays the routing answers: NotFound and MethodNotAllowed', async () => {
    const document = JSON.parse(served.text) as Document;
    const { NotFound, MethodNotAllowed } = document['x-routing-responses'];
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
  const fault = injectFault(stores.client, { operation: '*', kind: 'rejected' });
  return () => fault.remove();
}
