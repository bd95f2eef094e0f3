/**
 * The import's hash ceilings through the real admin CLI on DynamoDB Local (docs/migration.md): a
 * hash at each ceiling's edge is imported as it is; one past it fails with `password_hash too
 * costly to verify`, one that can never verify with `unsupported password_hash format`, and
 * neither writes anything.
 */

import { pbkdf2, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from '@jest/globals';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import { newOwner, uniqueEmail } from '../support/local';
import { runScript } from '../support/processes';

const { config, stores } = processStores();
const dir = mkdtempSync(join(tmpdir(), 'ceilings-'));
const fixtures = JSON.parse(readFileSync(new URL('../fixtures/real-tool-hashes.json', import.meta.url), 'utf8')) as {
  hashes: { tool: string; hash: string; expected: string }[];
};

const argon2 = (algorithm: 1 | 2, memoryCost: number, timeCost: number, parallelism: number) =>
  argon2Hash('edge password', { algorithm, memoryCost, timeCost, parallelism });
const django = async (iterations: number) => {
  const salt = randomBytes(9).toString('hex');
  return `pbkdf2_sha256$${iterations}$${salt}$${(await promisify(pbkdf2)('edge password', salt, iterations, 32, 'sha256')).toString('base64')}`;
};
const params = (phc: string, to: string) => phc.replace(/m=\d+,t=\d+,p=\d+/, to);

describe('import-users: hash ceilings', () => {
  it('imports each edge; refuses one past each ceiling as too costly, and what can never verify as unsupported', async () => {
    const owner = await newOwner('ceilings');
    const small = await argon2(2, 8, 1, 1);
    const bcrypt4 = bcrypt.hashSync('edge password', 4);
    const pbkdf2One = await django(1);
    const [, , salt, key] = pbkdf2One.split('$');
    const edges = [
      await argon2(2, 262_144, 1, 1),
      await argon2(2, 8, 10, 1),
      await argon2(2, 64, 1, 8),
      await argon2(1, 262_144, 1, 1),
      await argon2(1, 8, 10, 1),
      await argon2(1, 64, 1, 8),
      bcrypt4,
      fixtures.hashes.find((f) => f.tool.includes('rounds=14'))!.hash,
      pbkdf2One,
      await django(2_000_000),
    ];
    const costly = [
      params(small, 'm=262145,t=1,p=1'),
      params(small, 'm=8,t=11,p=1'),
      params(small, 'm=72,t=1,p=9'),
      params(small, 'm=4194304,t=1,p=1'),
      params(small, 'm=99999999,t=9999,p=999').replace('$argon2id$', '$argon2i$'),
      bcrypt4.replace('$04$', '$15$'),
      bcrypt4.replace('$04$', '$31$'),
      fixtures.hashes.find((f) => f.tool.includes('rounds=15'))!.hash,
      `pbkdf2_sha256$2000001$${salt}$${key}`,
      `pbkdf2_sha256$999999999$${salt}$${key}`,
    ];
    const [, , , p, , tag] = small.split('$');
    const unsupported = [
      params(small, 'm=1,t=1,p=1'),
      `$argon2id$v=19$${p}$${'A'.repeat(13)}$${tag}`,
      bcrypt4.replace('$04$', '$03$'),
      `pbkdf2_sha256$0$${salt}$${key}`,
      fixtures.hashes.find((f) => f.tool.includes('(prefixed)'))!.hash,
    ];
    const lines = [...edges, ...costly, ...unsupported].map((hash) => ({ user_email: uniqueEmail('ceiling'), password_hash: hash }));
    const file = join(dir, 'ceilings.jsonl');
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
    const report = join(dir, 'ceilings-report.jsonl');
    const run = await runScript('admin/cli.ts', ['import-users', owner.ownerEmail, file, '--report', report], {
      ...process.env,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    expect([run.code, JSON.parse(run.stdout)]).toEqual([
      1,
      { imported: edges.length, exists: 0, failed: costly.length + unsupported.length },
    ]);
    const reasons = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number; reason: string });
    expect(reasons).toEqual([
      ...costly.map((_, i) => ({
        line: edges.length + i + 1,
        user_email: lines[edges.length + i]!.user_email,
        reason: 'password_hash too costly to verify',
      })),
      ...unsupported.map((_, i) => ({
        line: edges.length + costly.length + i + 1,
        user_email: lines[edges.length + costly.length + i]!.user_email,
        reason: 'unsupported password_hash format',
      })),
    ]);
    const ownerId = (await stores.owners.findOwner(owner.ownerEmail))!.ownerId;
    const stored = async (email: string) =>
      (await stores.client.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(ownerId, email), ConsistentRead: true })))
        .Item;
    for (const [i, line] of lines.entries()) {
      expect((await stored(line.user_email))?.password_hash).toBe(i < edges.length ? line.password_hash : undefined);
    }
  }, 120_000);
});
