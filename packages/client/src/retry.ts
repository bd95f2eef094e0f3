/** The client's retry policy and its arithmetic: backoff, Retry-After, the brief retry of an address where nothing listens. */

export interface RetryPolicy {
  /** Total time for a call, every attempt and wait included (ms). Default 60 s. */
  readonly deadlineMs: number;
  /** Longest wait for one attempt's answer (ms); never beyond the deadline. Default 30 s, above API Gateway's 29 s limit. */
  readonly attemptTimeoutMs: number;
  /** Backoff: attempt n waits a random time in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))) (ms). Default 500. */
  readonly baseDelayMs: number;
  /** Default 8 s. */
  readonly maxDelayMs: number;
  /** At most this many requests per call. Default unlimited: the deadline decides. */
  readonly maxAttempts: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  deadlineMs: 60_000,
  attemptTimeoutMs: 30_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxAttempts: Number.POSITIVE_INFINITY,
};

/** Why an attempt is tried again, as told to `onRetry`. */
export type RetryReason = 'network' | 'timeout' | 'throttled' | 'server' | 'in-progress';

/** `Retry-After` as milliseconds from `now`: delay-seconds or an HTTP-date (RFC 9110, 10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  // Every HTTP-date form starts with the day's name ("Wed, 25 Nov 2026 18:00:30 GMT").
  const date = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): random in [0, min(cap, base * 2^(attempt-1))). */
export function backoffDelay(attempt: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random = Math.random): number {
  return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)));
}

/**
 * Socket errors that mean nothing listens at the address (a stopped service, a wrong port or host),
 * with what to check. Sending again rarely helps: these are retried briefly ({@link UNREACHABLE_RETRY}).
 */
export const UNREACHABLE_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'is the service running, and is baseUrl right?',
  ENOTFOUND: 'no such host: is baseUrl right?',
  EHOSTUNREACH: 'the host cannot be reached: is baseUrl right?',
  ENETUNREACH: 'the network cannot be reached: is baseUrl right?',
};

/**
 * How long an unreachable address is tried: at most `maxAttempts` attempts in a row, waiting
 * `delaysMs` between them, never waiting past `windowMs` after the first (the call's own
 * `maxAttempts` and deadline still apply). Any other outcome in between starts the count again.
 */
export const UNREACHABLE_RETRY = { maxAttempts: 3, delaysMs: [250, 500], windowMs: 2_000 } as const;

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
export const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
