/** The client's generated types are openapi.json's as it is now; its retry arithmetic; its copy of the in-progress message. */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
import { backoffDelay, DEFAULT_RETRY_POLICY, IN_PROGRESS_MESSAGE, parseRetryAfter } from '../../packages/client/src/index';
import { CLIENT_OPERATIONS_PATH, CLIENT_TYPES_PATH, generateClientOperations, generateClientTypes } from '../../scripts/client-types';

describe('packages/client/src/generated/openapi.ts', () => {
  it('is what `npm run client:types` generates from openapi.json now (run it when this fails)', async () => {
    expect(readFileSync(CLIENT_TYPES_PATH, 'utf8')).toBe(await generateClientTypes());
    expect(readFileSync(CLIENT_OPERATIONS_PATH, 'utf8')).toBe(generateClientOperations());
  }, 30_000);

  it('marks a response header optional unless the document says every such response sends it (Idempotent-Replayed: only on a replay)', async () => {
    const document = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, { required?: boolean }> }> }>>;
    };
    const headers = Object.values(document.paths)
      .flatMap((methods) => Object.values(methods))
      .flatMap((operation) => Object.values(operation.responses))
      .flatMap((response) => Object.entries(response.headers ?? {}));
    expect(headers.map(([name]) => name)).toContain('Idempotent-Replayed');
    const types = await generateClientTypes();
    for (const [name, header] of headers) {
      const declared = [...types.matchAll(new RegExp(`"${name}"(\\??):`, 'g'))].map((match) => (match[1] ? 'optional' : 'required'));
      expect([name, [...new Set(declared)]]).toEqual([name, [header.required === true ? 'required' : 'optional']]);
    }
  }, 30_000);
});

describe('the client', () => {
  it("recognises the service's in-progress 409 by its exact message", () => {
    expect(IN_PROGRESS_MESSAGE).toBe(MESSAGES.idempotencyInProgress);
  });

  it('reads Retry-After as delay-seconds or an HTTP-date (RFC 9110, 10.2.3), and ignores what it cannot read', () => {
    const now = Date.parse('2026-11-25T18:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 25 Nov 2026 18:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 25 Nov 2026 17:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });

  it('backs off exponentially with full jitter: attempt n waits in [0, min(cap, base * 2^(n-1)))', () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };
    const justBelowOne = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, justBelowOne))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(200);
    // The defaults follow docs/idempotency.md's recipe: about 1, 2, 4, 8 s at most, within a minute.
    expect(DEFAULT_RETRY_POLICY).toMatchObject({ baseDelayMs: 500, maxDelayMs: 8_000, deadlineMs: 60_000 });
  });
});
