import { describe, expect, it } from '@jest/globals';
import { ApiError } from '#http/errors';
import { shapeErrors } from '#http/middleware/shape-errors';

function shape(error: unknown) {
  const request = { error, response: undefined as unknown };
  (shapeErrors('Failed to create user').onError as (r: unknown) => void)(request);
  return request.response as { statusCode: number; headers: Record<string, string>; body: string };
}

describe('shapeErrors', () => {
  it('keeps an ApiError status and message, as JSON', () => {
    const response = shape(new ApiError(409, 'User already exists.'));
    expect(response).toEqual({
      statusCode: 409,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"User already exists."}',
    });
  });

  it('turns anything else into the operation failure message, leaking nothing', () => {
    const storageError = Object.assign(new Error('ValidationException: secret detail $argon2id$v=19$...'), {
      name: 'ValidationException',
      Item: { password_hash: { S: '$argon2id$v=19$m=19456,t=2,p=1$abc$def' } },
      $metadata: { httpStatusCode: 400 },
    });
    for (const error of [storageError, new TypeError('x is undefined'), 'a string', null, undefined]) {
      const response = shape(error);
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('{"message":"Failed to create user"}');
    }
  });
});
