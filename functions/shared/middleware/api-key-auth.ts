import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { digestApiKey, isWellFormedApiKey } from '../api-keys';
import { ApiError } from '../errors';
import { MESSAGES } from '../messages';
import type { ApiKeyRecord, OwnerStore } from '../owners';
import { authenticate, keyPermits } from '../owners';
import type { OperationName } from '../schemas';
import type { Owner } from '../users';

export type AuthenticatedContext = Context & { owner: Owner };

const MAX_CACHED_KEYS = 1_000;

/**
 * Looks the X-API-Key header up before the body is read. A warm function trusts
 * a key it has resolved for `ttlMs`, so a revocation takes effect within that
 * time; refusals are never cached. The cache is keyed by digest, never by key.
 * The key's operations and expiry are checked on every request, cached or not.
 */
export function apiKeyAuth(options: {
  repository: OwnerStore;
  ttlMs: number;
  /** The operation this pipeline serves: a key limited to other operations is refused. */
  operation: OperationName;
  /** Called for each accepted request with its key and the time checked; must neither throw nor block. */
  onAccepted?: (key: ApiKeyRecord, now: number) => void;
}): MiddlewareObj<APIGatewayProxyEvent, unknown, Error, AuthenticatedContext> {
  const cache = new Map<string, CacheEntry>();
  // From the cached record, against the clock on every request: a key expires on time, whatever the cache holds.
  const accept = (context: AuthenticatedContext, entry: CacheEntry, now: number) => {
    if (!keyPermits(entry.key, options.operation, now)) throw new ApiError(401, MESSAGES.unauthorized);
    options.onAccepted?.(entry.key, now);
    context.owner = entry.owner;
  };
  return {
    before: async (request) => {
      // A proxy event's headers may be null (a request without any, a console test invoke).
      const apiKey = request.event.headers?.['x-api-key'];
      if (!apiKey || !isWellFormedApiKey(apiKey)) throw new ApiError(401, MESSAGES.unauthorized);
      const digest = digestApiKey(apiKey);
      const now = Date.now();
      const cached = cache.get(digest);
      if (cached && cached.expiresAt > now) return accept(request.context, cached, now);
      const result = await authenticate(options.repository, digest, options.operation, now);
      if ('refused' in result) {
        cache.delete(digest);
        throw result.refused === 'no_owner' ? new ApiError(403, MESSAGES.noOwner) : new ApiError(401, MESSAGES.unauthorized);
      }
      if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value!);
      const entry = { owner: result.owner, key: result.key, expiresAt: now + options.ttlMs };
      cache.set(digest, entry);
      accept(request.context, entry, now);
    },
  };
}

type CacheEntry = { owner: Owner; key: ApiKeyRecord; expiresAt: number };
