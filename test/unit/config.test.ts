import { afterEach, describe, expect, it } from '@jest/globals';
import { readConfig } from '#platform/config';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('readConfig', () => {
  it('reads defaults for what is optional', () => {
    delete process.env.PASSWORD_MIN_LENGTH;
    delete process.env.PASSWORD_MAX_LENGTH;
    delete process.env.API_KEY_CACHE_TTL_SECONDS;
    const config = readConfig();
    expect(config.passwordPolicy).toEqual({ minLength: 8, maxLength: 1024 });
    expect(config.apiKeyCacheTtlMs).toBe(30_000);
  });

  it('names a missing table variable', () => {
    delete process.env.USERS_TABLE_NAME;
    expect(() => readConfig()).toThrow('Missing required environment variable USERS_TABLE_NAME');
  });

  it('refuses a malformed or inverted policy', () => {
    process.env.PASSWORD_MIN_LENGTH = 'eight';
    expect(() => readConfig()).toThrow('PASSWORD_MIN_LENGTH must be an integer >= 1');
    process.env.PASSWORD_MIN_LENGTH = '20';
    process.env.PASSWORD_MAX_LENGTH = '10';
    expect(() => readConfig()).toThrow('PASSWORD_MAX_LENGTH must not be less than PASSWORD_MIN_LENGTH');
  });

  it('reads ARGON2_SETTING (one of OWASP five) and refuses any other at cold start', () => {
    delete process.env.ARGON2_SETTING;
    expect(readConfig().argon2).toEqual({ memoryCost: 7168, timeCost: 5, parallelism: 1 });
    process.env.ARGON2_SETTING = 'm=7168,t=5,p=1';
    expect(readConfig().argon2).toEqual({ memoryCost: 7168, timeCost: 5, parallelism: 1 });
    process.env.ARGON2_SETTING = 'm=1024,t=1,p=1';
    expect(() => readConfig()).toThrow("Environment variable ARGON2_SETTING must be one of OWASP's five argon2id settings");
  });
});
