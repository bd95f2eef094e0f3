import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { digestApiKey, isWellFormedApiKey, newApiKey } from '#domain/api-keys';

describe('API keys', () => {
  it('are 256 random bits behind a greppable prefix, stored as a SHA-256 digest', () => {
    const { apiKey, keyId, digest } = newApiKey();
    expect(apiKey).toMatch(/^wlk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(apiKey.slice(4), 'base64url')).toHaveLength(32);
    expect(digest).toBe(createHash('sha256').update(apiKey).digest('hex'));
    expect(digestApiKey(apiKey)).toBe(digest);
    expect(keyId).toMatch(/^key_[0-9a-f]{16}$/);
    expect(keyId).not.toContain(apiKey.slice(4, 12));
  });

  it('refuses malformed keys before any lookup', () => {
    const { apiKey } = newApiKey();
    expect(isWellFormedApiKey(apiKey)).toBe(true);
    for (const bad of [
      '',
      apiKey.slice(0, -1),
      `${apiKey}x`,
      apiKey.slice(1),
      `x${apiKey}`,
      apiKey.replace('wlk_', 'WLK_'),
      `${apiKey.slice(0, -1)}\n`,
      `wlk_${'\u0000'.repeat(43)}`,
    ]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });
});
