/**
 * The local HTTP server: it only turns an HTTP request into the API Gateway
 * (REST, v1 proxy) event the Lambda handlers take, and their result back.
 * Routing mirrors the deployed API: unknown path 404, other method 405.
 * Beside the API, without a key: GET /openapi.json and GET /docs (local/docs.ts).
 */

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { MESSAGES } from '#contract/messages';
import { API_VERSION, CATALOGUE, OPERATIONS, type OperationName, operationPath } from '#contract/operations';
import { MAX_BODY_BYTES } from '#http/middleware/parse-body';
import type { ApiHandler as Handler } from '#http/pipeline';
import { jsonResponse } from '#http/responses';
import { processStores } from '#store/stores';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../codegen/openapi';
import { DOCS_CONTENT_SECURITY_POLICY, docsPages, type Page } from './docs';
import { lambdaContext, proxyEvent } from './lambda-runtime';
import { createProtocolServer } from './protocol';

/** Path prefix of every operation; the endpoints are `{base_url}/v1/<operation>` (docs/api-contract.md). */
export const API_PREFIX = `/${API_VERSION}`;

/**
 * Each operation's handler, `functions/<operation>/handler.ts` as the stack deploys it, loaded
 * once on the operation's first request (the bench and the tests that call handlers take them here).
 */
const handlers = new Map<OperationName, Promise<Handler>>();
export const handlerOf = (operation: OperationName): Promise<Handler> => {
  let loaded = handlers.get(operation);
  if (!loaded) {
    loaded = import(`../functions/${operation}/handler.ts`).then((module: { handler: Handler }) => module.handler);
    handlers.set(operation, loaded);
  }
  return loaded;
};

/** Each route's operation, by its catalogue path. */
const ROUTES = new Map(OPERATIONS.map((operation) => [operationPath(operation), operation]));

/** The paths the local server answers an operation on (the catalogue test holds them to the stack's). */
export const LOCAL_OPERATION_PATHS: readonly string[] = [...ROUTES.keys()];

/**
 * Stands in for a body over the contract's limit that the server never reads: the pipeline
 * refuses a body by its size, after the key (401, 403) and the Idempotency-Key's shape (400), so
 * the caller gets the answer a deployed stage gives, and a caller without a valid key is refused
 * before sending megabytes.
 */
const OVERSIZED_BODY = Buffer.alloc(MAX_BODY_BYTES + 1);

/** Creates (but does not start) the local server. */
export function createLocalServer(): Server {
  // The document for this process's password policy: openapi.json byte for byte under the default
  // policy. Its server is relative (`.`), so "Try it out" stays on whatever address served the page.
  const pages = docsPages(() => serializeOpenApiDocument(buildOpenApiDocument(processStores().config.passwordPolicy)));
  // What is not an API request at all (malformed, no Host, CONNECT, an unsupported Expect) is answered there.
  const server = createProtocolServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const page = pages.get(path);
    if (page) return servePage(req, res, page);
    const operation = ROUTES.get(path);
    if (!operation) return send(res, json(404, MESSAGES.notFound));
    if (req.method !== 'POST') return send(res, json(405, MESSAGES.methodNotAllowed, { allow: 'POST' }));
    invoke(req, res, path, operation).then(
      (result) => send(res, result),
      () => (res.headersSent ? res.destroy() : send(res, json(500, CATALOGUE[operation].failureMessage))),
    );
  });
  return server;
}

async function invoke(req: IncomingMessage, res: ServerResponse, path: string, operation: OperationName): Promise<APIGatewayProxyResult> {
  let body = await readBody(req);
  if (body === undefined) {
    // The rest of the body is never read: the answer ends the connection.
    res.setHeader('connection', 'close');
    body = OVERSIZED_BODY;
  }
  const event = proxyEvent({
    path,
    // rawHeaders keeps the caller's spelling, as API Gateway does.
    headers: pairs(req.rawHeaders),
    body,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    protocol: `HTTP/${req.httpVersion}`,
  });
  // The operation's name: its deployed timeout sets the context's deadline.
  return (await handlerOf(operation))(event, lambdaContext(operation));
}

const pairs = (raw: string[]) => Array.from({ length: raw.length / 2 }, (_, i) => [raw[2 * i]!, raw[2 * i + 1]!] as const);

/**
 * The body's bytes, or undefined when it is over the contract's limit: declared so (Content-Length),
 * or grown so (chunked). Then nothing more is read, and the answer closes the connection. Plain
 * stream events rather than `for await`: the async iterator costs more CPU per request than the
 * rest of this file.
 */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const tooLarge = () => {
    req.pause();
    return undefined;
  };
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return Promise.resolve(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        resolve(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** The contract's `{"message": ...}` body, as the handlers answer it. */
const json = (statusCode: number, message: string, headers: Record<string, string> = {}) => jsonResponse(statusCode, { message }, headers);

function servePage(req: IncomingMessage, res: ServerResponse, page: Page): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, json(405, MESSAGES.methodNotAllowed, { allow: 'GET, HEAD' }));
    return;
  }
  const body = page.body();
  res.writeHead(200, {
    'content-type': page.contentType,
    'content-length': body.length,
    'content-security-policy': DOCS_CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
  });
  // Node leaves the body out of a HEAD response.
  res.end(body);
}

function send(res: ServerResponse, result: APIGatewayProxyResult): void {
  res.writeHead(result.statusCode, { ...result.headers, 'content-length': Buffer.byteLength(result.body) });
  res.end(result.body);
  // A request whose body was left unread (over the limit) ends its connection with the answer.
  if (res.getHeader('connection') === 'close') res.once('finish', () => res.req.socket.destroy());
}
