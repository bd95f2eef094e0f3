/**
 * The API-key middleware run alone, without HTTP: how the hardening tests reach what the local
 * server cannot carry (a header value with outer whitespace, which HTTP strips) and count a
 * cache's lookups without the rest of the pipeline's calls.
 */

import { ApiError } from '#http/errors';
import type { apiKeyAuth } from '#http/middleware/api-key-auth';

/** Runs `auth` on a request with this key: `accepted as <ownerId>`, `<status> <message>` for a refusal, or `crashed: ...`. */
export async function authenticateWith(auth: ReturnType<typeof apiKeyAuth>, key: string): Promise<string> {
  const request = { event: { headers: { 'x-api-key': key } }, context: {} as { owner?: { ownerId: string } } };
  try {
    await auth.before!(request as never);
    return `accepted as ${request.context.owner?.ownerId}`;
  } catch (error) {
    return error instanceof ApiError ? `${error.statusCode} ${error.message}` : `crashed: ${String(error)}`;
  }
}
