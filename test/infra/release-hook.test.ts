/** The pre-traffic hook's verdict (lib/release-hook/checks.ts): the contract's 401 passes, anything else fails the release. */

import { describe, expect, it } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
import { API_KEY_PATTERN } from '#domain/api-keys';
import { lifecycleEventOf } from '#events/lifecycle-events';
import { passesRecordFilter } from '#events/record-filter';
import { hookEvent, judge, unknownApiKey } from '../../lib/release-hook/checks';

const api = { kind: 'api', path: '/v1/createUser' } as const;
const answer401 = (body: unknown) => ({ payload: JSON.stringify({ statusCode: 401, body: JSON.stringify(body) }), logTail: '' });
const consumerLog = (fields: Record<string, unknown>) =>
  `START RequestId: x\n2026-12-01T00:00:00.000Z\tx\tINFO\t${JSON.stringify({ message: 'Lifecycle events delivered', ...fields })}\nEND`;

describe('pre-traffic hook', () => {
  it('sends an API key of the issued shape, never the same twice', () => {
    expect(unknownApiKey()).toMatch(API_KEY_PATTERN);
    expect(unknownApiKey()).not.toBe(unknownApiKey());
    const event = hookEvent(api) as { path: string; headers: Record<string, string> };
    expect(event.path).toBe('/v1/createUser');
    expect(event.headers['X-API-Key']).toMatch(/^wlk_/);
  });

  it("passes the contract's 401 only", () => {
    expect(judge(api, answer401({ message: MESSAGES.unauthorized }))).toBeUndefined();
    expect(judge(api, answer401({ message: 'Internal server error' }))).toMatch(/body/);
    expect(judge(api, { payload: JSON.stringify({ statusCode: 500, body: '{}' }), logTail: '' })).toMatch(/401/);
    expect(judge(api, { functionError: 'Unhandled', payload: '{}', logTail: '' })).toMatch(/Unhandled/);
  });

  it('gives the consumer a record its filter drops and it turns into no event', () => {
    const [record] = (hookEvent({ kind: 'consumer' }) as { Records: Parameters<typeof lifecycleEventOf>[0][] }).Records;
    expect(passesRecordFilter(record)).toBe(false);
    expect(lifecycleEventOf(record!)).toBeUndefined();
  });

  it('passes the consumer only when it reports no failure and logs nothing delivered or kept', () => {
    const consumer = { kind: 'consumer' } as const;
    const ok = JSON.stringify({ batchItemFailures: [] });
    expect(judge(consumer, { payload: ok, logTail: consumerLog({ records: 1, delivered: 0, kept: 0 }) })).toBeUndefined();
    expect(judge(consumer, { payload: ok, logTail: consumerLog({ records: 1, delivered: 1, kept: 0 }) })).toMatch(/delivered/);
    expect(judge(consumer, { payload: ok, logTail: 'END' })).toMatch(/log tail/);
    expect(
      judge(consumer, {
        payload: JSON.stringify({ batchItemFailures: [{ itemIdentifier: '0' }] }),
        logTail: consumerLog({ records: 1, delivered: 0, kept: 0 }),
      }),
    ).toMatch(/batchItemFailures/);
  });
});
