/**
 * docs/migration.md, "Files the import reads and writes": `admin import-users` as a real process on
 * DynamoDB Local, fed files a user or an attacker may hand it. Lines are the file's own (split on
 * `\n` only, CRLF and a leading BOM accepted); bytes that are not UTF-8, a line over 1 MiB, a name
 * given twice, a date that does not exist each fail their line alone; an input that is not a
 * regular file and a report that is not a new file are refused before anything is written; a
 * report that cannot be written ends the import with its counts, one line and exit 1 (and an
 * export's file, the export).
 */

import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { linkSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from '@jest/globals';
import { verify as argon2Verify } from '@node-rs/argon2';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import { MAX_LINE_BYTES } from '../../admin/import-file';
import { newOwner, uniqueEmail } from '../support/local';
import { ROOT, runScript } from '../support/processes';

const { config, stores } = processStores();
const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
const admin = (...args: string[]) => runScript('admin/cli.ts', args, env);
const dir = mkdtempSync(join(tmpdir(), 'import-hostile-'));
let files = 0;

/** A file of exactly these bytes (strings as UTF-8), under a fresh name. */
const fileOf = (...parts: (string | Buffer)[]) => {
  const path = join(dir, `input-${++files}.jsonl`);
  writeFileSync(path, Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))));
  return path;
};
const json = (value: unknown) => JSON.stringify(value);
/** A password no blocklist holds. */
const password = () => `pw ${randomBytes(8).toString('hex')}`;
const counts = (imported: number, exists: number, failed: number) => `${json({ imported, exists, failed })}\n`;
const failure = (line: number, user_email: string | null, reason: string) => `${json({ line, user_email, reason })}\n`;

const ownerIdOf = async (email: string) => (await stores.owners.findOwner(email))!.ownerId;
const profile = async (ownerEmail: string, email: string) =>
  (
    await stores.client.send(
      new GetCommand({ TableName: config.usersTableName, Key: userKey(await ownerIdOf(ownerEmail), email), ConsistentRead: true }),
    )
  ).Item;

describe('import-users reads lines as the file has them', () => {
  it('splits on \\n only: U+2028, U+2029 and a bare CR stay inside their line, and line numbers are the file’s', async () => {
    const owner = await newOwner('hostile-split');
    const [a, b] = [uniqueEmail('split-a'), uniqueEmail('split-b')];
    const passwordA = `${password()}\u2028\u2029`;
    const file = fileOf(
      `${json({ user_email: a, user_password: passwordA, note: 'one\u2028two\u2029three' })}\n`,
      // A bare CR is JSON whitespace between tokens.
      `{"user_email":${json(b)},\r"password_hash":"$2b$04$abcdefghijklmnopqrstuuKq9KY8c7WJpV8VJm1xTgW7CB0wSxjJ.","note":"\u2028"}\n`,
      // A bare CR inside a string is not JSON: one outcome, on its own line.
      `{"user_email":"x\ry@example.com","user_password":"irrelevant"}\n`,
      `${json({ user_email: a.toUpperCase(), user_password: password() })}\n`,
    );
    const run = await admin('import-users', owner.ownerEmail, file);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      counts(2, 0, 2),
      failure(3, null, 'not JSON') + failure(4, a, 'duplicate of line 1'),
    ]);
    // The password is stored as given, U+2028 and U+2029 included.
    expect(await argon2Verify((await profile(owner.ownerEmail, a))!.password_hash as string, passwordA)).toBe(true);
    expect(await profile(owner.ownerEmail, b)).toBeDefined();
  }, 60_000);

  it('accepts CRLF line ends and a byte order mark at the start, and counts lines as the file does', async () => {
    const owner = await newOwner('hostile-crlf');
    const emails = [uniqueEmail('crlf-a'), uniqueEmail('crlf-b'), uniqueEmail('crlf-c')];
    const file = fileOf(
      '\ufeff',
      `${json({ user_email: emails[0], user_password: password() })}\r\n`,
      '\r\n',
      `${json({ user_email: 'not an e-mail', user_password: password() })}\r\n`,
      `${json({ user_email: emails[1], user_password: password() })}\r\n`,
      // A byte order mark anywhere else is not JSON.
      `\ufeff${json({ user_email: emails[2], user_password: password() })}\r\n`,
    );
    const run = await admin('import-users', owner.ownerEmail, file);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      counts(2, 0, 2),
      failure(3, 'not an e-mail', 'invalid user_email') + failure(5, null, 'not JSON'),
    ]);
    expect(await profile(owner.ownerEmail, emails[0]!)).toBeDefined();
    expect(await profile(owner.ownerEmail, emails[1]!)).toBeDefined();
    expect(await profile(owner.ownerEmail, emails[2]!)).toBeUndefined();
  }, 60_000);

  it('fails a line whose bytes are not UTF-8, never importing it with U+FFFD', async () => {
    const owner = await newOwner('hostile-utf8');
    const [bad, good] = [uniqueEmail('utf8-bad'), uniqueEmail('utf8-good')];
    const file = fileOf(
      `{"user_email":${json(bad)},"user_password":"long enough `,
      Buffer.from([0xff, 0xfe, 0xc3]),
      '"}\n',
      `${json({ user_email: good, user_password: password() })}\n`,
      // An overlong encoding of "/" is not UTF-8 either.
      Buffer.from([0xc0, 0xaf, 0x0a]),
    );
    const run = await admin('import-users', owner.ownerEmail, file);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      counts(1, 0, 2),
      failure(1, null, 'not valid UTF-8') + failure(3, null, 'not valid UTF-8'),
    ]);
    expect(await profile(owner.ownerEmail, bad)).toBeUndefined();
    expect(await profile(owner.ownerEmail, good)).toBeDefined();
  }, 60_000);

  it('fails a line over 1 MiB as too long, takes one of exactly 1 MiB, and goes on with the next line', async () => {
    const owner = await newOwner('hostile-long');
    const [long, limit, next] = [uniqueEmail('long'), uniqueEmail('limit'), uniqueEmail('next')];
    /** A valid line of exactly `bytes` bytes, padded in a field the import ignores. */
    const lineOf = (email: string, bytes: number) => {
      const bare = json({ user_email: email, user_password: 'long enough password', pad: '' });
      return json({ user_email: email, user_password: 'long enough password', pad: 'x'.repeat(bytes - Buffer.byteLength(bare)) });
    };
    expect(Buffer.byteLength(lineOf(long, MAX_LINE_BYTES + 1))).toBe(1_048_577);
    const file = fileOf(
      `${lineOf(long, MAX_LINE_BYTES + 1)}\n`,
      `${lineOf(limit, MAX_LINE_BYTES)}\r\n`,
      `${json({ user_email: next, user_password: password() })}\n`,
      `${'y'.repeat(5 * MAX_LINE_BYTES)}\n`,
    );
    const run = await admin('import-users', owner.ownerEmail, file);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      counts(2, 0, 2),
      failure(1, null, 'line too long') + failure(4, null, 'line too long'),
    ]);
    expect(await profile(owner.ownerEmail, long)).toBeUndefined();
    expect(await profile(owner.ownerEmail, limit)).toBeDefined();
    expect(await profile(owner.ownerEmail, next)).toBeDefined();
  }, 60_000);

  it('fails a line that gives a field twice, and one whose created_at does not exist', async () => {
    const owner = await newOwner('hostile-fields');
    const emails = Array.from({ length: 8 }, (_, i) => uniqueEmail(`fields-${i}`));
    const [first, second] = [password(), password()];
    const file = fileOf(
      `{"user_email":${json(emails[0])},"user_password":${json(first)},"user_email":${json(emails[1])}}\n`,
      `{"user_email":${json(emails[2])},"user_password":${json(first)},"user_password":${json(second)}}\n`,
      // The same name, escaped differently, is the same name.
      `{"user_email":${json(emails[3])},"user_password":${json(first)},"\\u0075ser_password":${json(second)}}\n`,
      // Names inside a nested object belong to a field the import ignores.
      `${json({ user_email: emails[4], user_password: first, extra: { user_password: 1 } }).replace('{"user_password":1}', '{"a":1,"a":2}')}\n`,
      `${json({ user_email: emails[5], user_password: first, created_at: '2026-02-30T00:00:00Z' })}\n`,
      `${json({ user_email: emails[6], user_password: first, created_at: '2026-01-01T25:00:00Z' })}\n`,
      `${json({ user_email: emails[7], user_password: first, created_at: '2024-02-29T23:30:00-01:00' })}\n`,
    );
    const run = await admin('import-users', owner.ownerEmail, file);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      counts(2, 0, 5),
      failure(1, null, 'duplicate field user_email') +
        failure(2, emails[2]!, 'duplicate field user_password') +
        failure(3, emails[3]!, 'duplicate field user_password') +
        failure(5, emails[5]!, 'invalid created_at') +
        failure(6, emails[6]!, 'invalid created_at'),
    ]);
    for (const i of [0, 1, 2, 3, 5, 6]) expect(await profile(owner.ownerEmail, emails[i]!)).toBeUndefined();
    expect(await profile(owner.ownerEmail, emails[4]!)).toBeDefined();
    expect((await profile(owner.ownerEmail, emails[7]!))!.created_at).toBe('2024-03-01T00:30:00.000Z');
    expect(run.stderr).not.toContain(first);
  }, 60_000);
});

describe('import-users refuses files it must not read or write', () => {
  /** Exit 2, nothing on stdout, exactly this one line on stderr. */
  const refused = (run: { code: number | null; stdout: string; stderr: string }, line: string) =>
    expect([run.code, run.stdout, run.stderr]).toEqual([2, '', `${line}\n`]);

  it('refuses an input that is not a regular file (a directory, a device, a FIFO with no writer) at once', async () => {
    const owner = await newOwner('hostile-input');
    const fifo = join(dir, 'no-writer.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const [path, kind] of [
      [dir, 'a directory'],
      ['/dev/null', 'a character device'],
      ['/dev/zero', 'a character device'],
      [fifo, 'a FIFO'],
    ] as const) {
      refused(
        await admin('import-users', owner.ownerEmail, path),
        `Cannot read ${path}: it is ${kind}; the import reads a regular file only`,
      );
    }
  }, 120_000);

  it('never writes the report over the input: not by its path, a symbolic link or a hard link', async () => {
    const owner = await newOwner('hostile-same');
    const email = uniqueEmail('same');
    const content = `${json({ user_email: email, user_password: password() })}\n`;
    const input = fileOf(content);
    const [link, hard] = [join(dir, 'link-to-input.jsonl'), join(dir, 'hard-link-to-input.jsonl')];
    symlinkSync(input, link);
    linkSync(input, hard);
    for (const report of [input, link, hard]) {
      refused(
        await admin('import-users', owner.ownerEmail, input, '--report', report),
        `Cannot create the report ${report}: it is the input file`,
      );
    }
    expect(readFileSync(input, 'utf8')).toBe(content);
    expect(await profile(owner.ownerEmail, email)).toBeUndefined();
  }, 120_000);

  it('never writes through a symbolic link, over an existing file, or into a missing folder, and imports nothing then', async () => {
    const owner = await newOwner('hostile-report');
    const email = uniqueEmail('report');
    const input = fileOf(`${json({ user_email: email, user_password: password() })}\n`);
    const target = join(dir, 'precious.txt');
    writeFileSync(target, 'precious\n', { mode: 0o644 });
    const [link, dangling] = [join(dir, 'report-link.jsonl'), join(dir, 'report-dangling.jsonl')];
    symlinkSync(target, link);
    symlinkSync(join(dir, 'nowhere.jsonl'), dangling);
    const missing = join(dir, 'no-such-folder', 'report.jsonl');
    for (const [report, why] of [
      [link, 'it is a symbolic link; the report is never written through one'],
      [dangling, 'it is a symbolic link; the report is never written through one'],
      [target, 'it exists; the report is always written to a new file'],
      [missing, 'its folder does not exist'],
    ] as const) {
      refused(await admin('import-users', owner.ownerEmail, input, '--report', report), `Cannot create the report ${report}: ${why}`);
    }
    expect([readFileSync(target, 'utf8'), statSync(target).mode & 0o777]).toEqual(['precious\n', 0o644]);
    expect(() => statSync(join(dir, 'nowhere.jsonl'))).toThrow();
    expect(await profile(owner.ownerEmail, email)).toBeUndefined();
  }, 120_000);

  it('creates the report new, with mode 0600', async () => {
    const owner = await newOwner('hostile-mode');
    const report = join(dir, 'new-report.jsonl');
    const run = await admin('import-users', owner.ownerEmail, fileOf('{"user_email":"not an e-mail"}\n'), '--report', report);
    expect([run.code, run.stdout, run.stderr]).toEqual([1, counts(0, 0, 1), '']);
    expect([readFileSync(report, 'utf8'), statSync(report).mode & 0o777]).toEqual([
      failure(1, 'not an e-mail', 'invalid user_email'),
      0o600,
    ]);
  }, 60_000);

  it('ends the import when the report cannot be written: the counts, one line, exit 1, no stack trace', async () => {
    const owner = await newOwner('hostile-full');
    const emails = Array.from({ length: 50 }, () => uniqueEmail('after-full'));
    const file = fileOf(
      ...Array.from({ length: 400 }, (_, i) => `${json({ user_email: `not an e-mail ${i}` })}\n`),
      ...emails.map(
        (email) => `${json({ user_email: email, password_hash: '$2b$04$abcdefghijklmnopqrstuuKq9KY8c7WJpV8VJm1xTgW7CB0wSxjJ.' })}\n`,
      ),
    );
    const report = join(dir, 'full-report.jsonl');
    const run = await runLimited(['import-users', owner.ownerEmail, file, '--report', report]);
    expect(run.code).toBe(1);
    const [countsLine, ...rest] = run.stdout.split('\n');
    expect(rest).toEqual(['']);
    const reported = JSON.parse(countsLine!) as { imported: number; exists: number; failed: number };
    const stop = run.stderr.match(
      /^Cannot write the report (.+) \(EFBIG\): the import stopped after line (\d+); run it again with a new --report to finish: imported lines report "exists"\n$/,
    );
    expect(stop?.[1]).toBe(report);
    const lastLine = Number(stop![2]);
    // Stopped before the end of the file; every line up to there has its outcome counted, none after.
    expect(lastLine).toBeLessThan(450);
    expect(reported.imported + reported.exists + reported.failed).toBe(lastLine);
    expect(statSync(report).size).toBeLessThanOrEqual(4096);
    for (const [i, email] of emails.entries())
      expect(await profile(owner.ownerEmail, email)).toEqual(401 + i <= lastLine ? expect.anything() : undefined);
  }, 60_000);
});

describe('export-users', () => {
  it('ends the export when its file cannot be written: one line, exit 1, no stack trace', async () => {
    const owner = await newOwner('hostile-export');
    const hash = '$2b$04$abcdefghijklmnopqrstuuKq9KY8c7WJpV8VJm1xTgW7CB0wSxjJ.';
    const input = fileOf(...Array.from({ length: 60 }, () => `${json({ user_email: uniqueEmail('export-full'), password_hash: hash })}\n`));
    expect((await admin('import-users', owner.ownerEmail, input)).stdout).toBe(counts(60, 0, 0));
    const output = join(dir, 'full-export.jsonl');
    const run = await runLimited(['export-users', owner.ownerEmail, '--output', output]);
    expect([run.code, run.stdout]).toEqual([1, '']);
    expect(run.stderr).toMatch(
      /^Cannot write (.+) \(EFBIG\): the export stopped after \d+ users and is incomplete; delete it and export again\n$/,
    );
    expect(run.stderr).toContain(output);
    expect(statSync(output).size).toBeLessThanOrEqual(4096);
  }, 120_000);
});

/** admin/cli.ts with a 4 KiB limit on the size of any file it writes (RLIMIT_FSIZE; Node ignores SIGXFSZ, so a write past it fails with EFBIG). */
function runLimited(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(
      'bash',
      ['-c', 'ulimit -f 4 && exec "$@"', 'bash', process.execPath, `${ROOT}node_modules/tsx/dist/cli.mjs`, `${ROOT}admin/cli.ts`, ...args],
      // tsx's cache of compiled files would be written under the same limit.
      { env: { ...env, TSX_DISABLE_CACHE: '1' }, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
