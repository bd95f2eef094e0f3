/**
 * Property-based hostile input (fast-check): thousands of generated requests,
 * straight to the three handlers and over real HTTP to the local server. Whatever
 * arrives, the answer is never a 5xx and always a contract response, and the
 * server still serves afterwards. Jest 30 fails the running test on any unhandled
 * rejection, so none can pass unnoticed.
 */

import { Agent, request as httpRequest } from 'node:http';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MESSAGES } from '#contract/messages';
import { OPERATIONS, type OperationName } from '#contract/operations';
import { issueKey, revokeKey } from '#domain/owners';
import type { ApiHandler } from '#http/pipeline';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import { handlerOf } from '../../local/server';
import { apiClient } from '../support/http-client';
import { startLocalServer, uniqueEmail } from '../support/local';
import { expectContractResponse } from './support/contract';
import { type HostileRequest, hostileRequest, type Keys } from './support/hostile';
import { lambdaContext, ownerWithId, proxyEvent } from './support/world';

/** Generated cases: straight to the handlers, and over HTTP. */
const HANDLER_RUNS = 2_500;
const HTTP_RUNS = 500;

/** Every operation's handler, from the registry. */
const HANDLERS = Object.fromEntries(await Promise.all(OPERATIONS.map(async (name) => [name, await handlerOf(name)]))) as Record<
  OperationName,
  ApiHandler
>;
const { config, stores } = processStores();
let server: Awaited<ReturnType<typeof startLocalServer>>;
let keys: Keys;
let agent: Agent;
/** Statuses seen, for the report (HARDENING_REPORT=1). */
const seen: Record<string, number> = {};
const tally = (where: string, status: number) => {
  seen[`${where} ${status}`] = (seen[`${where} ${status}`] ?? 0) + 1;
};

beforeAll(async () => {
  server = await startLocalServer();
  agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const [owner, orphan] = await Promise.all([ownerWithId('hostile'), ownerWithId('orphan')]);
  const revoked = await issueKey(stores.owners, owner.ownerEmail);
  await revokeKey(stores.owners, revoked.key_id);
  // An owner whose own account is gone: its key is valid, its requests are 403.
  await stores.client.send(new DeleteCommand({ TableName: config.usersTableName, Key: userKey(orphan.ownerId, orphan.ownerEmail) }));
  keys = { valid: owner.apiKey, revoked: revoked.api_key, orphaned: orphan.apiKey };
  // Two owners' argon2id hashes and a server start: longer than jest's 5 s on a loaded machine.
}, 30_000);
afterAll(async () => {
  agent.destroy();
  await server.close();
  if (process.env.HARDENING_REPORT) console.log(`hostile-input: ${HANDLER_RUNS} handler cases, ${HTTP_RUNS} HTTP cases`, seen);
});

/** The body text the handler ends up reading. */
const decoded = (request: HostileRequest) =>
  request.body === null ? null : request.isBase64Encoded ? Buffer.from(request.body, 'base64').toString('utf8') : request.body;

describe('hostile input straight to the handlers', () => {
  it(`${HANDLER_RUNS} generated events: never a 5xx, always a contract response`, async () => {
    await fc.assert(
      fc.asyncProperty(hostileRequest(keys, { http: false }), async (request) => {
        const headers = request.headers && Object.fromEntries(request.headers);
        const multiValueHeaders = request.headers && Object.fromEntries(request.headers.map(([name, value]) => [name, [value]]));
        const event = proxyEvent(request.operation, {
          headers: headers as never,
          multiValueHeaders: multiValueHeaders as never,
          body: request.body,
          isBase64Encoded: request.isBase64Encoded,
        });
        const result = await HANDLERS[request.operation](event, lambdaContext(request.operation));
        tally('handler', result.statusCode);
        const contentType = Object.entries(result.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
        expectContractResponse(
          request.operation,
          config.passwordPolicy,
          { status: result.statusCode, contentType: String(contentType), text: result.body },
          decoded(request),
        );
      }),
      { numRuns: HANDLER_RUNS },
    );
  }, 120_000);
});

/** Where a request goes: the operation's own path (with a query), or `path` in its place. */
type Route = { method: string; path?: string; query?: string };
type Sent = Awaited<ReturnType<typeof send>>;

/**
 * Each kind of route, with its share of the HTTP runs (18 : 1 : 1) and what the contract answers there. Every
 * kind is its own property, so each of the three checks runs in every run, not when the draw allows.
 */
const HTTP_CASES: { kind: string; runs: number; routes: fc.Arbitrary<Route>; check: (response: Sent, request: HostileRequest) => void }[] =
  [
    {
      kind: 'operation',
      runs: 450,
      routes: fc.constantFrom('', '', '', '?x=1', '?user_email=a@b.co').map((query): Route => ({ method: 'POST', query })),
      check: (response, request) => {
        const text = request.body === null ? null : request.binary ? Buffer.from(request.body, 'latin1').toString('utf8') : request.body;
        expectContractResponse(
          request.operation,
          config.passwordPolicy,
          { status: response.status, contentType: String(response.headers['content-type']), text: response.text },
          text,
        );
      },
    },
    {
      kind: 'unknown path',
      runs: 25,
      routes: fc
        .oneof(
          fc.constantFrom(
            '/',
            '/v1',
            '/v1/',
            '/v2/createUser',
            '/v1/createUser/',
            '/V1/createUser',
            '/v1/createuser',
            '/v1/createUser%00',
            '//v1/createUser',
          ),
          fc.webSegment().map((segment) => `/v1/${segment}x`),
        )
        .map((path): Route => ({ method: 'POST', path })),
      check: (response) => expect([response.status, JSON.parse(response.text)]).toEqual([404, { message: MESSAGES.notFound }]),
    },
    {
      kind: 'other method',
      runs: 25,
      routes: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE').map((method): Route => ({ method })),
      check: (response) =>
        expect([response.status, JSON.parse(response.text), response.headers.allow]).toEqual([
          405,
          { message: MESSAGES.methodNotAllowed },
          'POST',
        ]),
    },
  ];

/** One raw HTTP request (node:http, so duplicate headers and latin1 bytes go out as generated). */
function send(
  method: string,
  path: string,
  request: HostileRequest,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const body = request.body === null ? undefined : Buffer.from(request.body, request.binary ? 'latin1' : 'utf8');
    // Given a raw header list node frames nothing itself: Host, and the length of a body (GET and DELETE included).
    const framing: [string, string][] = [
      ['Host', new URL(server.baseUrl).host],
      ...(body ? [['Content-Length', String(body.length)] as [string, string]] : []),
    ];
    const raw = [...framing, ...(request.headers ?? [])].flat();
    const req = httpRequest(`${server.baseUrl}${path}`, { method, agent, headers: raw }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('hostile input over HTTP to the local server', () => {
  it(`${HTTP_RUNS} generated requests: never a 5xx, always a contract response; the server still serves afterwards`, async () => {
    expect(HTTP_CASES.reduce((sum, { runs }) => sum + runs, 0)).toBe(HTTP_RUNS);
    for (const { runs, routes, check } of HTTP_CASES) {
      await fc.assert(
        fc.asyncProperty(hostileRequest(keys, { http: true }), routes, async (request, to) => {
          const response = await send(to.method, to.path ?? `/v1/${request.operation}${to.query ?? ''}`, request);
          tally('http', response.status);
          check(response, request);
        }),
        { numRuns: runs },
      );
    }

    const api = apiClient(server.baseUrl, keys.valid);
    const email = uniqueEmail('after-the-storm');
    const results = [
      await api('/v1/createUser', { user_email: email, user_password: 'still standing' }),
      await api('/v1/resetUserPassword', { user_email: email, new_password: 'still standing 2' }),
      await api('/v1/deleteUser', { user_email: email }),
    ];
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
  }, 120_000);
});
