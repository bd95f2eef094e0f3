/**
 * docs/migration.md: an import's memory does not grow with its file. The real admin CLI imports a
 * 10,000-line and a 100,000-line file of pre-hashed users into fresh owners on the suite's
 * DynamoDB Local, in tables of this file's own (dropped afterwards, so that 110,000 users and
 * their stream records weigh on no other test); each child's peak resident set (VmHWM, read at
 * its exit by peak-rss.mjs) is within 30 % of the other's. Its own jest project:
 * `npm test -- --selectProjects slow`.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { ensureTables, localClient } from '../../local/dynamodb-local';
import { uniqueEmail } from '../support/local';
import { ROOT, runScript } from '../support/processes';

const dir = mkdtempSync(join(tmpdir(), 'import-memory-'));
const TABLES = {
  usersTableName: `slow-users-${process.pid}`,
  ownersTableName: `slow-owners-${process.pid}`,
  idempotencyTableName: `slow-idempotency-${process.pid}`,
  signInTableName: `slow-sign-in-${process.pid}`,
};
const TABLE_OPTIONS = ['--users-table', TABLES.usersTableName, '--owners-table', TABLES.ownersTableName];
beforeAll(() => ensureTables(process.env.DYNAMODB_ENDPOINT!, TABLES));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const client = localClient(process.env.DYNAMODB_ENDPOINT!);
  for (const TableName of Object.values(TABLES)) await client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
  client.destroy();
});
const env = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };

/** A fresh owner in this file's tables, made by the admin CLI. */
async function newOwner(tag: string): Promise<{ ownerEmail: string }> {
  const ownerEmail = uniqueEmail(tag);
  const run = await runScript('admin/cli.ts', ['create-owner', ownerEmail, ...TABLE_OPTIONS], env);
  expect([run.code, run.stderr]).toEqual([0, '']);
  return { ownerEmail };
}

/** One hash for every row: generating the file costs nothing, the import does the same work per row. */
const HASH = bcrypt.hashSync('the same password for every row', 4);

function importFile(lines: number): string {
  const path = join(dir, `${lines}.jsonl`);
  const tag = Math.random().toString(36).slice(2, 8);
  const rows: string[] = [];
  for (let i = 0; i < lines; i++) rows.push(JSON.stringify({ user_email: `mem-${tag}-${i}@example.com`, password_hash: HASH }));
  writeFileSync(path, `${rows.join('\n')}\n`);
  return path;
}

/** Imports the file with the admin CLI as a child process; its outcome, duration and peak RSS (the process running admin/cli.ts). */
async function measuredImport(lines: number) {
  const file = importFile(lines);
  const owner = await newOwner(`mem-${lines}`);
  const peaks = join(dir, `${lines}.peaks`);
  const measured = {
    ...env,
    PEAK_RSS_FILE: peaks,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${join(ROOT, 'test/slow/peak-rss.mjs')}`.trim(),
  };
  const started = performance.now();
  const run = await runScript('admin/cli.ts', ['import-users', owner.ownerEmail, file, ...TABLE_OPTIONS], measured);
  const seconds = (performance.now() - started) / 1000;
  const processes = readFileSync(peaks, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { script: string; peak_kb: number });
  // tsx runs the script in a child of its own: the process whose script is admin/cli.ts does the import.
  const worker = processes.filter((p) => p.script === join(ROOT, 'admin/cli.ts'));
  expect(worker).toHaveLength(1);
  return { run, seconds, peakMb: worker[0]!.peak_kb / 1024 };
}

it('imports 10,000 and 100,000 pre-hashed users with the same peak memory (within 30 %)', async () => {
  const small = await measuredImport(10_000);
  expect([small.run.code, small.run.stdout]).toEqual([0, `${JSON.stringify({ imported: 10_000, exists: 0, failed: 0 })}\n`]);
  const large = await measuredImport(100_000);
  expect([large.run.code, large.run.stdout]).toEqual([0, `${JSON.stringify({ imported: 100_000, exists: 0, failed: 0 })}\n`]);
  console.log(
    [
      `import of 10,000 lines: ${small.seconds.toFixed(1)} s (${Math.round(10_000 / small.seconds)} users/s), peak RSS ${small.peakMb.toFixed(1)} MB`,
      `import of 100,000 lines: ${large.seconds.toFixed(1)} s (${Math.round(100_000 / large.seconds)} users/s), peak RSS ${large.peakMb.toFixed(1)} MB`,
      `peak ratio ${(Math.max(small.peakMb, large.peakMb) / Math.min(small.peakMb, large.peakMb)).toFixed(3)}`,
    ].join('\n'),
  );
  expect(Math.max(small.peakMb, large.peakMb) / Math.min(small.peakMb, large.peakMb)).toBeLessThanOrEqual(1.3);
}, 900_000);
