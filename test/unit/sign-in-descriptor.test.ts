/**
 * The sign-in package's descriptor loaders: a file read once per maxAgeSeconds (a changed setting is
 * seen after it, not before), the last good value kept when a re-read fails, one line for a missing or
 * malformed file, and parseDescriptor refusing what a module cannot use.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  describeStage,
  descriptorFromFile,
  descriptorValue,
  isLoopbackEndpoint,
  parseDescriptor,
} from '../../packages/sign-in/src/descriptor';

const dir = mkdtempSync(join(tmpdir(), 'descriptor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stage = (argon2Setting: string) =>
  describeStage({
    stage: 'local',
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:8000',
    usersTable: { name: 'users', arn: 'arn:aws:dynamodb:ddblocal:000000000000:table/users' },
    signInTable: { name: 'sign-in', arn: 'arn:aws:dynamodb:ddblocal:000000000000:table/sign-in' },
    argon2Setting,
    passwordPolicy: { minLength: 8, maxLength: 1024 },
    breachCheck: null,
    baseUrl: 'http://127.0.0.1:3000',
  });

describe('descriptorFromFile', () => {
  it('re-reads past maxAgeSeconds and only then: a changed setting is picked up without a restart', async () => {
    const file = join(dir, 'changing.json');
    writeFileSync(file, JSON.stringify(stage('m=7168,t=5,p=1')));
    let clock = 0;
    const source = descriptorFromFile(file, { maxAgeSeconds: 60, now: () => clock });
    expect((await source.load()).argon2Setting).toBe('m=7168,t=5,p=1');
    writeFileSync(file, JSON.stringify(stage('m=19456,t=2,p=1')));
    clock = 59_999;
    expect((await source.load()).argon2Setting).toBe('m=7168,t=5,p=1');
    clock = 60_000;
    expect((await source.load()).argon2Setting).toBe('m=19456,t=2,p=1');
  });

  it('keeps the last good descriptor when a re-read fails, and tries again on the next call', async () => {
    const file = join(dir, 'breaking.json');
    writeFileSync(file, JSON.stringify(stage('m=7168,t=5,p=1')));
    let clock = 0;
    const source = descriptorFromFile(file, { maxAgeSeconds: 1, now: () => clock });
    await source.load();
    writeFileSync(file, '{ not json');
    clock = 5_000;
    expect((await source.load()).argon2Setting).toBe('m=7168,t=5,p=1');
    writeFileSync(file, JSON.stringify(stage('m=12288,t=3,p=1')));
    clock = 5_001;
    expect((await source.load()).argon2Setting).toBe('m=12288,t=3,p=1');
  });

  it('says in one line what is wrong with a missing or malformed file', async () => {
    await expect(descriptorFromFile(join(dir, 'absent.json')).load()).rejects.toThrow(
      /^sign-in descriptor .*absent\.json: no such file \(npm start writes it on start-up\)$/,
    );
    writeFileSync(join(dir, 'bad.json'), '[]');
    await expect(descriptorFromFile(join(dir, 'bad.json')).load()).rejects.toThrow(/bad\.json: not a JSON object$/);
  });
});

describe('parseDescriptor', () => {
  it.each([
    ['descriptorVersion', { descriptorVersion: 2 }, /descriptorVersion must be 1/],
    ['region', { region: '' }, /region must be a non-empty string/],
    ['usersTable', { usersTable: { name: 'users' } }, /usersTable must be \{ name, arn \}/],
    ['passwordPolicy', { passwordPolicy: { minLength: '8', maxLength: 1024 } }, /passwordPolicy must be/],
    ['breachCheck', { breachCheck: { pwnedPasswordsUrl: 'ftp://x' } }, /breachCheck must be null/],
    ['endpoint', { endpoint: 'file:///etc/passwd' }, /endpoint must be an http\(s\) URL/],
  ])('refuses a bad %s', (_field, change, message) => {
    expect(() => parseDescriptor({ ...stage('m=7168,t=5,p=1'), ...change })).toThrow(message);
  });

  it('accepts what describeStage writes, and descriptorValue serves it as is', async () => {
    const value = stage('m=7168,t=5,p=1');
    expect(await descriptorValue(JSON.parse(JSON.stringify(value))).load()).toEqual(value);
  });
});

describe('isLoopbackEndpoint: the only endpoints that get the static dummy credentials', () => {
  it.each([
    ['http://127.0.0.1:8000', true],
    ['http://localhost:8000', true],
    ['http://[::1]:8000', true],
    ['https://dynamodb.eu-west-1.amazonaws.com', false],
    ['http://127.0.0.1.example.com:8000', false],
    ['not a url', false],
  ])('%s: %s', (endpoint, loopback) => {
    expect(isLoopbackEndpoint(endpoint)).toBe(loopback);
  });
});
