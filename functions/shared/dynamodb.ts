import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, DynamoDBDocumentClientCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Where a client finds DynamoDB Local: any credentials work there, and fixed
 * ones keep every local process (server, admin CLI, tests) on the same data.
 */
export const localConnection = (endpoint: string) => ({
  endpoint,
  region: process.env.AWS_REGION ?? 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

/**
 * One document client per process. Retries are explicit: the SDK's standard mode
 * (exponential backoff with full jitter) for throttling, 5xx and timeouts, three
 * attempts in all, each bounded so a request fails well inside API Gateway's 29 s
 * (the SDK only warns about an exceeded requestTimeout unless told to throw).
 */
export function createDocumentClient(options: { endpoint?: string | undefined; maxAttempts?: number } = {}) {
  const client = new DynamoDBClient({
    maxAttempts: options.maxAttempts ?? 3,
    retryMode: 'standard',
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
    ...(options.endpoint !== undefined && localConnection(options.endpoint)),
  });
  trimPerRequestWork(client);
  const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  resolveOncePerCommand(documentClient);
  return documentClient;
}

/**
 * The middleware chain built once per command type instead of on every call (measured: `npm run
 * bench`, bench/instructions.ts). The SDK does this for its own clients with `cacheMiddleware`,
 * which the document client refuses: its commands hand the chain their own first instance. So the
 * chain is built here as the document command builds it (marshalling around the client command's
 * chain) and called with each call's client command, as `cacheMiddleware` calls it. Any change to
 * the client's middleware stack (the user-agent swap below, a test's injected fault) drops the
 * chains; a call with options (an abort signal) takes the SDK's own path.
 */
function resolveOncePerCommand(documentClient: DynamoDBDocumentClient): void {
  const stack = documentClient.middlewareStack;
  const chains = new Map<unknown, Chain>();
  for (const method of ['add', 'addRelativeTo', 'remove', 'removeByTag', 'use'] as const) {
    const original = stack[method] as (...args: unknown[]) => unknown;
    (stack as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      chains.clear();
      return original.apply(stack, args);
    };
  }
  const send = documentClient.send.bind(documentClient) as (...args: unknown[]) => Promise<unknown>;
  documentClient.send = ((command: unknown, ...rest: unknown[]) => {
    if (rest.length > 0 || !(command instanceof DynamoDBDocumentClientCommand)) return send(command, ...rest);
    const internals = command as unknown as DocumentCommandInternals;
    let chain = chains.get(command.constructor);
    if (!chain) {
      internals.addMarshallingMiddleware(documentClient.config);
      chain = internals.clientCommand.resolveMiddleware(stack.concat(internals.middlewareStack), documentClient.config, undefined);
      chains.set(command.constructor, chain);
    }
    return chain(internals.clientCommand).then((result) => result.output);
  }) as typeof documentClient.send;
}

/** A resolved middleware chain: called with a client command, it answers the parsed response. */
type Chain = (command: unknown) => Promise<{ output: unknown }>;

/** What a document command keeps protected and the chain above needs. */
interface DocumentCommandInternals {
  addMarshallingMiddleware(config: unknown): void;
  readonly clientCommand: { resolveMiddleware(stack: unknown, config: unknown, options: undefined): Chain };
  readonly middlewareStack: Parameters<DynamoDBDocumentClient['middlewareStack']['concat']>[0];
}

/**
 * Work the SDK repeats on every call that this service does not need (measured: `npm run bench`).
 * - The logger middleware copies each input and output through the sensitive-data filter for a
 *   logger that is never configured (the SDK's default discards it): about an eighth of a call's CPU.
 * - The user-agent middleware escapes and joins the same dozen strings on every call: the first
 *   call's headers are kept and set as they are on every later one.
 * Nothing else changes: retries, timeouts, signing and the HTTP handler are the SDK's own.
 */
function trimPerRequestWork(client: DynamoDBClient): void {
  const stack = client.middlewareStack;
  stack.remove('loggerMiddleware');
  let userAgent: Record<string, string> | undefined;
  const headersOf = (args: { request: unknown }) => (args.request as { headers?: Record<string, string> }).headers;
  const reuse: Middleware = (next) => async (args) => {
    Object.assign(headersOf(args) ?? {}, userAgent);
    return next(args);
  };
  const keepFirst: Middleware = (next) => async (args) => {
    const headers = headersOf(args);
    if (headers && !userAgent) {
      userAgent = Object.fromEntries(USER_AGENT_HEADERS.flatMap((name) => (headers[name] ? [[name, headers[name]]] : [])));
      // Later calls resolve the stack afresh: from now on without the SDK's middleware and this one.
      stack.remove('getUserAgentMiddleware');
      stack.remove('keepFirstUserAgent');
      stack.add(reuse as never, { name: 'reuseUserAgent', step: 'build', priority: 'low' });
    }
    return next(args);
  };
  stack.addRelativeTo(keepFirst as never, { name: 'keepFirstUserAgent', relation: 'after', toMiddleware: 'getUserAgentMiddleware' });
}

const USER_AGENT_HEADERS = ['user-agent', 'x-amz-user-agent'];

/** A build-step middleware, as much of its type as these two need. */
type Middleware = (next: (args: { request: unknown }) => Promise<unknown>) => (args: { request: unknown }) => Promise<unknown>;

export type DocumentClient = ReturnType<typeof createDocumentClient>;
