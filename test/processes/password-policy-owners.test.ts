/**
 * Each owner's own password policy: `admin set-password-policy` / `show-password-policy` against
 * DynamoDB Local, then the owner's minimum and blocked words enforced over real HTTP on the local
 * server, for that owner only (another owner's users are unaffected), and in force within the
 * key-cache TTL (1 s here: the policy travels with the cached key look-up).
 */

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';

// Before the pipeline reads its configuration (at its first import, below).
process.env.API_KEY_CACHE_TTL_SECONDS = '1';
const { apiClient } = await import('../support/http-client');
const { newOwner, startLocalServer, uniqueEmail } = await import('../support/local');
const { runScript } = await import('../support/processes');
const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
const { verifyPassword } = await import('#domain/passwords');
const { processStores } = await import('#store/stores');
const { userKey } = await import('#store/table-layout');

jest.setTimeout(120_000);

const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
const admin = (...args: string[]) => runScript('admin/cli.ts', args, env);

let server: Awaited<ReturnType<typeof startLocalServer>>;
let a: Awaited<ReturnType<typeof newOwner>>;
let b: Awaited<ReturnType<typeof newOwner>>;
beforeAll(async () => {
  server = await startLocalServer();
  [a, b] = await Promise.all([newOwner('policy-a'), newOwner('policy-b')]);
});
afterAll(() => server.close());

const random = (length: number) => randomBytes(length).toString('base64url').slice(0, length);

describe('admin set-password-policy and show-password-policy', () => {
  it('show prints the stage defaults for an owner without a policy, one JSON line', async () => {
    const shown = await admin('show-password-policy', a.ownerEmail.toUpperCase());
    expect([shown.code, shown.stderr]).toEqual([0, '']);
    expect(shown.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(shown.stdout)).toEqual({ owner_email: a.ownerEmail, min_length: 8, max_length: 1024, blocked_words: [] });
  });

  it('set stores the minimum and the blocked words (NFC, lower case, once each); a later set keeps what it does not name', async () => {
    const owner = await newOwner('policy-set');
    const set = await admin(
      'set-password-policy',
      owner.ownerEmail,
      '--min-length',
      '15',
      '--blocked-words',
      'AcmeCorp, acmecorp,Cafe\u0301Brand',
    );
    expect([set.code, set.stderr]).toEqual([0, '']);
    const expected = { owner_email: owner.ownerEmail, min_length: 15, max_length: 1024, blocked_words: ['acmecorp', 'caf\u00e9brand'] };
    expect(JSON.parse(set.stdout)).toEqual(expected);
    expect(JSON.parse((await admin('show-password-policy', owner.ownerEmail)).stdout)).toEqual(expected);
    const words = await admin('set-password-policy', owner.ownerEmail, '--blocked-words', '');
    expect(JSON.parse(words.stdout)).toEqual({ ...expected, blocked_words: [] });
  });

  it.each([
    [['set-password-policy'], /needs <email>/],
    [['set-password-policy', 'not-an-email', '--min-length', '10'], /Invalid e-mail address/],
    [['set-password-policy', 'x@example.com'], /needs --min-length or --blocked-words/],
    [['set-password-policy', 'x@example.com', '--min-length', '7'], /--min-length must be an integer from 8 to 64/],
    [['set-password-policy', 'x@example.com', '--min-length', '65'], /--min-length must be an integer from 8 to 64/],
    [['set-password-policy', 'x@example.com', '--min-length', 'ten'], /--min-length must be an integer from 8 to 64/],
    [['set-password-policy', 'x@example.com', '--blocked-words', 'abc'], /each blocked word must be 4 to 64 characters/],
    [['set-password-policy', 'x@example.com', '--blocked-words', 'a'.repeat(65)], /each blocked word must be 4 to 64 characters/],
    [
      ['set-password-policy', 'x@example.com', '--blocked-words', Array.from({ length: 101 }, (_, i) => `word${i}`).join(',')],
      /at most 100 words/,
    ],
    [['set-password-policy', 'x@example.com', '--colour', 'red'], /Unknown option '--colour'/],
    [['show-password-policy', 'x@example.com', '--min-length', '9'], /takes no options/],
    [['show-password-policy', 'a@example.com', 'b@example.com'], /takes one argument/],
  ])('%j: one line on stderr, exit 2, nothing on stdout', async (args, message) => {
    const result = await admin(...args);
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('an unknown owner: exit 2, one line', async () => {
    for (const command of ['set-password-policy', 'show-password-policy']) {
      const args = command === 'set-password-policy' ? ['--min-length', '12'] : [];
      const result = await admin(command, uniqueEmail('nobody'), ...args);
      expect([result.code, result.stdout]).toEqual([2, '']);
      expect(result.stderr).toMatch(/^No owner nobody-[0-9a-f]+@example\.com\n$/);
    }
  });

  it("each command's --help gives its own usage and exits 0", async () => {
    const set = await admin('set-password-policy', '--help');
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('set-password-policy <email> [--min-length N] [--blocked-words a,b,c]');
    const show = await admin('show-password-policy', '--help');
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('show-password-policy <email>');
    expect(show.stdout).not.toContain('--min-length');
  });
});

describe("an owner's policy over real HTTP: its users only", () => {
  beforeAll(async () => {
    const set = await admin(
      'set-password-policy',
      a.ownerEmail,
      '--min-length',
      '15',
      '--blocked-words',
      'acmewidgetsbrand,Zebra-Tool-Suite',
    );
    expect(set.code).toBe(0);
  });

  const create = (owner: typeof a, body: unknown) => apiClient(server.baseUrl, owner.apiKey)('/v1/createUser', body);
  const reset = (owner: typeof a, body: unknown) => apiClient(server.baseUrl, owner.apiKey)('/v1/resetUserPassword', body);

  it("the owner's raised minimum: 14 characters refused for A's users with A's minimum in the message; B's users take them", async () => {
    const short = random(14);
    const refused = await create(a, { user_email: uniqueEmail('a-short'), user_password: short });
    expect([refused.status, refused.body]).toEqual([400, { message: 'user_password must be between 15 and 1024 characters.' }]);
    const email = uniqueEmail('a-reset');
    expect((await create(a, { user_email: email, user_password: random(15) })).status).toBe(200);
    const resetRefused = await reset(a, { user_email: email, new_password: short });
    expect([resetRefused.status, resetRefused.body]).toEqual([400, { message: 'new_password must be between 15 and 1024 characters.' }]);
    expect((await create(b, { user_email: uniqueEmail('b-short'), user_password: short })).status).toBe(200);
  });

  it("the owner's blocked words, whole and in any case: refused for A's users, accepted for B's", async () => {
    for (const word of ['acmewidgetsbrand', 'ACMEWIDGETSBRAND', 'zebra-tool-suite', 'Zebra-Tool-Suite']) {
      const refused = await create(a, { user_email: uniqueEmail('a-word'), user_password: word });
      expect([refused.status, refused.body]).toEqual([400, { message: 'user_password is too easy to guess: choose another.' }]);
      expect((await create(b, { user_email: uniqueEmail('b-word'), user_password: word })).status).toBe(200);
    }
  });

  it("import-users holds a clear user_password to the owner's policy too: A's minimum and words refused, B's import takes them", async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'policy-import-'));
    try {
      const lines = [
        { user_email: uniqueEmail('import-short'), user_password: random(14) },
        { user_email: uniqueEmail('import-word'), user_password: 'Zebra-Tool-Suite' },
        { user_email: uniqueEmail('import-list'), user_password: 'iloveyou' },
      ];
      const file = join(dir, 'users.jsonl');
      writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
      const forA = await admin('import-users', a.ownerEmail, file, '--dry-run');
      expect([forA.code, forA.stdout]).toEqual([1, '{"imported":0,"exists":0,"failed":3}\n']);
      expect(forA.stderr.split('\n').filter((line) => line.startsWith('{'))).toEqual([
        JSON.stringify({ line: 1, user_email: lines[0]!.user_email, reason: 'user_password outside the password policy' }),
        JSON.stringify({ line: 2, user_email: lines[1]!.user_email, reason: 'user_password too easy to guess' }),
        // Shorter than A's minimum: the length comes first, as on the API.
        JSON.stringify({ line: 3, user_email: lines[2]!.user_email, reason: 'user_password outside the password policy' }),
      ]);
      // Owner B has no policy of its own: only the shipped list refuses.
      const forB = await admin('import-users', b.ownerEmail, file, '--dry-run');
      expect([forB.code, forB.stdout]).toEqual([1, '{"imported":2,"exists":0,"failed":1}\n']);
      expect(forB.stderr.split('\n').filter((line) => line.startsWith('{'))).toEqual([
        JSON.stringify({ line: 3, user_email: lines[2]!.user_email, reason: 'user_password too easy to guess' }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a blocked word inside a longer password is accepted (whole passwords only)', async () => {
    const response = await create(a, { user_email: uniqueEmail('a-inside'), user_password: `acmewidgetsbrand-${random(8)}` });
    expect(response.status).toBe(200);
  });
});

describe('a change is in force within the key-cache TTL', () => {
  it('a key looked up before the change gets the new minimum once its cache entry expires', async () => {
    const owner = await newOwner('policy-ttl');
    const call = apiClient(server.baseUrl, owner.apiKey);
    const password = random(12);
    expect((await call('/v1/createUser', { user_email: uniqueEmail('ttl-before'), user_password: password })).status).toBe(200);
    expect((await admin('set-password-policy', owner.ownerEmail, '--min-length', '13')).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const after = await call('/v1/createUser', { user_email: uniqueEmail('ttl-after'), user_password: password });
    expect([after.status, after.body]).toEqual([400, { message: 'user_password must be between 13 and 1024 characters.' }]);
  });
});

describe('NFC before the hash', () => {
  it('a password sent decomposed (NFD) is stored as the hash of its NFC form; a reset in NFD the same', async () => {
    const { config, stores } = processStores();
    const owner = await newOwner('policy-nfc');
    const ownerId = (await stores.owners.findOwner(owner.ownerEmail))!.ownerId;
    const call = apiClient(server.baseUrl, owner.apiKey);
    const storedHash = async (email: string) =>
      (await stores.client.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(ownerId, email) }))).Item
        ?.password_hash as string;
    const tail = random(8);
    const email = uniqueEmail('nfc');
    const created = await call('/v1/createUser', { user_email: email, user_password: `Cafe\u0301-${tail}` });
    expect([created.status, created.body]).toEqual([200, { user_email: email, user_password: `Cafe\u0301-${tail}` }]);
    expect(await verifyPassword(await storedHash(email), `Caf\u00e9-${tail}`)).toBe(true);
    expect(await verifyPassword(await storedHash(email), `Cafe\u0301-${tail}`)).toBe(false);
    expect((await call('/v1/resetUserPassword', { user_email: email, new_password: `Nai\u0308ve-${tail}` })).status).toBe(200);
    expect(await verifyPassword(await storedHash(email), `Na\u00efve-${tail}`)).toBe(true);
  });
});
