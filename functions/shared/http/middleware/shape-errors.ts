import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '#platform/logger';
import { isApiError } from '../errors';
import { jsonResponse } from '../responses';

/**
 * Turns any error into the contract's `{"message": ...}` body. An ApiError keeps
 * its status and message; anything else is logged by name only (storage errors
 * can carry items, hashes included) and answered with the operation's 500 message.
 */
export function shapeErrors(failureMessage: string): MiddlewareObj<unknown, APIGatewayProxyResult> {
  return {
    onError: (request) => {
      const { error } = request;
      if (isApiError(error)) {
        request.response = jsonResponse(error.statusCode, { message: error.message });
        return;
      }
      logger.error('Operation failed', { error_name: error?.name ?? typeof error, error_status: statusOf(error) });
      request.response = jsonResponse(500, { message: failureMessage });
    },
  };
}

const statusOf = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
