/**
 * The import's hash formats and ceilings (functions/shared/domain/password-hashes.ts), checked with
 * the verifier the sign-in module runs: hashes made by other tools, and a hash of every accepted
 * shape at each ceiling's edge, verify; one past each ceiling is `too-costly`; a hash that could
 * never verify is `unsupported`.
 */

import { pbkdf2, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { checkHash, HASH_CEILINGS, verifyHash } from '#domain/password-hashes';

const fixtures = JSON.parse(readFileSync(new URL('../fixtures/real-tool-hashes.json', import.meta.url), 'utf8')) as {
  hashes: { tool: string; password: string; hash: string; expected: 'accepted' | 'unsupported' | 'too-costly' }[];
};
const verdictOf = (hash: string) => {
  const verdict = checkHash(hash);
  return 'accepted' in verdict ? 'accepted' : verdict.refused;
};

describe('hashes made by other tools', () => {
  it.each(fixtures.hashes.map((f) => [f.tool, f] as const))(
    '%s',
    async (_, fixture) => {
      expect(verdictOf(fixture.hash)).toBe(fixture.expected);
      // An accepted hash verifies its password and no other; a refused one never verifies.
      const verifies = [await verifyHash(fixture.hash, fixture.password), await verifyHash(fixture.hash, `${fixture.password}!`)];
      expect(verifies).toEqual([fixture.expected === 'accepted', false]);
    },
    60_000,
  );
});

const argon2 = (
  algorithm: 1 | 2,
  memoryCost: number,
  timeCost: number,
  parallelism: number,
  extra: { salt?: Buffer; outputLen?: number } = {},
) => argon2Hash('edge password', { algorithm, memoryCost, timeCost, parallelism, ...extra });
/** The same PHC string with other parameters: past a ceiling it is refused before anything is computed. */
const withParams = (phc: string, params: string) => phc.replace(/m=\d+,t=\d+,p=\d+/, params);
const b64 = (bytes: number) => randomBytes(bytes).toString('base64').replace(/=+$/, '');
const django = async (iterations: number, password = 'edge password') => {
  const salt = randomBytes(9).toString('hex');
  const key = await promisify(pbkdf2)(password, salt, iterations, 32, 'sha256');
  return `pbkdf2_sha256$${iterations}$${salt}$${key.toString('base64')}`;
};

describe('argon2id and argon2i: m from 8×p to 262,144 KiB, t 1 to 10, p 1 to 8', () => {
  const { memoryKiB, passes, lanes } = HASH_CEILINGS.argon2;
  expect([memoryKiB, passes, lanes]).toEqual([262_144, 10, 8]);

  it.each([
    ['argon2id', 2],
    ['argon2i', 1],
  ] as const)(
    '%s verifies at each edge and is too costly one past it',
    async (name, algorithm) => {
      for (const [m, t, p] of [
        [8, 1, 1],
        [64, 1, 8],
        [262_144, 1, 1],
        [8, 10, 1],
      ]) {
        const phc = await argon2(algorithm, m!, t!, p!);
        expect(phc.startsWith(`$${name}$v=19$m=${m},t=${t},p=${p}$`)).toBe(true);
        expect(verdictOf(phc)).toBe('accepted');
        expect(await verifyHash(phc, 'edge password')).toBe(true);
        expect(await verifyHash(phc, 'edge passworD')).toBe(false);
      }
      const phc = await argon2(algorithm, 8, 1, 1);
      for (const past of ['m=262145,t=1,p=1', 'm=8,t=11,p=1', 'm=72,t=1,p=9', 'm=4194304,t=1,p=1', 'm=99999999,t=9999,p=999']) {
        expect([past, verdictOf(withParams(phc, past))]).toEqual([past, 'too-costly']);
      }
    },
    60_000,
  );

  it('refuses as unsupported what can never verify: m below 8×p, t or p of 0, leading zeros, counts past 32 bits', async () => {
    const phc = await argon2(2, 8, 1, 1);
    for (const bad of ['m=7,t=1,p=1', 'm=63,t=1,p=8', 'm=8,t=0,p=1', 'm=0,t=1,p=0', 'm=08,t=1,p=1', 'm=4294967296,t=1,p=1']) {
      expect([bad, verdictOf(withParams(phc, bad))]).toEqual([bad, 'unsupported']);
    }
  });

  it('salt of 8 to 64 bytes and hash of 4 to 64 bytes verify; shorter, longer or undecodable ones are unsupported', async () => {
    for (const [saltBytes, outputLen] of [
      [8, 4],
      [64, 64],
    ]) {
      const phc = await argon2(2, 8, 1, 1, { salt: randomBytes(saltBytes!), outputLen: outputLen! });
      expect(verdictOf(phc)).toBe('accepted');
      expect(await verifyHash(phc, 'edge password')).toBe(true);
    }
    const [, , , params, salt, tag] = (await argon2(2, 8, 1, 1)).split('$');
    const phc = (s: string, t: string) => `$argon2id$v=19$${params}$${s}$${t}`;
    for (const bad of [
      phc(b64(7), tag!),
      phc(b64(65), tag!),
      phc(salt!, b64(3)),
      phc(salt!, b64(65)),
      // 13 characters of base64 (not a whole number of bytes): the verifier throws `Decoding failed` on it.
      phc('A'.repeat(13), tag!),
      // Spare bits set, padding, the URL-safe alphabet: not the canonical base64 the PHC format writes.
      phc('AAAAAAAAAAB', tag!),
      phc(`${salt}==`, tag!),
      phc(salt!.replace(/[+/]/g, '-').replace(/^./, '_'), tag!),
      `$argon2d$v=19$${params}$${salt}$${tag}`,
      `$argon2id$v=16$${params}$${salt}$${tag}`,
      `$argon2id$${params}$${salt}$${tag}`,
      `$argon2id$v=19$${params},data=AAAA$${salt}$${tag}`,
    ]) {
      expect([bad, verdictOf(bad)]).toEqual([bad, 'unsupported']);
    }
  });
});

describe('bcrypt: cost 04 to 14', () => {
  it('verifies at cost 4, for $2a$, $2b$ and $2y$, and reads only the first 72 bytes', async () => {
    const hash = bcrypt.hashSync('edge password', 4);
    for (const prefix of ['$2a$', '$2b$', '$2y$']) {
      const variant = hash.replace(/^\$2b\$/, prefix);
      expect(verdictOf(variant)).toBe('accepted');
      expect(await verifyHash(variant, 'edge password')).toBe(true);
      expect(await verifyHash(variant, 'edge passworD')).toBe(false);
    }
    const hundred = 'a'.repeat(100);
    const long = bcrypt.hashSync(hundred, 4);
    expect(await verifyHash(long, `${hundred}x`)).toBe(true);
    expect(await verifyHash(long, `${'a'.repeat(71)}b`)).toBe(false);
  });

  // Cost 14 is the fixture python-bcrypt made (above): verifying it once is the ceiling's edge.
  it('is too costly from cost 15 to 31 and unsupported outside 04-31 or with spare bits set', () => {
    const hash = bcrypt.hashSync('edge password', 4);
    expect(HASH_CEILINGS.bcryptCost).toBe(14);
    expect(verdictOf(hash.replace('$04$', '$14$'))).toBe('accepted');
    for (const cost of ['15', '20', '31']) expect(verdictOf(hash.replace('$04$', `$${cost}$`))).toBe('too-costly');
    for (const cost of ['03', '32', '99', '4$']) expect(verdictOf(hash.replace('$04$', `$${cost}$`))).toBe('unsupported');
    // The 22nd salt character carries 2 bits and 4 spare ones; the 31st hash character 4 and 2 spare.
    const spareInSalt = `${hash.slice(0, 28)}/${hash.slice(29)}`;
    const spareInHash = `${hash.slice(0, 59)}/`;
    expect([verdictOf(spareInSalt), verdictOf(spareInHash), verdictOf(hash.slice(0, 59))]).toEqual([
      'unsupported',
      'unsupported',
      'unsupported',
    ]);
  });
});

describe('PBKDF2-SHA256 (Django): 1 to 2,000,000 iterations', () => {
  it('verifies at 1 and at 2,000,000 iterations, asynchronously', async () => {
    expect(HASH_CEILINGS.pbkdf2Iterations).toBe(2_000_000);
    const ticksDuring: number[] = [];
    for (const iterations of [1, 2_000_000]) {
      const hash = await django(iterations);
      expect(verdictOf(hash)).toBe('accepted');
      // The event loop keeps turning while it runs: crypto.pbkdf2 works on libuv's pool.
      let ticks = 0;
      const ticking = setInterval(() => ticks++, 1);
      const ok = await verifyHash(hash, 'edge password');
      clearInterval(ticking);
      ticksDuring.push(ticks);
      expect(ok).toBe(true);
      expect(await verifyHash(hash, 'edge passworD')).toBe(false);
    }
    // Timer ticks while 2,000,000 iterations run: how many depends on the machine and its load.
    expect(ticksDuring[1]).toBeGreaterThan(5);
  }, 60_000);

  it('is too costly past 2,000,000 and unsupported with 0 iterations or a key that is not 32 canonical bytes', async () => {
    const hash = await django(1);
    const [, , salt, key] = hash.split('$');
    expect(verdictOf(`pbkdf2_sha256$2000001$${salt}$${key}`)).toBe('too-costly');
    expect(verdictOf(`pbkdf2_sha256$999999999$${salt}$${key}`)).toBe('too-costly');
    for (const bad of [
      `pbkdf2_sha256$0$${salt}$${key}`,
      `pbkdf2_sha256$01$${salt}$${key}`,
      `pbkdf2_sha256$1$${salt}$${key!.slice(0, 42)}B=`,
      `pbkdf2_sha256$1$${salt}$${randomBytes(16).toString('base64')}`,
      `pbkdf2_sha256$1$$${key}`,
      `pbkdf2_sha1$1$${salt}$${key}`,
    ]) {
      expect([bad, verdictOf(bad)]).toEqual([bad, 'unsupported']);
    }
  });
});
