import { describe, expect, it } from '@jest/globals';
import { generatePassword, hashPassword, verifyPassword } from '#domain/passwords';
import { formatArgon2Setting, OWASP_ARGON2ID_SETTINGS, parseArgon2Setting } from '#platform/config';

describe('generatePassword', () => {
  it('makes 24 URL-safe characters, all different each time', () => {
    const passwords = Array.from({ length: 200 }, () => generatePassword({ minLength: 8, maxLength: 1024 }));
    for (const password of passwords) expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(new Set(passwords).size).toBe(passwords.length);
  });

  it('meets a stricter policy', () => {
    expect(generatePassword({ minLength: 40, maxLength: 64 })).toHaveLength(40);
    expect(generatePassword({ minLength: 8, maxLength: 16 })).toHaveLength(16);
  });
});

const OWASP_MINIMUM = parseArgon2Setting('m=19456,t=2,p=1', 'test');

describe('hashPassword', () => {
  it('stores argon2id at OWASP minimum parameters, in PHC form, salted', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse', OWASP_MINIMUM), hashPassword('correct horse', OWASP_MINIMUM)]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword(a, 'correct horse')).toBe(true);
    expect(await verifyPassword(a, 'correct horsE')).toBe(false);
  });
});

describe('the argon2id setting', () => {
  it.each(OWASP_ARGON2ID_SETTINGS.map((setting) => [formatArgon2Setting(setting), setting] as const))(
    'hashes at %s, named in the PHC string, and verifies whatever setting made it',
    async (text, setting) => {
      expect(parseArgon2Setting(text, 'test')).toEqual(setting);
      const phc = await hashPassword('café-pässwörd', setting);
      expect(phc).toMatch(new RegExp(`^\\$argon2id\\$v=19\\$${text}\\$`));
      expect(await verifyPassword(phc, 'café-pässwörd')).toBe(true);
    },
  );

  it('defaults to m=7168,t=5,p=1 and refuses anything but the five, naming them', () => {
    expect(parseArgon2Setting(undefined, 'X')).toEqual({ memoryCost: 7168, timeCost: 5, parallelism: 1 });
    for (const bad of ['m=19456,t=1,p=1', 'm=4096,t=3,p=1', 'm=12288,t=3,p=2', 'fast']) {
      expect(() => parseArgon2Setting(bad, 'ARGON2_SETTING')).toThrow(
        `ARGON2_SETTING must be one of OWASP's five argon2id settings (m=47104,t=1,p=1 | m=19456,t=2,p=1 | m=12288,t=3,p=1 | m=9216,t=4,p=1 | m=7168,t=5,p=1), got "${bad}"`,
      );
    }
  });
});
