/**
 * A client for tool owners: the three operations, typed from `openapi.json` (generated/, by
 * openapi-typescript), sent with openapi-fetch, retry-safe by default. It imports nothing of the
 * service: it is built from the published contract alone and needs Node.js 20+ (global fetch).
 *
 * - Each call returns its success body or the contract's refusal as a value: `{ ok: true, data }` or
 *   `{ ok: false, status, message }`. A 4xx is never thrown.
 * - Each logical call sends one Idempotency-Key (the caller's, or a random UUID) on every attempt,
 *   so a create whose answer was lost is answered again with the first run's result, generated
 *   password included (docs/idempotency.md: "Retry recipe").
 * - Connection failures, attempt timeouts, 429, 5xx and 409 "still being processed" are tried again
 *   with exponential backoff and full jitter (429 waits its Retry-After) until the caller's deadline;
 *   what still fails then is thrown as one of the error classes (errors.ts). An address where nothing
 *   listens (ECONNREFUSED, ENOTFOUND, ...) is a wrong URL or a stopped service far more often than a
 *   blip: it is tried {@link UNREACHABLE_RETRY}'s few times within two seconds, then thrown.
 * - A missing or malformed `baseUrl` or `apiKey` throws a TypeError at `createClient`, naming it.
 */

import createFetchClient from 'openapi-fetch';
import {
  errorCode,
  type FailedCall,
  IN_PROGRESS_MESSAGE,
  NetworkError,
  type RequestFailedError,
  ServerError,
  StillProcessingError,
  ThrottledError,
  UnexpectedResponseError,
} from './errors.js';
import type { operations, paths } from './generated/openapi.js';
import { OPERATION_NAMES, REFUSALS } from './generated/operations.js';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  type RetryPolicy,
  type RetryReason,
  sleep,
  UNREACHABLE_CODES,
  UNREACHABLE_RETRY,
} from './retry.js';

export {
  type FailedCall,
  IN_PROGRESS_MESSAGE,
  NetworkError,
  RequestFailedError,
  ServerError,
  StillProcessingError,
  ThrottledError,
  UnexpectedResponseError,
} from './errors.js';
export {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  type RetryPolicy,
  type RetryReason,
  UNREACHABLE_CODES,
  UNREACHABLE_RETRY,
} from './retry.js';

export type OperationName = keyof operations;
type Responses<Op extends OperationName> = operations[Op]['responses'];
/** The JSON body an operation takes. */
export type RequestBody<Op extends OperationName> = operations[Op]['requestBody']['content']['application/json'];
/** The JSON body of an operation's success (200). */
export type SuccessBody<Op extends OperationName> = Responses<Op>[200]['content']['application/json'];
/** The refusals the contract lists for an operation; 429 and 5xx are retried, never returned. */
export type ErrorStatus<Op extends OperationName> = Exclude<Extract<keyof Responses<Op>, number>, 200 | 429 | 500>;

interface Outcome {
  /** The Idempotency-Key every attempt of this call carried: send it again later to learn the outcome of a call that threw. */
  readonly idempotencyKey: string;
  /** Requests sent for this call, the first included. */
  readonly attempts: number;
  /** True when the answer is the one recorded for an earlier request with the same key (`Idempotent-Replayed: true`). */
  readonly replayed: boolean;
}
export interface Success<Op extends OperationName> extends Outcome {
  readonly ok: true;
  readonly status: 200;
  readonly data: SuccessBody<Op>;
}
export interface Refusal<Op extends OperationName> extends Outcome {
  readonly ok: false;
  readonly status: ErrorStatus<Op>;
  /** The contract's message, byte for byte. */
  readonly message: string;
}
export type Result<Op extends OperationName> = Success<Op> | Refusal<Op>;

export interface ClientOptions {
  /** The API's base address, e.g. `http://127.0.0.1:3000` or the stack output `ApiUrl` (a trailing `/v1` is accepted). */
  readonly baseUrl: string;
  /** The owner's API key (`wlk_...`), sent as `X-API-Key`. */
  readonly apiKey: string;
  readonly retry?: Partial<RetryPolicy>;
  /** Called before each wait, for logs and metrics; it never sees a body, a password or a key. */
  readonly onRetry?: (event: { operation: OperationName; attempt: number; reason: RetryReason; status?: number; delayMs: number }) => void;
  /** Replaces the global fetch (a proxy agent, a test double). */
  readonly fetch?: (request: Request) => Promise<Response>;
}

export interface CallOptions {
  /** 16 to 255 printable ASCII characters; default a random UUID. One key per intended operation, never reused for another. */
  readonly idempotencyKey?: string;
  /** Aborts the call (no retry follows); the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  readonly retry?: Partial<RetryPolicy>;
}

/** The refusals each operation can answer, at run time (generated/operations.ts); the type below fails to compile when openapi.json lists another. */
REFUSALS satisfies { [Op in OperationName]: readonly ErrorStatus<Op>[] };
type Unlisted<Op extends OperationName> = Op extends OperationName ? Exclude<ErrorStatus<Op>, (typeof REFUSALS)[Op][number]> : never;
const everyRefusalListed: [Unlisted<OperationName>] extends [never] ? true : false = true;
void everyRefusalListed;

type AttemptResult =
  | { kind: 'answer'; status: number; body: unknown; replayed: boolean; retryAfterMs: number | undefined }
  | { kind: 'no-answer'; timedOut: boolean; cause: unknown };

const messageOf = (body: unknown): string =>
  typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
    ? (body as { message: string }).message
    : typeof body === 'string'
      ? body
      : '';

/** `value` in an error message: its type, or the string itself (quoted, cut short) when `show` allows. */
function shown(value: unknown, show: boolean): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value !== 'string') return `a ${typeof value}`;
  if (value === '') return 'an empty string';
  return show ? JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}...` : value) : 'a string that is not';
}

/** The base URL without trailing slashes and `/v1`; a TypeError naming the option when it is not one. */
function checkBaseUrl(value: unknown): string {
  const wanted = 'createClient: baseUrl must be an absolute http(s) URL';
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    // Not a URL: said below.
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new TypeError(`${wanted}, got ${shown(value, true)}`);
  // fetch refuses a URL with credentials; the API key is the only credential (and is never shown).
  if (url.username !== '' || url.password !== '') throw new TypeError(`${wanted} without a user name or password`);
  if (url.search !== '' || url.hash !== '') throw new TypeError(`${wanted} without a query or fragment, got ${shown(value, true)}`);
  return (value as string).replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** The API key, when it can be one (sent as a header: visible ASCII, no spaces); a TypeError naming the option, never showing it, when not. */
function checkApiKey(value: unknown): string {
  if (typeof value === 'string' && /^[\x21-\x7e]+$/.test(value)) return value;
  const what = typeof value === 'string' && value !== '' ? 'a string with spaces, control or non-ASCII characters' : shown(value, false);
  throw new TypeError(`createClient: apiKey must be the owner's API key (wlk_...), got ${what}`);
}

/** A client for one API key. Throws a TypeError at once when `baseUrl` or `apiKey` is missing or malformed. */
export function createClient(options: ClientOptions) {
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`createClient: options must be an object, got ${shown(options, false)}`);
  const baseUrl = checkBaseUrl(options.baseUrl);
  checkApiKey(options.apiKey);
  const api = createFetchClient<paths>({ baseUrl, headers: { 'X-API-Key': options.apiKey }, fetch: options.fetch });

  /** One request, bounded by `timeoutMs` and the caller's signal; never throws but for the caller's abort. */
  async function attempt(
    operation: OperationName,
    body: unknown,
    key: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<AttemptResult> {
    if (signal?.aborted) throw signal.reason;
    // One controller for both ends of an attempt: its own time running out, and the caller's signal.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const { data, error, response } = await api.POST(`/v1/${operation}` as '/v1/createUser', {
        body: body as RequestBody<'createUser'>,
        headers: { 'Idempotency-Key': key },
        signal: controller.signal,
      });
      return {
        kind: 'answer',
        status: response.status,
        body: response.ok ? data : error,
        replayed: response.headers.get('Idempotent-Replayed') === 'true',
        retryAfterMs: parseRetryAfter(response.headers.get('Retry-After')),
      };
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      return { kind: 'no-answer', timedOut, cause };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async function call<Op extends OperationName>(operation: Op, body: RequestBody<Op>, callOptions: CallOptions = {}): Promise<Result<Op>> {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry, ...callOptions.retry };
    const key = callOptions.idempotencyKey ?? crypto.randomUUID();
    const deadline = Date.now() + policy.deadlineMs;
    // The attempts in a row that found nothing listening, and when the first of them started.
    let unreachable = 0;
    let unreachableSince = 0;
    for (let attempts = 1; ; attempts++) {
      const timeoutMs = Math.max(1, Math.min(policy.attemptTimeoutMs, deadline - Date.now()));
      const startedAt = Date.now();
      const result = await attempt(operation, body, key, timeoutMs, callOptions.signal);
      const failed: FailedCall = { operation, idempotencyKey: key, attempts };
      let reason: RetryReason;
      let delayMs = backoffDelay(attempts, policy);
      let failure: RequestFailedError;
      const code = result.kind === 'no-answer' && !result.timedOut ? errorCode(result.cause) : undefined;
      if (code !== undefined && Object.hasOwn(UNREACHABLE_CODES, code)) {
        if (unreachable++ === 0) unreachableSince = startedAt;
      } else unreachable = 0;
      if (result.kind === 'no-answer') {
        reason = result.timedOut ? 'timeout' : 'network';
        failure = new NetworkError(failed, result.timedOut, result.cause, timeoutMs, baseUrl);
        if (unreachable > 0) {
          delayMs = UNREACHABLE_RETRY.delaysMs[unreachable - 1] ?? Number.POSITIVE_INFINITY;
          if (unreachable >= UNREACHABLE_RETRY.maxAttempts || Date.now() + delayMs > unreachableSince + UNREACHABLE_RETRY.windowMs)
            throw failure;
        }
      } else {
        const { status, replayed } = result;
        const message = messageOf(result.body);
        if (status === 200) return { ok: true, status, data: result.body as SuccessBody<Op>, replayed, idempotencyKey: key, attempts };
        const isRefusal = (REFUSALS[operation] as readonly number[]).includes(status);
        if (isRefusal && !(status === 409 && message === IN_PROGRESS_MESSAGE)) {
          return { ok: false, status: status as ErrorStatus<Op>, message, replayed, idempotencyKey: key, attempts };
        }
        if (status === 429) {
          reason = 'throttled';
          if (result.retryAfterMs !== undefined) delayMs = result.retryAfterMs;
          failure = new ThrottledError(failed, result.retryAfterMs);
        } else if (status >= 500) {
          reason = 'server';
          failure = new ServerError(failed, status, message);
        } else if (status === 409) {
          reason = 'in-progress';
          failure = new StillProcessingError(failed);
        } else {
          throw new UnexpectedResponseError(failed, status, message);
        }
      }
      // Give up now rather than wait for a retry that could not start before the deadline.
      if (attempts >= policy.maxAttempts || Date.now() + delayMs >= deadline) throw failure;
      options.onRetry?.({ operation, attempt: attempts, reason, status: result.kind === 'answer' ? result.status : undefined, delayMs });
      await sleep(delayMs, callOptions.signal);
    }
  }

  // One method per operation of openapi.json, named by its operationId (see the package's README for each).
  return Object.fromEntries(
    OPERATION_NAMES.map((operation) => [
      operation,
      (body: RequestBody<typeof operation>, callOptions?: CallOptions) => call(operation, body, callOptions),
    ]),
  ) as { [Op in OperationName]: (body: RequestBody<Op>, callOptions?: CallOptions) => Promise<Result<Op>> };
}

export type Client = ReturnType<typeof createClient>;
