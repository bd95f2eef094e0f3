/**
 * The sign-in package (packages/sign-in/src/index.ts) run as a tool runs it, against DynamoDB Local, on users the
 * service itself stored: created through the createUser handler, or imported by the admin CLI with
 * hashes other tools made. Every outcome; NFC then as given; the upgrade to argon2id at the stage's
 * setting in one conditional update; the dummy verification for an unknown e-mail; the lockout past
 * 100 consecutive failures, ended by a reset; and, on the real stream, no lifecycle event for a
 * counter change or an upgrade.
 */

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hash as argon2Hash } from '@node-rs/argon2';
import { verifyHash } from '#domain/password-hashes';
import { MAX_FAILED_SIGN_INS, type SignInStore, signIn } from '#domain/sign-in';
import { formatArgon2Setting } from '#platform/config';
import { createDocumentClient, localConnection } from '#store/client';
import { createSignInStore } from '#store/sign-in-store';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as resetUserPassword } from '../../functions/resetUserPassword/handler';
import { createSignIn } from '../../packages/sign-in/src/index';
import { invoke } from '../support/events';
import { startTestDelivery } from '../support/lifecycle-events';
import { newOwner, uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { runScript } from '../support/processes';

const { config, stores } = processStores();
const endpoint = process.env.DYNAMODB_ENDPOINT!;
const setting = formatArgon2Setting(config.argon2);
const CURRENT = `$argon2id$v=19$${setting}$`;
const tool = createSignIn({ usersTable: config.usersTableName, argon2Setting: setting, dynamodb: localConnection(endpoint) });
const fixtures = JSON.parse(readFileSync(new URL('../fixtures/real-tool-hashes.json', import.meta.url), 'utf8')) as {
  hashes: { tool: string; password: string; hash: string; expected: string }[];
};
const dir = mkdtempSync(join(tmpdir(), 'sign-in-'));

let owner: { ownerEmail: string; apiKey: string; ownerId: string };
beforeAll(async () => {
  const made = await newOwner('sign-in');
  owner = { ...made, ownerId: (await stores.owners.findOwner(made.ownerEmail))!.ownerId };
});

const profile = async (email: string) =>
  (await stores.client.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(owner.ownerId, email), ConsistentRead: true })))
    .Item!;
const create = async (email: string, password: string, shouldReset = false) =>
  expect(
    (await invoke(createUser, { user_email: email, user_password: password, should_reset_password: shouldReset }, owner.apiKey)).status,
  ).toBe(200);
const reset = async (email: string, password: string) =>
  expect((await invoke(resetUserPassword, { user_email: email, new_password: password }, owner.apiKey)).status).toBe(200);
const signInAs = (email: string, password: string) => tool.signIn({ ownerId: owner.ownerId, email, password });
/** Imports users with these hashes through the admin CLI, as an operator does. */
async function importHashes(users: readonly { email: string; hash: string }[]) {
  const file = join(dir, `import-${users[0]!.email}.jsonl`);
  writeFileSync(file, users.map((u) => JSON.stringify({ user_email: u.email, password_hash: u.hash })).join('\n'));
  const run = await runScript('admin/cli.ts', ['import-users', owner.ownerEmail, file], { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' });
  expect([run.code, run.stderr]).toEqual([0, '']);
}

/** The domain's sign-in on the real adapter, with the verifications and UpdateItem calls it made recorded. */
function observed() {
  const verified: string[] = [];
  const updates: string[] = [];
  const db = createDocumentClient({ endpoint });
  db.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'UpdateItemCommand') updates.push(String((args.input as { UpdateExpression?: string }).UpdateExpression));
      return next(args);
    },
    { step: 'initialize' },
  );
  const store = createSignInStore(db, config.usersTableName);
  const verify = (stored: string, password: string) => {
    verified.push(stored);
    return verifyHash(stored, password);
  };
  return {
    verified,
    updates,
    store,
    run: (email: string, password: string, s: SignInStore = store) =>
      signIn({ store: s, setting: config.argon2, verify }, { ownerId: owner.ownerId, email, password }),
  };
}

describe('outcomes', () => {
  it('ok, wrong, must-reset, and wrong for an unknown e-mail; the e-mail as typed', async () => {
    const [email, flagged] = [uniqueEmail('outcome'), uniqueEmail('flagged')];
    await create(email, 'the right password');
    await create(flagged, 'must change this', true);
    expect(await signInAs(`  ${email.toUpperCase()} `, 'the right password')).toEqual({ outcome: 'ok' });
    expect(await signInAs(email, 'the wrong password')).toEqual({ outcome: 'wrong' });
    expect(await signInAs(flagged, 'must change this')).toEqual({ outcome: 'must-reset' });
    expect(await signInAs(flagged, 'not the password')).toEqual({ outcome: 'wrong' });
    expect(await signInAs(uniqueEmail('nobody'), 'the right password')).toEqual({ outcome: 'wrong' });
    // The other owner's user of the same e-mail is not this one.
    const other = await newOwner('sign-in-other');
    expect((await invoke(createUser, { user_email: email, user_password: 'other tool password' }, other.apiKey)).status).toBe(200);
    expect(await signInAs(email, 'other tool password')).toEqual({ outcome: 'wrong' });
    // A successful sign-in leaves no count behind; a wrong one leaves the hash as it was.
    expect(await signInAs(email, 'the right password')).toEqual({ outcome: 'ok' });
    expect((await profile(email)).failed_sign_ins).toBeUndefined();
    await expect(tool.signIn({ ownerId: owner.ownerId, email, password: undefined as unknown as string })).rejects.toThrow(
      'signIn: password must be a string',
    );
  }, 60_000);
});

describe('NFC, then the password as given', () => {
  const nfc = 'Café crème brûlée';
  const nfd = nfc.normalize('NFD');

  it('an NFD password signs in given as NFC, and an NFC one given as NFD', async () => {
    expect(nfd).not.toBe(nfc);
    const [a, b] = [uniqueEmail('nfc-created'), uniqueEmail('nfd-created')];
    await create(a, nfc);
    expect(await signInAs(a, nfd)).toEqual({ outcome: 'ok' });
    expect(await signInAs(a, nfc)).toEqual({ outcome: 'ok' });
    await create(b, nfd);
    expect(await signInAs(b, nfd)).toEqual({ outcome: 'ok' });
    expect(await signInAs(b, nfc)).toEqual({ outcome: 'ok' });
    expect((await profile(b)).password_hash).toMatch(CURRENT);
  }, 60_000);

  it('created as NFD through the API, the very first sign-in as NFC succeeds at once: the service hashed the NFC form', async () => {
    const email = uniqueEmail('nfd-api');
    await create(email, nfd);
    const stored = (await profile(email)).password_hash as string;
    expect([await verifyHash(stored, nfc), await verifyHash(stored, nfd)]).toEqual([true, false]);
    const seen = observed();
    expect(await seen.run(email, nfc)).toEqual({ outcome: 'ok' });
    // One verification (NFC matched first), and no rehash: the hash is already at the stage's setting.
    expect(seen.verified).toEqual([stored]);
    expect((await profile(email)).password_hash).toBe(stored);
  }, 60_000);

  it('a hash made before NFC (of the NFD string itself) signs in, and is rehashed from the NFC form', async () => {
    const email = uniqueEmail('pre-nfc');
    const before = await argon2Hash(nfd, { algorithm: 2, ...config.argon2 });
    await importHashes([{ email, hash: before }]);
    const seen = observed();
    expect(await seen.run(email, nfd)).toEqual({ outcome: 'ok' });
    // NFC first (no match), then as given (the match).
    expect(seen.verified).toEqual([before, before]);
    const after = (await profile(email)).password_hash as string;
    expect(after).not.toBe(before);
    expect([after.startsWith(CURRENT), await verifyHash(after, nfc)]).toEqual([true, true]);
    seen.verified.length = 0;
    expect(await seen.run(email, nfc)).toEqual({ outcome: 'ok' });
    expect(seen.verified).toEqual([after]);
  }, 60_000);
});

describe('imported hashes', () => {
  const chosen = fixtures.hashes.filter(
    (f) =>
      f.expected === 'accepted' && /htpasswd|2a rounds=4|django .* pbkdf2|passlib django|argon2i |PASSWORD_ARGON2I|m=19456/.test(f.tool),
  );

  it('bcrypt, PBKDF2 and argon2 hashes from other tools sign in and become argon2id at the setting, in one conditional update', async () => {
    expect(new Set(chosen.map((f) => f.hash.split('$')[f.hash.startsWith('$') ? 1 : 0]))).toEqual(
      new Set(['2a', '2y', 'argon2i', 'argon2id', 'pbkdf2_sha256']),
    );
    const users = chosen.map((f) => ({ ...f, email: uniqueEmail('imported') }));
    await importHashes(users);
    for (const user of users) {
      const seen = observed();
      expect([user.tool, await seen.run(user.email, `${user.password}?`)]).toEqual([user.tool, { outcome: 'wrong' }]);
      expect([user.tool, await seen.run(user.email, user.password)]).toEqual([user.tool, { outcome: 'ok' }]);
      // Two counted attempts, then one update that clears the count and replaces the hash.
      expect(seen.updates).toEqual(['ADD #failed :one', 'ADD #failed :one', 'REMOVE #failed SET password_hash = :new, #rehashed = :at']);
      const item = await profile(user.email);
      expect(item.password_hash).toMatch(CURRENT);
      expect(await verifyHash(item.password_hash as string, user.password)).toBe(true);
      expect([item.failed_sign_ins, typeof item.password_rehashed_at]).toEqual([undefined, 'string']);
      expect(await signInAs(user.email, user.password)).toEqual({ outcome: 'ok' });
    }
  }, 120_000);

  it('the upgrade replaces only the hash it verified: a reset in between wins', async () => {
    const email = uniqueEmail('raced');
    const bcrypt = fixtures.hashes.find((f) => f.tool.includes('2a rounds=4'))!;
    await importHashes([{ email, hash: bcrypt.hash }]);
    const seen = observed();
    const racing: SignInStore = {
      startAttempt: async (...args) => {
        const started = await seen.store.startAttempt(...args);
        await reset(email, 'reset meanwhile');
        return started;
      },
      succeed: (...args) => seen.store.succeed(...args),
    };
    expect(await seen.run(email, bcrypt.password, racing)).toEqual({ outcome: 'ok' });
    expect(await signInAs(email, 'reset meanwhile')).toEqual({ outcome: 'ok' });
    expect(await signInAs(email, bcrypt.password)).toEqual({ outcome: 'wrong' });
  }, 60_000);
});

describe('an unknown e-mail costs what a known one does', () => {
  it('verifies against a hash at the stage setting, once per form of the password, as for a known user', async () => {
    const email = uniqueEmail('known');
    await create(email, 'known password');
    for (const password of ['plain wrong one', 'wrong Café'.normalize('NFD')]) {
      const known = observed();
      const unknown = observed();
      expect(await known.run(email, password)).toEqual({ outcome: 'wrong' });
      expect(await unknown.run(uniqueEmail('unknown'), password)).toEqual({ outcome: 'wrong' });
      expect(unknown.verified.length).toBe(known.verified.length);
      for (const stored of [...known.verified, ...unknown.verified]) expect(stored).toMatch(CURRENT);
      expect(unknown.verified[0]).not.toBe(known.verified[0]);
    }
  }, 60_000);
});

describe('consecutive failures', () => {
  it(`refuses past ${MAX_FAILED_SIGN_INS}, even in parallel and with the right password, until a reset`, async () => {
    const email = uniqueEmail('locked');
    await create(email, 'the right password');
    // A success ends a run of failures.
    for (let i = 0; i < 5; i++) expect(await signInAs(email, `wrong ${i}`)).toEqual({ outcome: 'wrong' });
    expect((await profile(email)).failed_sign_ins).toBe(5);
    expect(await signInAs(email, 'the right password')).toEqual({ outcome: 'ok' });
    expect((await profile(email)).failed_sign_ins).toBeUndefined();
    // 130 guesses at once: each is counted before it is verified, so exactly 100 are tried.
    const outcomes = await Promise.all(Array.from({ length: 130 }, (_, i) => signInAs(email, `guess ${i}`)));
    const tally = (name: string) => outcomes.filter((o) => o.outcome === name).length;
    expect([tally('wrong'), tally('locked')]).toEqual([MAX_FAILED_SIGN_INS, 30]);
    expect((await profile(email)).failed_sign_ins).toBe(MAX_FAILED_SIGN_INS);
    const seen = observed();
    expect(await seen.run(email, 'the right password')).toEqual({ outcome: 'locked' });
    // Locked answers after the same dummy verification as an unknown e-mail, and counts nothing.
    expect([seen.verified.length, seen.verified[0]?.startsWith(CURRENT)]).toEqual([1, true]);
    expect((await profile(email)).failed_sign_ins).toBe(MAX_FAILED_SIGN_INS);
    await reset(email, 'a new password now');
    expect((await profile(email)).failed_sign_ins).toBeUndefined();
    expect(await signInAs(email, 'a new password now')).toEqual({ outcome: 'ok' });
  }, 120_000);
});

describe('lifecycle events on the real stream', () => {
  let delivery: Awaited<ReturnType<typeof startTestDelivery>>;
  // Starting the delivery skips the stream's history, which the whole suite's writes make long.
  beforeAll(async () => {
    delivery = await startTestDelivery();
  }, 60_000);
  afterAll(async () => {
    await delivery?.stop();
  });
  const about = (email: string) =>
    delivery
      .events()
      .filter((e) => e.detail.owner_id === owner.ownerId && e.detail.user_email === email)
      .map((e) => e['detail-type']);

  it('none for a counter change or an upgrade; one UserPasswordReset for a reset', async () => {
    const [created, imported, marker] = [uniqueEmail('ev-created'), uniqueEmail('ev-imported'), uniqueEmail('ev-marker')];
    await create(created, 'created password');
    const pbkdf2 = fixtures.hashes.find((f) => f.tool.startsWith('passlib django'))!;
    await importHashes([{ email: imported, hash: pbkdf2.hash }]);
    for (const email of [created, imported]) await waitFor(() => about(email)[0], 5_000, `UserCreated of ${email}`);
    expect(await signInAs(created, 'wrong')).toEqual({ outcome: 'wrong' });
    expect(await signInAs(created, 'created password')).toEqual({ outcome: 'ok' });
    expect(await signInAs(imported, 'wrong')).toEqual({ outcome: 'wrong' });
    expect(await signInAs(imported, pbkdf2.password)).toEqual({ outcome: 'ok' });
    expect((await profile(imported)).password_hash).toMatch(CURRENT);
    await reset(created, 'reset password');
    // A later write's event shows the stream was read past every write above.
    await create(marker, 'marker password');
    await waitFor(() => about(marker)[0], 5_000, 'the marker');
    await waitFor(() => (about(created).length >= 2 ? true : undefined), 5_000, 'the reset');
    expect([about(created), about(imported)]).toEqual([['UserCreated', 'UserPasswordReset'], ['UserCreated']]);
  }, 60_000);
});
