import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '#platform/logger';
import type { AuthenticatedContext } from './api-key-auth';

/** One line per request: operation, owner and key id (never the key), outcome, status and duration. */
export function accessLog(operation: string): MiddlewareObj<unknown, APIGatewayProxyResult, Error, AuthenticatedContext> {
  const started = new WeakMap<object, number>();
  const log = (request: { context: AuthenticatedContext; response: APIGatewayProxyResult | undefined | null }) => {
    const status = request.response?.statusCode ?? 500;
    logger.info('Request completed', {
      operation,
      owner_id: request.context.owner?.ownerId,
      key_id: request.context.owner?.keyId,
      outcome: status < 400 ? 'success' : status < 500 ? 'refused' : 'failed',
      status,
      duration_ms: Math.round((performance.now() - (started.get(request.context) ?? performance.now())) * 100) / 100,
    });
  };
  return {
    before: (request) => {
      started.set(request.context, performance.now());
    },
    after: log,
    onError: log,
  };
}
