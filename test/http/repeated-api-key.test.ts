/**
 * docs/api-contract.md "Edge limits": a request carrying X-API-Key more than once is refused with the 401,
 * whatever the values, their order or the spelling of the header's name, so the edge and the
 * function can never count different keys. fetch folds repeated headers into one, so these
 * requests go out through node:http with the raw header list.
 */

import { describe, expect, it } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
import { postWithRawHeaders } from '../support/http-client';
import { useTarget } from '../support/target';

const suite = useTarget();
const UNKNOWN_KEY = `wlk_${'A'.repeat(43)}`;

const postRaw = (path: string, headerLines: readonly [string, string][], body: unknown) =>
  postWithRawHeaders(suite.target.baseUrl, path, headerLines, body);

describe('more than one X-API-Key header', () => {
  const unauthorized = [401, { message: MESSAGES.unauthorized }];

  it('the raw client itself works: one header, one created user', async () => {
    const response = await postRaw('/v1/createUser', [['X-API-Key', suite.target.a.apiKey]], { user_email: suite.api.email('raw-single') });
    expect(response.status).toBe(200);
  });

  it('is refused with 401 whatever the values, order and spelling, and nothing is created', async () => {
    const { a, b } = suite.target;
    const cases: [string, [string, string][]][] = [
      [
        'the same key twice',
        [
          ['X-API-Key', a.apiKey],
          ['X-API-Key', a.apiKey],
        ],
      ],
      [
        'a valid key, then junk',
        [
          ['X-API-Key', a.apiKey],
          ['X-API-Key', UNKNOWN_KEY],
        ],
      ],
      [
        'junk, then a valid key',
        [
          ['X-API-Key', UNKNOWN_KEY],
          ['X-API-Key', a.apiKey],
        ],
      ],
      [
        'two spellings of the name',
        [
          ['X-API-Key', UNKNOWN_KEY],
          ['x-api-key', a.apiKey],
        ],
      ],
      [
        'an empty one beside a valid key',
        [
          ['x-api-key', ''],
          ['X-Api-Key', a.apiKey],
        ],
      ],
      [
        "two owners' keys",
        [
          ['X-API-Key', a.apiKey],
          ['X-API-KEY', b.apiKey],
        ],
      ],
      [
        'three times',
        [
          ['x-api-key', a.apiKey],
          ['x-api-key', a.apiKey],
          ['x-api-key', a.apiKey],
        ],
      ],
    ];
    const email = suite.api.email('repeated-key');
    for (const [name, headers] of cases) {
      const response = await postRaw('/v1/createUser', headers, { user_email: email });
      expect([name, response.status, response.body]).toEqual([name, ...unauthorized]);
    }
    // Neither owner got the user: each can still create it.
    for (const key of [a.apiKey, b.apiKey]) {
      expect((await postRaw('/v1/createUser', [['X-API-Key', key]], { user_email: email })).status).toBe(200);
    }
  });

  it.each(['/v1/resetUserPassword', '/v1/deleteUser'])('%s: refused with 401 before the body is looked at', async (path) => {
    const response = await postRaw(
      path,
      [
        ['X-API-Key', UNKNOWN_KEY],
        ['X-API-Key', suite.target.a.apiKey],
      ],
      { unexpected: true },
    );
    expect([response.status, response.body]).toEqual(unauthorized);
  });
});

describe('more than one Idempotency-Key header', () => {
  it('is refused with 400 even when the two spell the name differently (normalisation would keep only one), and nothing is created', async () => {
    const email = suite.api.email('repeated-idempotency-key');
    const response = await postRaw(
      '/v1/createUser',
      [
        ['X-API-Key', suite.target.a.apiKey],
        ['Idempotency-Key', '11111111-1111-4111-8111-111111111111'],
        ['idempotency-key', '22222222-2222-4222-8222-222222222222'],
      ],
      { user_email: email },
    );
    expect([response.status, response.body]).toEqual([400, { message: MESSAGES.idempotencyKeyInvalid }]);
    const created = await suite.api.asA('/v1/createUser', { user_email: email });
    expect(created.status).toBe(200);
  });
});
