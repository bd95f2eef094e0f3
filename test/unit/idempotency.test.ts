/** Idempotency keys without storage: the key's shape, the canonical body, and the sealing of a recorded body. */

import { describe, expect, it } from '@jest/globals';
import { canonicalJson, isWellFormedIdempotencyKey, keySecrets } from '#domain/idempotency';

describe('isWellFormedIdempotencyKey', () => {
  it.each([
    ['16 characters', 'k'.repeat(16), true],
    ['255 characters', 'k'.repeat(255), true],
    ['a UUID', '5f0c6b9e-2d4a-4c1e-9b7a-3e8f1d2c6a40', true],
    ['every printable ASCII character', String.fromCharCode(...Array.from({ length: 95 }, (_, i) => 0x20 + i)), true],
    ['empty', '', false],
    ['15 characters', 'k'.repeat(15), false],
    ['256 characters', 'k'.repeat(256), false],
    ['a control character', `${'k'.repeat(16)}\u001f`, false],
    ['DEL', `${'k'.repeat(16)}\u007f`, false],
    ['a newline', `${'k'.repeat(16)}\n`, false],
    ['non-ASCII', `${'k'.repeat(16)}é`, false],
  ])('%s: %p', (_, key, expected) => {
    expect(isWellFormedIdempotencyKey(key)).toBe(expected);
  });
});

describe('canonicalJson', () => {
  it('sorts object keys at every depth, so bodies equal after parsing compare equal', () => {
    const a = JSON.parse('{"b": 1, "a": {"y": [1, {"q": 2, "p": 3}], "x": null}}');
    const b = JSON.parse('{"a":{"x":null,"y":[1,{"p":3,"q":2}]},"b":1}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"x":null,"y":[1,{"p":3,"q":2}]},"b":1}');
  });

  it('keeps what validation keeps apart: "true" and true, array order', () => {
    expect(canonicalJson({ f: 'true' })).not.toBe(canonicalJson({ f: true }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('treats __proto__ as an ordinary key', () => {
    expect(canonicalJson(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'))).toBe('{"__proto__":{"polluted":true},"a":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('keySecrets', () => {
  const owner = 'owner-1';
  const key = '5f0c6b9e-2d4a-4c1e-9b7a-3e8f1d2c6a40';
  const body = { user_email: 'jane@example.com', user_password: 'correct horse battery staple' };

  it('gives the same digest and fingerprint for the same key and request, and another for another operation, owner or key', () => {
    const secrets = keySecrets(owner, key);
    expect(keySecrets(owner, key).keyDigest).toBe(secrets.keyDigest);
    expect(keySecrets(owner, key).fingerprint('createUser', { ...body })).toBe(secrets.fingerprint('createUser', body));
    expect(secrets.fingerprint('deleteUser', body)).not.toBe(secrets.fingerprint('createUser', body));
    expect(keySecrets('owner-2', key).fingerprint('createUser', body)).not.toBe(secrets.fingerprint('createUser', body));
    expect(keySecrets(owner, `${key}x`).fingerprint('createUser', body)).not.toBe(secrets.fingerprint('createUser', body));
  });

  it('neither the digest nor the fingerprint shows the key or the password', () => {
    const secrets = keySecrets(owner, key);
    const fingerprint = secrets.fingerprint('createUser', body);
    for (const text of [secrets.keyDigest, fingerprint]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(body.user_password);
    }
  });

  it('seals a body that only the same key, owner and request open, and that cannot be altered', () => {
    const secrets = keySecrets(owner, key);
    const fingerprint = secrets.fingerprint('createUser', body);
    const text = JSON.stringify(body);
    const sealed = secrets.seal(text, fingerprint);
    expect(Buffer.from(sealed).toString('latin1')).not.toContain(body.user_password);
    expect(secrets.seal(text, fingerprint)).not.toEqual(sealed);
    expect(secrets.open(sealed, fingerprint)).toBe(text);

    expect(() => keySecrets(owner, `${key}x`).open(sealed, fingerprint)).toThrow();
    expect(() => keySecrets('owner-2', key).open(sealed, fingerprint)).toThrow();
    expect(() => secrets.open(sealed, secrets.fingerprint('createUser', { ...body, user_password: 'another one' }))).toThrow();
    const altered = Buffer.from(sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => secrets.open(altered, fingerprint)).toThrow();
  });
});
