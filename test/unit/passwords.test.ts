import { describe, expect, it } from '@jest/globals';
import { generatePassword, hashPassword, verifyPassword } from '#domain/passwords';

describe('generatePassword', () => {
  it('makes at least 20 URL-safe characters, all different each time', () => {
    const passwords = Array.from({ length: 200 }, () => generatePassword({ minLength: 8, maxLength: 1024 }));
    for (const password of passwords) expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(new Set(passwords).size).toBe(passwords.length);
  });

  it('meets a stricter policy', () => {
    expect(generatePassword({ minLength: 40, maxLength: 64 })).toHaveLength(40);
    expect(generatePassword({ minLength: 8, maxLength: 16 })).toHaveLength(16);
  });
});

describe('hashPassword', () => {
  it('stores argon2id at OWASP minimum parameters, in PHC form, salted', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword(a, 'correct horse')).toBe(true);
    expect(await verifyPassword(a, 'correct horsE')).toBe(false);
  });
});
