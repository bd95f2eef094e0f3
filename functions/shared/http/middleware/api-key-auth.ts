import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { MESSAGES } from '#contract/messages';
import type { OperationName } from '#contract/operations';
import { digestApiKey, isWellFormedApiKey } from '#domain/api-keys';
import { authenticate, keyPermits } from '#domain/key-check';
import type { ApiKeyRecord, OwnerStore } from '#domain/owners';
import type { Owner } from '#domain/users';
import { ExpiringLruCache } from '#platform/lru-cache';
import { ApiError } from '../errors';
import { headerCount } from '../headers';

export type AuthenticatedContext = Context & { owner: Owner };

const MAX_CACHED_KEYS = 1_000;
const MAX_REFUSED_KEYS = 10_000;

const API_KEY_HEADER = 'x-api-key';

/**
 * A request carrying X-API-Key more than once is refused (401) before anything else looks at the
 * key: with two keys the edge and the function could count different ones. It runs before header
 * normalisation, which folds the spellings of a name into one and keeps only the last value.
 */
export function refuseRepeatedApiKey(): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: ({ event }) => {
      if (headerCount(event, API_KEY_HEADER) > 1) throw new ApiError(401, MESSAGES.unauthorized);
    },
  };
}

/**
 * Looks the X-API-Key header up before the body is read, by digest (never by key). A warm function
 * trusts a key it has resolved for `ttlMs`, so a revocation takes effect within that time; the key's
 * operations and expiry are checked on every request, cached or not.
 *
 * It also remembers, for the same time, the digests it refused as unknown, revoked, outside this
 * operation or expired (least recently used out first beyond `maxRefusedKeys`), so a junk key
 * repeated costs one read, not one per request. That memory cannot wrongly refuse a key: keys are
 * only ever created fresh from 256 random bits (and stored only if their digest is new), so a
 * remembered unknown digest matches a new key only by a SHA-256 collision; a revocation is never
 * undone, a key's operations never change, and an expiry only comes closer. The lookup reads
 * consistently, so a key issued a moment ago is never remembered as unknown. Each operation has its
 * own memory (as each deployed function does), so a key refused here for its operations is not
 * refused for another operation.
 */
export function apiKeyAuth(options: {
  owners: OwnerStore;
  ttlMs: number;
  /** The operation this pipeline serves: a key limited to other operations is refused. */
  operation: OperationName;
  /** Called for each accepted request with its key and the time checked; must neither throw nor block. */
  onAccepted?: (key: ApiKeyRecord, now: number) => void;
  /** @default 10,000 */
  maxRefusedKeys?: number;
}): MiddlewareObj<APIGatewayProxyEvent, unknown, Error, AuthenticatedContext> {
  const resolved = new ExpiringLruCache<CacheEntry>(MAX_CACHED_KEYS, options.ttlMs);
  const refused = new ExpiringLruCache<true>(options.maxRefusedKeys ?? MAX_REFUSED_KEYS, options.ttlMs);
  // From the cached record, against the clock on every request: a key expires on time, whatever the cache holds.
  const accept = (context: AuthenticatedContext, entry: CacheEntry, now: number) => {
    if (!keyPermits(entry.key, options.operation, now)) throw new ApiError(401, MESSAGES.unauthorized);
    options.onAccepted?.(entry.key, now);
    context.owner = entry.owner;
  };
  return {
    before: async (request) => {
      // A proxy event's headers may be null (a request without any, a console test invoke).
      const apiKey = request.event.headers?.[API_KEY_HEADER];
      if (!apiKey || !isWellFormedApiKey(apiKey)) throw new ApiError(401, MESSAGES.unauthorized);
      const digest = digestApiKey(apiKey);
      const now = Date.now();
      const cached = resolved.get(digest, now);
      if (cached) return accept(request.context, cached, now);
      if (refused.get(digest, now)) throw new ApiError(401, MESSAGES.unauthorized);
      const result = await authenticate(options.owners, digest, options.operation, now);
      if ('refused' in result) {
        if (result.refused === 'no_owner') throw new ApiError(403, MESSAGES.noOwner);
        refused.set(digest, true, now);
        throw new ApiError(401, MESSAGES.unauthorized);
      }
      const entry = { owner: result.owner, key: result.key };
      resolved.set(digest, entry, now);
      accept(request.context, entry, now);
    },
  };
}

type CacheEntry = { owner: Owner; key: ApiKeyRecord };
