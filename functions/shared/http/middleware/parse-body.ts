import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { MESSAGES } from '#contract/messages';
import { ApiError } from '../errors';

/** Bodies above this are refused before parsing. */
export const MAX_BODY_BYTES = 16 * 1024;

const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset=[^;]*)?$/i;

/**
 * Size, content type and JSON parsing, in the contract's order. Hand-written
 * because the contract lets Content-Type be absent and treats `__proto__` as an
 * ordinary (unknown) parameter, where middy's JSON parser refuses both.
 */
export function parseBody(): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: ({ event }) => {
      const raw = typeof event.body === 'string' ? event.body : '';
      const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
      if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) throw new ApiError(413, MESSAGES.bodyTooLarge);
      const contentType = event.headers['content-type'];
      if (contentType !== undefined && !JSON_CONTENT_TYPE.test(contentType.trim())) {
        throw new ApiError(415, MESSAGES.unsupportedMediaType);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ApiError(400, MESSAGES.notAnObject);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ApiError(400, MESSAGES.notAnObject);
      // From here on the body is the parsed object; validation checks its shape.
      (event as { body: unknown }).body = parsed;
    },
  };
}
