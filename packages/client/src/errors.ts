/** What a call throws when its retries ran out or the answer is not the contract's: the error classes and their wording. */

import type { operations } from './generated/openapi.js';
import { UNREACHABLE_CODES } from './retry.js';

type OperationName = keyof operations;

/** The message of the 409 that means "the first request with this key is still running: ask again". */
export const IN_PROGRESS_MESSAGE = 'A request with this Idempotency-Key is still being processed.';

/** Who failed: the operation, the key its attempts carried, how many there were. */
export interface FailedCall {
  readonly operation: OperationName;
  /** Send the same request with this key (within 24 hours) to learn what happened. */
  readonly idempotencyKey: string;
  readonly attempts: number;
}

/** A call that got no outcome: its retries ran out (deadline or maxAttempts). The operation may or may not have run. */
export class RequestFailedError extends Error implements FailedCall {
  readonly operation: OperationName;
  readonly idempotencyKey: string;
  readonly attempts: number;
  constructor(message: string, call: FailedCall, cause?: unknown) {
    super(`${call.operation}: ${message}, after ${call.attempts} attempt(s)`, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.operation = call.operation;
    this.idempotencyKey = call.idempotencyKey;
    this.attempts = call.attempts;
  }
}
/** The last attempt got a 5xx. */
export class ServerError extends RequestFailedError {
  constructor(
    call: FailedCall,
    readonly status: number,
    readonly serverMessage: string,
  ) {
    super(`${status} ${quote(serverMessage)}`, call);
  }
}
/** The last attempt got a 429; `retryAfterMs` is the wait the server asked for, when it said. */
export class ThrottledError extends RequestFailedError {
  constructor(
    call: FailedCall,
    readonly retryAfterMs: number | undefined,
  ) {
    super(`429 Too Many Requests${retryAfterMs === undefined ? '' : ` (retry after ${retryAfterMs} ms)`}`, call);
  }
}
/** The last attempt got 409 "still being processed": the first request with the key had not finished. */
export class StillProcessingError extends RequestFailedError {
  constructor(call: FailedCall) {
    super(`409 ${JSON.stringify(IN_PROGRESS_MESSAGE)}`, call);
  }
}
/**
 * The last attempt got no answer: a connection failure or an unreadable response, or none within
 * the attempt's time (`timedOut`). `code` is the socket's error code when there was one
 * (`ECONNREFUSED`); for one of {@link UNREACHABLE_CODES} the message names the URL nothing answered at.
 */
export class NetworkError extends RequestFailedError {
  readonly code: string | undefined;
  constructor(
    call: FailedCall,
    readonly timedOut: boolean,
    cause: unknown,
    timeoutMs: number,
    baseUrl?: string,
  ) {
    const code = timedOut ? undefined : errorCode(cause);
    const hint = code !== undefined && Object.hasOwn(UNREACHABLE_CODES, code) ? UNREACHABLE_CODES[code] : undefined;
    super(
      timedOut
        ? `no answer within ${timeoutMs} ms`
        : hint !== undefined && baseUrl !== undefined
          ? `nothing answers at ${baseUrl} (${code}: ${hint})`
          : `no answer (${describe(cause)})`,
      call,
      cause,
    );
    this.code = code;
  }
}
/** An answer the contract does not list for the operation (a wrong base URL's 404 on createUser, a 405, a 3xx): not retried. */
export class UnexpectedResponseError extends RequestFailedError {
  constructor(
    call: FailedCall,
    readonly status: number,
    readonly serverMessage: string,
  ) {
    super(`unexpected ${status} ${quote(serverMessage)}`, call);
  }
}

/** A message for an error's text: quoted, and cut short when something in between answered with a page. */
const quote = (message: string) => JSON.stringify(message.length > 200 ? `${message.slice(0, 200)}...` : message);

/** The socket's error code of a failed fetch (undici puts the socket's error in `cause`), when it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A failed fetch's reason in a few words; never a body or a header. */
function describe(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}
