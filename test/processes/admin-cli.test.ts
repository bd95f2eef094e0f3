/** `npm run admin -- ...` against DynamoDB Local: one line of JSON on stdout, errors on stderr. */

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
import { OPERATIONS } from '#contract/operations';
import { digestApiKey } from '#domain/api-keys';
import { hourOf } from '#domain/owners';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as deleteUser } from '../../functions/deleteUser/handler';
import { invoke } from '../support/events';
import { uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { runScript } from '../support/processes';

const { config, stores } = processStores();

const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
const admin = (...args: string[]) => runScript('admin/cli.ts', args, env);

describe('admin CLI', () => {
  it('manages an owner and its keys', async () => {
    const email = uniqueEmail('cli-owner');

    const created = await admin('create-owner', email.toUpperCase());
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const first = JSON.parse(lines[0]!);
    expect(Object.keys(first)).toEqual(['owner_email', 'key_id', 'api_key', 'operations', 'expires_at']);
    expect(first).toEqual({
      owner_email: email,
      key_id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      api_key: expect.stringMatching(/^wlk_[A-Za-z0-9_-]{43}$/),
      operations: [...OPERATIONS],
      expires_at: null,
    });
    expect((await stores.owners.findApiKey(digestApiKey(first.api_key)))?.ownerEmail).toBe(email);

    const again = await admin('create-owner', email);
    expect(again.code).not.toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('already exists');

    const issued = await admin('issue-key', email);
    expect(issued.code).toBe(0);
    const second = JSON.parse(issued.stdout);
    expect(second.owner_email).toBe(email);
    expect(second.api_key).not.toBe(first.api_key);

    const revoked = await admin('revoke-key', second.key_id);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ key_id: second.key_id, owner_email: email, revoked: true });

    const listed = await admin('list-keys', email);
    expect(listed.code).toBe(0);
    const keys = JSON.parse(listed.stdout) as { key_id: string; revoked_at: string | null }[];
    expect(listed.stdout.trim().split('\n')).toHaveLength(1);
    expect(keys.map((k) => k.key_id).sort()).toEqual([first.key_id, second.key_id].sort());
    expect(keys.find((k) => k.key_id === second.key_id)!.revoked_at).toEqual(expect.any(String));
    expect(keys.find((k) => k.key_id === first.key_id)!.revoked_at).toBeNull();
    expect(listed.stdout).not.toContain('wlk_');
  }, 60_000);

  it('issues scoped and expiring keys, on issue-key and create-owner, and lists them with their last use', async () => {
    const email = uniqueEmail('cli-scopes');
    const before = Date.now();
    const created = await admin('create-owner', email, '--operations', 'deleteUser,createUser', '--expires-in', '30d');
    expect([created.code, created.stderr]).toEqual([0, '']);
    const owner = JSON.parse(created.stdout);
    // Stored and shown in the API's order, whatever order they were given in.
    expect(owner.operations).toEqual(['createUser', 'deleteUser']);
    const expiresIn = Date.parse(owner.expires_at) - before;
    expect(expiresIn).toBeGreaterThanOrEqual(30 * 86_400_000);
    expect(expiresIn).toBeLessThan(30 * 86_400_000 + 60_000);

    const issued = await admin('issue-key', email, '--operations', 'createUser', '--expires-at', '2099-12-31T23:00:00+02:00');
    expect(issued.code).toBe(0);
    const scoped = JSON.parse(issued.stdout);
    expect(Object.keys(scoped)).toEqual(['owner_email', 'key_id', 'api_key', 'operations', 'expires_at']);
    expect([scoped.operations, scoped.expires_at]).toEqual([['createUser'], '2099-12-31T21:00:00.000Z']);
    const dated = JSON.parse((await admin('issue-key', email, '--expires-at', '2099-06-01')).stdout);
    expect([dated.operations, dated.expires_at]).toEqual([[...OPERATIONS], '2099-06-01T00:00:00.000Z']);

    // The scoped key works for its operation (in process, as Lambda calls it) and is refused outside it.
    const user = uniqueEmail('cli-scoped-user');
    expect(await invoke(createUser, { user_email: user }, scoped.api_key)).toEqual({
      status: 200,
      body: { user_email: user, user_password: expect.any(String) },
    });
    expect(await invoke(deleteUser, { user_email: user }, scoped.api_key)).toEqual({
      status: 401,
      body: { message: MESSAGES.unauthorized },
    });
    const hour = hourOf(Date.now());
    // The last-use write is not awaited by the request: wait for it to land.
    await waitFor(async () => (await stores.owners.findApiKeyById(scoped.key_id))?.lastUsedAt, 5_000, 'last_used_at of the scoped key');

    const listed = await admin('list-keys', email);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(1);
    const keys = JSON.parse(listed.stdout) as Record<string, unknown>[];
    for (const key of keys) {
      expect(Object.keys(key)).toEqual(['key_id', 'operations', 'created_at', 'expires_at', 'revoked_at', 'last_used_at']);
    }
    // Oldest first.
    expect(keys.map((key) => key.key_id)).toEqual([owner.key_id, scoped.key_id, dated.key_id]);
    expect(keys[1]).toEqual({
      key_id: scoped.key_id,
      operations: ['createUser'],
      created_at: expect.any(String),
      expires_at: '2099-12-31T21:00:00.000Z',
      revoked_at: null,
      last_used_at: hour,
    });
    expect(keys[2]).toMatchObject({ operations: [...OPERATIONS], last_used_at: null });
    // Never a key, nor a digest.
    for (const { api_key } of [owner, scoped, dated]) {
      expect(listed.stdout).not.toContain(api_key.slice(4));
      expect(listed.stdout).not.toContain(digestApiKey(api_key));
    }
    expect(listed.stdout).not.toContain('wlk_');
  }, 90_000);

  it("show-owner prints the owner's id, the one a tool's sign-in module is configured with, as one JSON line", async () => {
    const email = uniqueEmail('cli-show');
    expect((await admin('create-owner', email)).code).toBe(0);
    const shown = await admin('show-owner', `  ${email.toUpperCase()} `);
    expect([shown.code, shown.stderr]).toEqual([0, '']);
    expect(shown.stdout.endsWith('\n') && shown.stdout.trim().split('\n').length).toBe(1);
    const printed = JSON.parse(shown.stdout) as Record<string, string>;
    expect(Object.keys(printed)).toEqual(['owner_email', 'owner_id']);
    expect(printed).toEqual({ owner_email: email, owner_id: (await stores.owners.findOwner(email))!.ownerId });
    // The id that keys its users, as the data contract says.
    const user = uniqueEmail('cli-show-user');
    const issued = JSON.parse((await admin('issue-key', email)).stdout) as { api_key: string };
    expect((await invoke(createUser, { user_email: user }, issued.api_key)).status).toBe(200);
    const item = await stores.client.send(
      new GetCommand({ TableName: config.usersTableName, Key: userKey(printed.owner_id!, user), ConsistentRead: true }),
    );
    expect(item.Item?.user_email).toBe(user);
  }, 60_000);

  it("--help prints the usage on stdout and exits 0; after a command, that command's usage only", async () => {
    for (const args of [['--help'], ['-h']]) {
      const result = await admin(...args);
      expect([args, result.code, result.stderr]).toEqual([args, 0, '']);
      expect(result.stdout).toMatch(/^usage: npm run admin -- <command>/);
      for (const text of ['create-owner', 'issue-key', 'list-keys', 'revoke-key', '--operations', '--expires-in', '--expires-at']) {
        expect(result.stdout).toContain(text);
      }
    }
    const own = await admin('issue-key', '--help');
    expect([own.code, own.stderr]).toEqual([0, '']);
    expect(own.stdout).toMatch(/^usage: npm run admin -- issue-key <email> \[scope\]\n/);
    for (const text of ['--operations', '--expires-in', '--expires-at', '--users-table']) expect(own.stdout).toContain(text);
    for (const text of ['list-keys', 'export-users', '--output', '--argon2']) expect(own.stdout).not.toContain(text);
  }, 60_000);

  it("hashes a clear password with the argon2id setting it is given, and refuses a deployed stage's tables without one", async () => {
    const email = uniqueEmail('cli-argon2');
    const created = await admin('create-owner', email, '--argon2', 'm=19456,t=2,p=1');
    expect([created.code, created.stderr]).toEqual([0, '']);
    const owner = await stores.owners.findOwner(email);
    const { Item } = await stores.client.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(owner!.ownerId, email) }));
    expect(Item?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

    // A deployed stage's tables (no local engine named): no silent default, nothing read or written.
    const { DYNAMODB_ENDPOINT: _endpoint, DYNAMODB_PORT: _port, ARGON2_SETTING: _setting, ...deployed } = env;
    const stage = { ...deployed, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' };
    const dir = mkdtempSync(join(tmpdir(), 'cli-argon2-'));
    const tables = ['--users-table', 'stage-users', '--owners-table', 'stage-owners'];
    const refusal =
      "A deployed stage's tables need its argon2id setting: --argon2 <the stack output Argon2Setting> (or ARGON2_SETTING); see --help\n";
    try {
      const runs = await Promise.all([
        runScript('admin/cli.ts', ['create-owner', uniqueEmail('stage'), ...tables], stage),
        runScript('admin/cli.ts', ['import-users', email, join(dir, 'users.jsonl'), '--report', join(dir, 'report.txt'), ...tables], stage),
      ]);
      expect(runs.map((run) => [run.code, run.stdout, run.stderr])).toEqual([
        [2, '', refusal],
        [2, '', refusal],
      ]);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses bad usage and unknown targets on stderr with a non-zero exit', async () => {
    const owner = uniqueEmail('cli-errors');
    expect((await admin('create-owner', owner)).code).toBe(0);
    const nobody = uniqueEmail('nobody');
    // [arguments, exit code, what stderr names]: 2 for a command line that cannot run (an unknown owner
    // or key included, as in import-users), 1 for a failure.
    // One of each kind through the real process; test/unit/key-commands.test.ts checks every option case.
    const cases: [string[], number, RegExp][] = [
      [[], 2, /no command/i],
      [['frobnicate', 'x'], 2, /unknown command/i],
      [['issue-key', nobody], 2, /no owner/i],
      [['list-keys', nobody], 2, /no owner/i],
      [['revoke-key', 'key_0000000000000000'], 2, /no key/i],
      [['show-owner', nobody], 2, /no owner/i],
      [['show-owner', owner, '--operations', 'createUser'], 2, /applies only to create-owner and issue-key/],
      [['create-owner', 'not-an-email'], 2, /invalid e-mail/i],
      [['issue-key', owner, '--operations', 'createUser,dropTable'], 2, /unknown operation "dropTable"/i],
      [['issue-key', owner, '--expires-at', '2020-01-01T00:00:00Z'], 2, /not in the future/],
      [['create-owner', nobody, '--expires-in', '1d', '--expires-at', '2099-01-01'], 2, /not both/],
      [['issue-key', owner, '--bogus'], 2, /unknown option '--bogus'/i],
      [['issue-key', owner, '--operations'], 2, /argument missing/],
    ];
    const results: Awaited<ReturnType<typeof admin>>[] = [];
    // A few at a time: each is a Node process.
    for (let i = 0; i < cases.length; i += 4) {
      results.push(...(await Promise.all(cases.slice(i, i + 4).map(([args]) => admin(...args)))));
    }
    cases.forEach(([args, code, pattern], i) => {
      const result = results[i]!;
      expect([args, result.code, result.stdout]).toEqual([args, code, '']);
      expect([args, result.stderr]).toEqual([args, expect.stringMatching(pattern)]);
      // One line, no stack trace.
      expect([args, result.stderr.trimEnd().split('\n')]).toEqual([args, [expect.any(String)]]);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
    // Nothing was issued for the owner by the refused commands.
    expect(JSON.parse((await admin('list-keys', owner)).stdout)).toHaveLength(1);
    expect(await stores.owners.findOwner(nobody)).toBeUndefined();
  }, 120_000);

  it('finds the local engine as npm start does: DYNAMODB_PORT when DYNAMODB_ENDPOINT is unset', async () => {
    const { DYNAMODB_ENDPOINT: endpoint, ...rest } = env;
    const email = uniqueEmail('cli-port');
    const created = await runScript('admin/cli.ts', ['create-owner', email], { ...rest, DYNAMODB_PORT: new URL(endpoint!).port });
    expect(created.code).toBe(0);
    expect((await stores.owners.findApiKey(digestApiKey(JSON.parse(created.stdout).api_key)))?.ownerEmail).toBe(email);

    const bad = await runScript('admin/cli.ts', ['list-keys', email], { ...rest, DYNAMODB_PORT: 'abc' });
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([1, '', 'DYNAMODB_PORT must be a port number from 1 to 65535, got "abc".\n']);
  }, 60_000);
});
