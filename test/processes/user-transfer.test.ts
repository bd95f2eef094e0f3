/**
 * docs/migration.md, the contract's "Moving users in and out": `admin import-users` and
 * `admin export-users` as real processes against DynamoDB Local. Every accepted hash format signs
 * in after import as the data contract shows, every failure reason writes nothing, a rerun and a
 * dry run change nothing, an API create racing an import keeps one user, and an export imports
 * unchanged into another owner.
 */

import { pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from '@jest/globals';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as deleteUser } from '../../functions/deleteUser/handler';
import { handler as resetUserPassword } from '../../functions/resetUserPassword/handler';
import { invoke } from '../support/events';
import { newOwner, uniqueEmail } from '../support/local';
import { runScript } from '../support/processes';

const { config, stores } = processStores();
const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
const admin = (...args: string[]) => runScript('admin/cli.ts', args, env);
const dir = mkdtempSync(join(tmpdir(), 'transfer-'));

const fileOf = (name: string, lines: readonly (object | string)[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`);
  return path;
};
const ownerIdOf = async (email: string) => (await stores.owners.findOwner(email))!.ownerId;
const profile = async (ownerId: string, email: string) =>
  (await stores.client.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(ownerId, email), ConsistentRead: true }))).Item;

/** Django's PBKDF2-SHA256 hash of `password`. */
const django = (password: string, iterations = 1_000) => {
  const salt = randomBytes(9).toString('hex');
  return `pbkdf2_sha256$${iterations}$${salt}$${pbkdf2Sync(password, salt, iterations, 32, 'sha256').toString('base64')}`;
};

/** The data contract's sign-in: verify the stored hash whatever its format. */
async function signIn(stored: string, password: string): Promise<boolean> {
  if (stored.startsWith('$argon2')) return argon2Verify(stored, password);
  if (/^\$2[aby]\$/.test(stored)) return bcrypt.compare(password, stored);
  const [, iterations, salt, key] = stored.split('$');
  const derived = pbkdf2Sync(password, salt!, Number(iterations), 32, 'sha256');
  return timingSafeEqual(derived, Buffer.from(key!, 'base64'));
}

describe('import-users', () => {
  it('imports every accepted format, and each signs in as the data contract shows', async () => {
    const owner = await newOwner('import-formats');
    const users = {
      argon2id: {
        email: uniqueEmail('argon2id'),
        password: 'argon2id password',
        hash: await argon2Hash('argon2id password', { algorithm: 2 }),
      },
      argon2i: {
        email: uniqueEmail('argon2i'),
        password: 'argon2i password',
        hash: await argon2Hash('argon2i password', { algorithm: 1 }),
      },
      bcrypt2a: {
        email: uniqueEmail('bcrypt-a'),
        password: 'bcrypt a password',
        hash: bcrypt.hashSync('bcrypt a password', 4).replace(/^\$2b\$/, '$2a$'),
      },
      bcrypt2b: { email: uniqueEmail('bcrypt-b'), password: 'bcrypt b password', hash: bcrypt.hashSync('bcrypt b password', 5) },
      bcrypt2y: {
        email: uniqueEmail('bcrypt-y'),
        password: 'bcrypt y password',
        hash: bcrypt.hashSync('bcrypt y password', 4).replace(/^\$2b\$/, '$2y$'),
      },
      pbkdf2: { email: uniqueEmail('django'), password: 'django password', hash: django('django password') },
    };
    const clear = { email: uniqueEmail('clear'), password: 'a password in clear' };
    const file = fileOf('formats.jsonl', [
      ...Object.values(users).map((u, i) => ({
        user_email: u.email.toUpperCase(),
        password_hash: u.hash,
        should_reset_password: i % 2 === 0,
        extra: 'ignored',
      })),
      { user_email: clear.email, user_password: clear.password, created_at: '2020-01-02T03:04:05Z' },
      '',
    ]);
    const run = await admin('import-users', owner.ownerEmail, file);
    expect([run.code, run.stdout]).toEqual([0, `${JSON.stringify({ imported: 7, exists: 0, failed: 0 })}\n`]);
    const ownerId = await ownerIdOf(owner.ownerEmail);
    for (const [i, u] of Object.values(users).entries()) {
      const item = (await profile(ownerId, u.email))!;
      expect([item.password_hash, item.should_reset_password]).toEqual([u.hash, i % 2 === 0]);
      expect(await signIn(item.password_hash as string, u.password)).toBe(true);
      expect(await signIn(item.password_hash as string, 'a wrong password')).toBe(false);
    }
    const hashed = (await profile(ownerId, clear.email))!;
    expect(hashed.password_hash).toMatch(/^\$argon2id\$v=19\$m=7168,t=5,p=1\$/);
    expect(await signIn(hashed.password_hash as string, clear.password)).toBe(true);
    expect(hashed.created_at).toBe('2020-01-02T03:04:05.000Z');
    // No password, hash or line in any output.
    for (const secret of [...Object.values(users).flatMap((u) => [u.password, u.hash]), clear.password]) {
      expect(run.stdout + run.stderr).not.toContain(secret);
    }
    // The data contract's upgrade at sign-in: one conditional update that replaces only the hash it read.
    const upgrade = (stored: string, password: string) =>
      argon2Hash(password, { algorithm: 2, ...config.argon2 }).then((upgraded) =>
        stores.client.send(
          new UpdateCommand({
            TableName: config.usersTableName,
            Key: userKey(ownerId, users.pbkdf2.email),
            UpdateExpression: 'SET password_hash = :new, updated_at = :now',
            ConditionExpression: 'password_hash = :old AND attribute_not_exists(white_label)',
            ExpressionAttributeValues: { ':new': upgraded, ':old': stored, ':now': new Date().toISOString() },
          }),
        ),
      );
    await upgrade(users.pbkdf2.hash, users.pbkdf2.password);
    const upgraded = (await profile(ownerId, users.pbkdf2.email))!.password_hash as string;
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=7168,t=5,p=1\$/);
    expect(await signIn(upgraded, users.pbkdf2.password)).toBe(true);
    await expect(upgrade(users.pbkdf2.hash, users.pbkdf2.password)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    // A user like any other: reset rewrites the imported bcrypt hash as argon2id.
    expect((await invoke(resetUserPassword, { user_email: users.bcrypt2b.email, new_password: 'now argon2id' }, owner.apiKey)).status).toBe(
      200,
    );
    expect((await profile(ownerId, users.bcrypt2b.email))!.password_hash).toMatch(/^\$argon2id\$/);
  }, 60_000);

  it('reports every failure reason, line by line, and writes nothing for those lines', async () => {
    const owner = await newOwner('import-failures');
    const good = uniqueEmail('good');
    const lines = [
      'not json at all',
      { user_email: 'not an e-mail', user_password: 'long enough' },
      { user_email: uniqueEmail('nopass') },
      { user_email: uniqueEmail('both'), user_password: 'long enough', password_hash: django('x') },
      { user_email: uniqueEmail('md5'), password_hash: '5f4dcc3b5aa765d61d8327deb882cf99' },
      { user_email: uniqueEmail('short'), user_password: 'short' },
      { user_email: uniqueEmail('flag'), user_password: 'long enough', should_reset_password: 'true' },
      { user_email: uniqueEmail('when'), user_password: 'long enough', created_at: 'yesterday' },
      { user_email: owner.ownerEmail.toUpperCase(), user_password: 'long enough' },
      { user_email: good, user_password: 'long enough' },
      { user_email: ` ${good.toUpperCase()} `, password_hash: django('y') },
    ];
    const report = join(dir, 'failures-report.jsonl');
    const run = await admin('import-users', owner.ownerEmail, fileOf('failures.jsonl', lines), '--report', report);
    expect([run.code, JSON.parse(run.stdout)]).toEqual([1, { imported: 1, exists: 0, failed: 10 }]);
    const reported = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(reported.map((r) => [r.line, r.reason])).toEqual([
      [1, 'not JSON'],
      [2, 'invalid user_email'],
      [3, 'password_hash or user_password required'],
      [4, 'password_hash and user_password both given'],
      [5, 'unsupported password_hash format'],
      [6, 'user_password outside the password policy'],
      [7, 'should_reset_password must be a boolean'],
      [8, 'invalid created_at'],
      [9, 'white label user'],
      [11, 'duplicate of line 10'],
    ]);
    expect(reported[0].user_email).toBeNull();
    expect(reported[1].user_email).toBe('not an e-mail');
    expect(readFileSync(report, 'utf8')).not.toContain('long enough');
    const ownerId = await ownerIdOf(owner.ownerEmail);
    for (const line of lines.slice(2, 8)) expect(await profile(ownerId, (line as { user_email: string }).user_email)).toBeUndefined();
    // The owner's own account is left as it was: still white-label, no new hash.
    expect((await profile(ownerId, owner.ownerEmail))!.white_label).toBe(true);
  }, 60_000);

  it('is safe to run again, and a dry run counts the same without writing', async () => {
    const owner = await newOwner('import-rerun');
    const emails = Array.from({ length: 30 }, () => uniqueEmail('rerun'));
    const file = fileOf(
      'rerun.jsonl',
      emails.map((user_email) => ({ user_email, password_hash: django('same password') })),
    );
    const dry = await admin('import-users', owner.ownerEmail, file, '--dry-run');
    expect([dry.code, JSON.parse(dry.stdout)]).toEqual([0, { imported: 30, exists: 0, failed: 0 }]);
    const ownerId = await ownerIdOf(owner.ownerEmail);
    for (const email of emails) expect(await profile(ownerId, email)).toBeUndefined();
    expect(JSON.parse((await admin('import-users', owner.ownerEmail, file)).stdout)).toEqual({ imported: 30, exists: 0, failed: 0 });
    const before = await Promise.all(emails.map((email) => profile(ownerId, email)));
    const again = await admin('import-users', owner.ownerEmail, file);
    expect([again.code, JSON.parse(again.stdout)]).toEqual([0, { imported: 0, exists: 30, failed: 0 }]);
    expect(JSON.parse((await admin('import-users', owner.ownerEmail, file, '--dry-run')).stdout)).toEqual({
      imported: 0,
      exists: 30,
      failed: 0,
    });
    expect(await Promise.all(emails.map((email) => profile(ownerId, email)))).toEqual(before);
  }, 60_000);

  it("an imported user is any owner's user: another owner's key cannot reset, delete or re-import it; its own can", async () => {
    const owner = await newOwner('import-tenancy');
    const other = await newOwner('import-other');
    const email = uniqueEmail('imported-tenant');
    const file = fileOf('tenancy.jsonl', [{ user_email: email, password_hash: django('tenant password') }]);
    expect(JSON.parse((await admin('import-users', owner.ownerEmail, file)).stdout)).toEqual({ imported: 1, exists: 0, failed: 0 });
    const notFound = { status: 404, body: { message: MESSAGES.userNotFound } };
    expect(await invoke(resetUserPassword, { user_email: email, new_password: 'not yours at all' }, other.apiKey)).toMatchObject(notFound);
    expect(await invoke(deleteUser, { user_email: email }, other.apiKey)).toMatchObject(notFound);
    // The other owner importing the same e-mail gets a user of its own, and leaves this one as it was.
    const before = await profile(await ownerIdOf(owner.ownerEmail), email);
    expect(JSON.parse((await admin('import-users', other.ownerEmail, file)).stdout)).toEqual({ imported: 1, exists: 0, failed: 0 });
    expect(await profile(await ownerIdOf(owner.ownerEmail), email)).toEqual(before);
    expect((await invoke(deleteUser, { user_email: email }, owner.apiKey)).status).toBe(200);
    expect(await profile(await ownerIdOf(owner.ownerEmail), email)).toBeUndefined();
    expect(await profile(await ownerIdOf(other.ownerEmail), email)).toBeDefined();
  }, 60_000);

  it('keeps one user when an API create races the import of the same e-mail', async () => {
    const owner = await newOwner('import-race');
    const emails = Array.from({ length: 20 }, () => uniqueEmail('race'));
    const file = fileOf(
      'race.jsonl',
      emails.map((user_email) => ({ user_email, password_hash: django('imported password') })),
    );
    const [imported, ...creates] = await Promise.all([
      admin('import-users', owner.ownerEmail, file),
      ...emails.map((user_email) => invoke(createUser, { user_email, user_password: 'created by the API' }, owner.apiKey)),
    ]);
    const counts = JSON.parse(imported!.stdout) as { imported: number; exists: number };
    const created = creates.filter((response) => response.status === 200).length;
    expect(
      creates.every((response) => response.status === 200 || (response.status === 409 && response.body.message === MESSAGES.userExists)),
    ).toBe(true);
    // Each e-mail went to exactly one of them.
    expect([counts.imported + created, counts.exists, creates.length - created]).toEqual([20, created, counts.imported]);
  }, 60_000);

  it('prints a plain progress line every 10,000 lines when stderr is not a terminal', async () => {
    const owner = await newOwner('import-progress');
    const lines = Array.from({ length: 20_500 }, (_, i) => ({ user_email: `not an e-mail ${i}`, password_hash: django('p') }));
    const run = await admin(
      'import-users',
      owner.ownerEmail,
      fileOf('progress.jsonl', lines),
      '--report',
      join(dir, 'progress-report.jsonl'),
    );
    expect([run.code, JSON.parse(run.stdout)]).toEqual([1, { imported: 0, exists: 0, failed: 20_500 }]);
    expect(run.stderr).toBe('10000 lines read: 0 imported, 0 exist, 10000 failed\n20000 lines read: 0 imported, 0 exist, 20000 failed\n');
  }, 60_000);

  it('refuses a command line it cannot run with exit 2 and one line', async () => {
    const owner = await newOwner('import-usage');
    for (const args of [
      ['import-users', 'nobody@example.com', fileOf('x.jsonl', [])],
      ['import-users', owner.ownerEmail, join(dir, 'missing.jsonl')],
      ['import-users', owner.ownerEmail],
      ['import-users', owner.ownerEmail, 'a', '--bogus'],
    ]) {
      const run = await admin(...args);
      expect([args, run.code, run.stdout, run.stderr.trim().split('\n')]).toEqual([args, 2, '', [expect.any(String)]]);
    }
  }, 60_000);
});

describe('export-users', () => {
  it('writes one line per user, not the owner, to a new 0600 file, and the file imports unchanged into another owner', async () => {
    const source = await newOwner('export-from');
    const emails = [uniqueEmail('exp-a'), uniqueEmail('exp-b')];
    await invoke(createUser, { user_email: emails[0], user_password: 'first exported', should_reset_password: true }, source.apiKey);
    await invoke(createUser, { user_email: emails[1], user_password: 'second exported' }, source.apiKey);
    const output = join(dir, `export-${Date.now()}.jsonl`);
    const run = await admin('export-users', source.ownerEmail, '--output', output);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('password hashes');
    expect(statSync(output).mode & 0o777).toBe(0o600);
    const lines = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.user_email).sort()).toEqual([...emails].sort());
    expect(Object.keys(lines[0])).toEqual(['user_email', 'password_hash', 'should_reset_password', 'created_at']);
    expect((await admin('export-users', source.ownerEmail, '--output', output)).code).toBe(2);

    const target = await newOwner('export-to');
    expect(JSON.parse((await admin('import-users', target.ownerEmail, output)).stdout)).toEqual({ imported: 2, exists: 0, failed: 0 });
    const [sourceId, targetId] = [await ownerIdOf(source.ownerEmail), await ownerIdOf(target.ownerEmail)];
    for (const [i, email] of emails.entries()) {
      const [before, after] = [(await profile(sourceId, email))!, (await profile(targetId, email))!];
      expect([after.password_hash, after.should_reset_password, after.created_at]).toEqual([
        before.password_hash,
        before.should_reset_password,
        before.created_at,
      ]);
      expect(await signIn(after.password_hash as string, i === 0 ? 'first exported' : 'second exported')).toBe(true);
    }
  }, 60_000);
});
