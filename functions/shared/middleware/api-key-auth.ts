import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { digestApiKey, isWellFormedApiKey } from '../api-keys';
import { ApiError } from '../errors';
import { MESSAGES } from '../messages';
import type { OwnerStore } from '../owners';
import { authenticate } from '../owners';
import type { Owner } from '../users';

export type AuthenticatedContext = Context & { owner: Owner };

const MAX_CACHED_KEYS = 1_000;

/**
 * Looks the X-API-Key header up before the body is read. A warm function trusts
 * a key it has resolved for `ttlMs`, so a revocation takes effect within that
 * time; refusals are never cached. The cache is keyed by digest, never by key.
 */
export function apiKeyAuth(options: {
  repository: OwnerStore;
  ttlMs: number;
}): MiddlewareObj<APIGatewayProxyEvent, unknown, Error, AuthenticatedContext> {
  const cache = new Map<string, { owner: Owner; expiresAt: number }>();
  return {
    before: async (request) => {
      // A proxy event's headers may be null (a request without any, a console test invoke).
      const apiKey = request.event.headers?.['x-api-key'];
      if (!apiKey || !isWellFormedApiKey(apiKey)) throw new ApiError(401, MESSAGES.unauthorized);
      const digest = digestApiKey(apiKey);
      const cached = cache.get(digest);
      if (cached && cached.expiresAt > Date.now()) {
        request.context.owner = cached.owner;
        return;
      }
      const result = await authenticate(options.repository, digest);
      if ('refused' in result) {
        cache.delete(digest);
        throw result.refused === 'no_owner' ? new ApiError(403, MESSAGES.noOwner) : new ApiError(401, MESSAGES.unauthorized);
      }
      if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value!);
      cache.set(digest, { owner: result.owner, expiresAt: Date.now() + options.ttlMs });
      request.context.owner = result.owner;
    },
  };
}
