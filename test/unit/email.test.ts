import { describe, expect, it } from '@jest/globals';
import { normalizeEmail } from '#domain/email';

describe('normalizeEmail', () => {
  it('trims and lower-cases, so case variants are one user', () => {
    expect(normalizeEmail('  Bob@Example.COM\t')).toBe('bob@example.com');
    expect(normalizeEmail('bob@example.com')).toBe(normalizeEmail('BOB@EXAMPLE.com'));
  });

  it('is idempotent', () => {
    const once = normalizeEmail(' A.B+tag@Sub.Example.org ');
    expect(normalizeEmail(once)).toBe(once);
  });
});
