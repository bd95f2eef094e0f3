import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { duplicateParameter, MESSAGES } from '#contract/messages';
import { duplicateName } from '#platform/json-names';
import { ApiError } from '../errors';

/** Bodies above this are refused before parsing. */
export const MAX_BODY_BYTES = 16 * 1024;

const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset=[^;]*)?$/i;

/**
 * A `\u` escape of a surrogate (D800-DFFF): the only way a well-formed JSON text can put an
 * unpaired surrogate in a string. Without one, no string needs checking after the parse.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Refuses bytes that are not UTF-8 instead of replacing them with U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Size, content type, UTF-8, JSON parsing and unique member names, in the contract's order.
 * Hand-written because the contract lets Content-Type be absent and treats `__proto__` as an
 * ordinary (unknown) parameter, where middy's JSON parser refuses both. The body arrives as API Gateway hands it over: its raw
 * bytes base64-encoded (the stage's binary media types, and the local server, do so for every
 * request), or as text (a hand-made event). Text is Unicode: bytes that are not UTF-8, or a string
 * holding an unpaired surrogate (`"\ud800"`), are refused, never altered on the way to the hash.
 */
export function parseBody(): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: ({ event }) => {
      const raw = typeof event.body === 'string' ? event.body : '';
      const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : undefined;
      if ((bytes ? bytes.length : Buffer.byteLength(raw, 'utf8')) > MAX_BODY_BYTES) throw new ApiError(413, MESSAGES.bodyTooLarge);
      const contentType = event.headers['content-type'];
      if (contentType !== undefined && !JSON_CONTENT_TYPE.test(contentType.trim())) {
        throw new ApiError(415, MESSAGES.unsupportedMediaType);
      }
      // The fatal decoder refuses what is not UTF-8, so its text is well-formed; a text body is checked.
      const text = bytes ? decodeUtf8(bytes) : raw;
      if (!bytes && !text.isWellFormed()) throw new ApiError(400, MESSAGES.invalidUtf8);
      let parsed: unknown;
      let wellFormed = true;
      try {
        // Every key and string value, escapes decoded: `"\ud800"` is well-formed JSON text but no
        // Unicode string. Checked only when the text escapes a surrogate (a reviver slows every parse).
        parsed = SURROGATE_ESCAPE.test(text)
          ? JSON.parse(text, (key, value) => {
              if (!key.isWellFormed() || (typeof value === 'string' && !value.isWellFormed())) wellFormed = false;
              return value;
            })
          : JSON.parse(text);
      } catch {
        throw new ApiError(400, MESSAGES.notAnObject);
      }
      if (!wellFormed) throw new ApiError(400, MESSAGES.invalidUtf8);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ApiError(400, MESSAGES.notAnObject);
      // One reading of the body: a name given twice would leave JSON.parse's last value to win, unseen.
      const duplicate = duplicateName(text);
      if (duplicate !== undefined) throw new ApiError(400, duplicateParameter(duplicate));
      // From here on the body is the parsed object; validation checks its shape.
      (event as { body: unknown }).body = parsed;
    },
  };
}

function decodeUtf8(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ApiError(400, MESSAGES.invalidUtf8);
  }
}
