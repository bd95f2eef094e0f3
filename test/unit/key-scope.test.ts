/** A key's operations and expiry, and the hour last_used_at records: pure rules of owners.ts. */

import { describe, expect, it } from '@jest/globals';
import { OPERATIONS } from '#contract/operations';
import { hourOf, keyPermits } from '#domain/owners';

describe('keyPermits', () => {
  const at = Date.parse('2026-06-15T12:00:00.000Z');

  it('a key without a list or an expiry may call every operation, at any time', () => {
    for (const operation of OPERATIONS) expect(keyPermits({}, operation, at)).toBe(true);
    expect(keyPermits({}, 'deleteUser', Date.parse('2999-01-01T00:00:00Z'))).toBe(true);
  });

  it('a key with a list may call only what is in it', () => {
    const key = { operations: ['createUser', 'resetUserPassword'] as const };
    expect(OPERATIONS.map((operation) => [operation, keyPermits(key, operation, at)])).toEqual([
      ['createUser', true],
      ['resetUserPassword', true],
      ['deleteUser', false],
    ]);
    expect(keyPermits({ operations: [] }, 'createUser', at)).toBe(false);
  });

  it('a key expires at its instant: accepted a millisecond before, refused at it and after', () => {
    const key = { expiresAt: '2026-06-15T12:00:00.000Z' };
    expect(keyPermits(key, 'createUser', at - 1)).toBe(true);
    expect(keyPermits(key, 'createUser', at)).toBe(false);
    expect(keyPermits(key, 'createUser', at + 1)).toBe(false);
  });

  it('an unreadable stored expiry refuses the key', () => {
    expect(keyPermits({ expiresAt: 'soon' }, 'createUser', at)).toBe(false);
  });
});

describe('hourOf', () => {
  it('zeroes minutes, seconds and milliseconds; hours sort as strings', () => {
    expect(hourOf(Date.parse('2026-06-15T12:00:00.000Z'))).toBe('2026-06-15T12:00:00.000Z');
    expect(hourOf(Date.parse('2026-06-15T12:59:59.999Z'))).toBe('2026-06-15T12:00:00.000Z');
    expect(hourOf(Date.parse('2026-06-15T13:00:00.000Z'))).toBe('2026-06-15T13:00:00.000Z');
    expect(hourOf(Date.parse('2026-12-31T23:30:00.000Z')) < hourOf(Date.parse('2027-01-01T00:00:00.000Z'))).toBe(true);
  });
});
