/**
 * The sign-in package (packages/sign-in/src/index.ts) run as a tool runs it, against DynamoDB Local, on users the
 * service itself stored: created through the createUser handler, or imported by the admin CLI with
 * hashes other tools made. Every outcome of the contract's table; NFC then as given; the upgrade to
 * argon2id at the stage's setting; bcrypt's 72 bytes; a reset that wins a race; the growing waits
 * and NIST's limit under a fake clock and in parallel; an unknown e-mail told apart neither by its
 * outcomes nor by the store operations it causes; what is kept for it; changePassword; and, on the
 * real stream, no sign-in write passing the consumer's filter.
 */

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { verifyHash } from '#domain/password-hashes';
import { passesRecordFilter } from '#events/record-filter';
import { formatArgon2Setting } from '#platform/config';
import { changePassword } from '#sign-in/domain/change-password';
import { createCostlyLane } from '#sign-in/domain/costly-lane';
import { checkSession } from '#sign-in/domain/sessions';
import { type SignInDeps, type SignInStore, signIn } from '#sign-in/domain/sign-in';
import {
  FREE_FAILURES,
  fastestLockoutSeconds,
  hashTag,
  NO_PROFILE_TAG,
  UNKNOWN_STATE_DAYS,
  UNTRUSTED_FAILURE_LIMIT,
  waitAfterFailure,
} from '#sign-in/domain/sign-in-attempts';
import { listDevices, revokeDevices } from '#sign-in/domain/sign-in-devices';
import { createSignInStore } from '#sign-in/store/sign-in-store';
import { localConnection } from '#store/client';
import { processStores } from '#store/stores';
import { SIGN_IN_SK, signInStateKey, userKey, userPk } from '#store/table-layout';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as deleteUser } from '../../functions/deleteUser/handler';
import { handler as resetUserPassword } from '../../functions/resetUserPassword/handler';
import { SIGN_IN_ACTIONS } from '../../lib/constructs/sign-in-grant';
import { createSignIn } from '../../packages/sign-in/src/index';
import { invoke } from '../support/events';
import { decide, iamRequests, synthesizedGrant, tableArn } from '../support/iam-policy';
import { startTestDelivery } from '../support/lifecycle-events';
import { newOwner, uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { runScript } from '../support/processes';
import { plainOutcomes, withoutCookie } from '../support/sign-in-results';
import { keysOf, watchStream } from '../support/stream-records';

const { config, stores } = processStores();
const endpoint = process.env.DYNAMODB_ENDPOINT!;
const setting = formatArgon2Setting(config.argon2);
const CURRENT = `$argon2id$v=19$${setting}$`;
/** The tools' clock: every sign-in here reads it, and the tests move it (never backwards). */
let clock = Date.now();
const tool = plainOutcomes(
  createSignIn({
    usersTable: config.usersTableName,
    signInTable: config.signInTableName,
    argon2Setting: setting,
    dynamodb: localConnection(endpoint),
    now: () => clock,
  }),
);
const lane = createCostlyLane();
const fixtures = JSON.parse(readFileSync(new URL('../fixtures/real-tool-hashes.json', import.meta.url), 'utf8')) as {
  hashes: { tool: string; password: string; hash: string; expected: string }[];
};
const dir = mkdtempSync(join(tmpdir(), 'sign-in-'));

let owner: { ownerEmail: string; apiKey: string; ownerId: string };
beforeAll(async () => {
  const made = await newOwner('sign-in');
  owner = { ...made, ownerId: (await stores.owners.findOwner(made.ownerEmail))!.ownerId };
});
afterAll(async () => {
  await tool.close();
  await lane.close();
});

const item = async (key: Record<string, string>, table = config.usersTableName) =>
  (await stores.client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
const profile = async (email: string) => (await item(userKey(owner.ownerId, email)))!;
const state = (email: string) => item(signInStateKey(owner.ownerId, email), config.signInTableName);
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

/** A DynamoDB command as the grant sees it: its action, and for a transaction each item's. */
function actionsOf(name: string, input: unknown): string[] {
  if (name !== 'TransactWriteItemsCommand') return [name.replace(/Command$/, '')];
  const items = (input as { TransactItems: Record<string, unknown>[] }).TransactItems;
  return items.map(
    (entry) =>
      ({ ConditionCheck: 'ConditionCheckItem', Update: 'UpdateItem', Delete: 'DeleteItem', Put: 'PutItem' })[Object.keys(entry)[0]!]!,
  );
}

/** The domain's sign-in on the real adapter, with the verifications and the DynamoDB commands it made recorded. */
function observed(options: { verify?: (stored: string, password: string) => Promise<boolean> } = {}) {
  const verified: string[] = [];
  const commands: string[][] = [];
  /** Every command as sent: its name and input, for the grant's evaluation. */
  const sent: { name: string; input: Record<string, unknown> }[] = [];
  // A client as the module builds its own (the SDK's defaults: 300 attempts at once queue for sockets, none times out).
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ ...localConnection(endpoint), maxAttempts: 3, retryMode: 'standard' }));
  db.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(actionsOf(String(context.commandName), args.input));
      sent.push({ name: String(context.commandName), input: structuredClone(args.input) as Record<string, unknown> });
      return next(args);
    },
    { step: 'initialize' },
  );
  const store = createSignInStore(db, { usersTable: config.usersTableName, signInTable: config.signInTableName });
  const verify = (stored: string, password: string) => {
    verified.push(stored);
    return (options.verify ?? verifyHash)(stored, password);
  };
  const deps = (s: SignInStore = store): SignInDeps => ({
    store: s,
    setting: config.argon2,
    lane,
    now: () => clock,
    verify,
    passwordPolicy: config.passwordPolicy,
  });
  return {
    verified,
    commands,
    sent,
    store,
    run: async (email: string, password: string, s?: SignInStore) =>
      withoutCookie(await signIn(deps(s), { ownerId: owner.ownerId, email, password })),
    change: (email: string, currentPassword: string, newPassword: string) =>
      changePassword({ ...deps(), passwordPolicy: config.passwordPolicy }, { ownerId: owner.ownerId, email, currentPassword, newPassword }),
    /** A sign-in with a device cookie, whose result keeps its fresh cookie. */
    trusted: (email: string, password: string, deviceCookie?: string) =>
      signIn(deps(), { ownerId: owner.ownerId, email, password, ...(deviceCookie && { deviceCookie }) }),
    devices: (email: string) => listDevices(deps(), { ownerId: owner.ownerId, email }),
    revoke: (email: string) => revokeDevices(deps(), { ownerId: owner.ownerId, email }),
    /** checkSession, on this store or (`cold`) on one that has not read the owner's key: it reads the key item too. */
    check: (email: string, session: string, cold = false) =>
      checkSession(
        {
          store: cold ? createSignInStore(db, { usersTable: config.usersTableName, signInTable: config.signInTableName }) : store,
          now: () => clock,
        },
        { ownerId: owner.ownerId, email, session },
      ),
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
    // A success clears the count; a wrong one counts, on the state's own item, and leaves the profile alone.
    const before = await profile(email);
    expect((await state(email))?.failures).toBe(2);
    expect(await signInAs(email, 'the right password')).toEqual({ outcome: 'ok' });
    expect(await state(email)).toBeUndefined();
    expect(await profile(email)).toEqual(before);
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

  it('a hash made before NFC (of the NFD string itself) signs in, and is rehashed from the NFC form', async () => {
    const email = uniqueEmail('pre-nfc');
    const before = await argon2Hash(nfd, { algorithm: 2, ...config.argon2 });
    await importHashes([{ email, hash: before }]);
    const seen = observed();
    expect(await seen.run(email, nfd)).toEqual({ outcome: 'ok' });
    // NFC first (no match), then as given (the match).
    expect(seen.verified).toEqual([before, before]);
    const after = (await profile(email)).password_hash as string;
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

  it('bcrypt, PBKDF2 and argon2 hashes from other tools sign in and become argon2id at the setting', async () => {
    expect(new Set(chosen.map((f) => f.hash.split('$')[f.hash.startsWith('$') ? 1 : 0]))).toEqual(
      new Set(['2a', '2y', 'argon2i', 'argon2id', 'pbkdf2_sha256']),
    );
    const users = chosen.map((f) => ({ ...f, email: uniqueEmail('imported') }));
    await importHashes(users);
    for (const user of users) {
      const seen = observed();
      expect([user.tool, await seen.run(user.email, `${user.password}?`)]).toEqual([user.tool, { outcome: 'wrong' }]);
      expect([user.tool, await seen.run(user.email, user.password)]).toEqual([user.tool, { outcome: 'ok' }]);
      // Each attempt reads and counts; the success reads the owner's device key (once per process), then replaces the
      // hash, deletes the state and writes the device's record in one transaction, then queries the user's device records
      // for the cap (trusted-devices.ts: MAX_DEVICES_PER_USER).
      expect(seen.commands).toEqual([
        ['BatchGetItem'],
        ['UpdateItem'],
        ['BatchGetItem'],
        ['UpdateItem'],
        ['UpdateItem'],
        ['UpdateItem', 'DeleteItem', 'UpdateItem'],
        ['Query'],
      ]);
      const stored = await profile(user.email);
      expect(stored.password_hash).toMatch(CURRENT);
      expect(await verifyHash(stored.password_hash as string, user.password)).toBe(true);
      expect(typeof stored.password_rehashed_at).toBe('string');
      expect(await state(user.email)).toBeUndefined();
      expect(await signInAs(user.email, user.password)).toEqual({ outcome: 'ok' });
    }
  }, 120_000);
});

describe("bcrypt's 72 bytes", () => {
  it('a password past 72 bytes answers must-reset and never becomes the hash: a typo after byte 72 cannot replace the password', async () => {
    const email = uniqueEmail('bcrypt-long');
    const real = `${'correct horse battery staple '.repeat(3)}and a long tail`;
    expect(Buffer.byteLength(real)).toBeGreaterThan(72);
    const imported = bcrypt.hashSync(real, 4);
    await importHashes([{ email, hash: imported }]);
    const typo = `${real.slice(0, 72)}TYPO-after-byte-72`;
    expect(await signInAs(email, typo)).toEqual({ outcome: 'must-reset' });
    expect((await profile(email)).password_hash).toBe(imported);
    expect(await signInAs(email, real)).toEqual({ outcome: 'must-reset' });
    expect(await signInAs(email, typo.slice(0, 71))).toEqual({ outcome: 'wrong' });
    expect((await profile(email)).password_hash).toBe(imported);
    // The way out: a new password, chosen with the real one.
    expect(await tool.changePassword({ ownerId: owner.ownerId, email, currentPassword: real, newPassword: 'a fresh passphrase' })).toEqual({
      outcome: 'changed',
    });
    expect(await signInAs(email, 'a fresh passphrase')).toEqual({ outcome: 'ok' });
    expect(await signInAs(email, typo)).toEqual({ outcome: 'wrong' });
  }, 60_000);

  it('exactly the first 72 bytes of a longer password and the whole password both answer must-reset (bcrypt cannot tell them apart); the hash is kept until changePassword', async () => {
    const email = uniqueEmail('bcrypt-prefix');
    const real = `${'a long passphrase, '.repeat(4)}past bcrypt's reach`;
    const prefix = Buffer.from(real).subarray(0, 72).toString('utf8');
    expect([Buffer.byteLength(prefix), Buffer.byteLength(real) > 72]).toEqual([72, true]);
    const imported = bcrypt.hashSync(real, 4);
    await importHashes([{ email, hash: imported }]);
    expect(await signInAs(email, prefix)).toEqual({ outcome: 'must-reset' });
    expect((await profile(email)).password_hash).toBe(imported);
    expect(await signInAs(email, real)).toEqual({ outcome: 'must-reset' });
    expect((await profile(email)).password_hash).toBe(imported);
    expect(
      await tool.changePassword({ ownerId: owner.ownerId, email, currentPassword: prefix, newPassword: 'the new chosen passphrase' }),
    ).toEqual({
      outcome: 'changed',
    });
    expect((await profile(email)).password_hash).toMatch(CURRENT);
    expect(await signInAs(email, 'the new chosen passphrase')).toEqual({ outcome: 'ok' });
    expect(await signInAs(email, real)).toEqual({ outcome: 'wrong' });
  }, 60_000);

  it('under 72 bytes, a bcrypt match is ok and is upgraded', async () => {
    const email = uniqueEmail('bcrypt-short');
    const password = 'x'.repeat(71);
    await importHashes([{ email, hash: bcrypt.hashSync(password, 4) }]);
    expect(await signInAs(email, password)).toEqual({ outcome: 'ok' });
    expect((await profile(email)).password_hash).toMatch(CURRENT);
  }, 60_000);
});

describe('inputs past any password or address', () => {
  const max = config.passwordPolicy.maxLength;
  /** 8 MiB of a decomposed letter and its accent: NFC would halve it, at a cost. */
  const huge = 'e\u0301'.repeat(Math.ceil((8 * 1024 * 1024) / 3));
  const justPast = 'é'.repeat(2 * max + 1); // 2 bytes each: 4 × max + 2 bytes, though only 2 × max + 1 code points
  const longEmail = `${'a'.repeat(2_100)}@example.com`;
  /** Runs `body` with String.prototype.normalize watched: the lengths of the strings it was asked to normalise. */
  async function normalised<T>(body: () => Promise<T>): Promise<{ result: T; lengths: number[] }> {
    const original = String.prototype.normalize;
    const lengths: number[] = [];
    String.prototype.normalize = function (this: string, form?: string) {
      lengths.push(this.length);
      return original.call(this, form);
    };
    try {
      return { result: await body(), lengths };
    } finally {
      String.prototype.normalize = original;
    }
  }

  it('a password over 4 × the maximum length in UTF-8 bytes, or an e-mail over 254 octets, answers wrong for a known and an unknown e-mail, with nothing read or counted', async () => {
    const email = uniqueEmail('oversized');
    await create(email, 'an ordinary password');
    const seen = observed();
    for (const who of [email, uniqueEmail('oversized-unknown')]) {
      for (const password of [huge, justPast]) {
        const { result, lengths } = await normalised(() => seen.run(who, password));
        expect([result, lengths.filter((length) => length >= justPast.length)]).toEqual([{ outcome: 'wrong' }, []]);
      }
    }
    for (const address of [longEmail, `${'é'.repeat(124)}@example.com`]) {
      expect(await seen.run(address, 'an ordinary password')).toEqual({ outcome: 'wrong' });
    }
    expect([seen.commands, seen.verified]).toEqual([[], []]);
    expect(await state(email)).toBeUndefined();
    // At the limit, still an ordinary attempt: 4 × max bytes is not past it.
    expect(await seen.run(email, 'é'.repeat(2 * max))).toEqual({ outcome: 'wrong' });
    expect(seen.verified).toHaveLength(1);
    expect(await signInAs(email, 'an ordinary password')).toEqual({ outcome: 'ok' });
  }, 60_000);

  it('changePassword: an oversized current password answers wrong, an oversized new one is refused for its length, neither normalised', async () => {
    const email = uniqueEmail('oversized-change');
    await create(email, 'an ordinary password');
    const change = (currentPassword: string, newPassword: string) =>
      tool.changePassword({ ownerId: owner.ownerId, email, currentPassword, newPassword });
    for (const [current, next, expected] of [
      [huge, 'a new passphrase', { outcome: 'wrong' }],
      [
        'an ordinary password',
        huge,
        {
          outcome: 'refused',
          reason: 'length',
          message: `new_password must be between ${config.passwordPolicy.minLength} and ${max} characters.`,
        },
      ],
    ] as const) {
      const { result, lengths } = await normalised(() => change(current, next));
      expect([result, lengths.filter((length) => length >= justPast.length)]).toEqual([expected, []]);
    }
    expect(await signInAs(email, 'an ordinary password')).toEqual({ outcome: 'ok' });
  }, 60_000);
});

describe('a reset wins', () => {
  it('forced every run: a reset between the verification and the success write makes the old password wrong', async () => {
    const email = uniqueEmail('raced');
    const bcryptFixture = fixtures.hashes.find((f) => f.tool.includes('2a rounds=4'))!;
    await importHashes([{ email, hash: bcryptFixture.hash }]);
    let resets = 0;
    const seen = observed({
      verify: async (stored, password) => {
        const ok = await verifyHash(stored, password);
        // The first verification (of the imported hash) succeeds; the reset lands before the success is written.
        if (resets++ === 0) await reset(email, 'reset meanwhile');
        return ok;
      },
    });
    expect(await seen.run(email, bcryptFixture.password)).toEqual({ outcome: 'wrong' });
    // It tried the new hash too: the old password does not verify against it.
    expect(seen.verified).toHaveLength(2);
    expect(await signInAs(email, 'reset meanwhile')).toEqual({ outcome: 'ok' });
    expect(await signInAs(email, bcryptFixture.password)).toEqual({ outcome: 'wrong' });
  }, 60_000);

  it('the same password upgraded by a parallel sign-in between verification and write still signs in', async () => {
    const email = uniqueEmail('parallel-upgrade');
    const bcryptFixture = fixtures.hashes.find((f) => f.tool.includes('2a rounds=4'))!;
    await importHashes([{ email, hash: bcryptFixture.hash }]);
    let first = true;
    const seen = observed({
      verify: async (stored, password) => {
        const ok = await verifyHash(stored, password);
        if (first) {
          first = false;
          expect(await signInAs(email, bcryptFixture.password)).toEqual({ outcome: 'ok' });
        }
        return ok;
      },
    });
    expect(await seen.run(email, bcryptFixture.password)).toEqual({ outcome: 'ok' });
  }, 60_000);

  it('racing the real API reset, the old password answers ok only when its success was written before the reset answered', async () => {
    for (let round = 0; round < 8; round++) {
      const email = uniqueEmail('race');
      await importHashes([{ email, hash: bcrypt.hashSync('the old password', 10) }]);
      let settledAt = Number.POSITIVE_INFINITY;
      const seen = observed();
      const timed: SignInStore = {
        ...seen.store,
        succeed: (...args) => {
          settledAt = performance.now();
          return seen.store.succeed(...args);
        },
      };
      const [outcome, resetAt] = await Promise.all([
        seen.run(email, 'the old password', timed),
        reset(email, 'the new password').then(() => performance.now()),
      ]);
      if (outcome.outcome === 'ok') expect(settledAt).toBeLessThan(resetAt);
      else expect(outcome).toEqual({ outcome: 'wrong' });
      expect(await signInAs(email, 'the old password')).toEqual({ outcome: 'wrong' });
      expect(await signInAs(email, 'the new password')).toEqual({ outcome: 'ok' });
    }
  }, 120_000);
});

describe('growing waits, then the limit', () => {
  it(`no one brings an account from 0 to locked in under 24 hours: the fastest schedule takes ${fastestLockoutSeconds()} s`, async () => {
    expect(fastestLockoutSeconds()).toBeGreaterThanOrEqual(24 * 3600);
    const email = uniqueEmail('attacked');
    await create(email, 'the right password');
    const start = clock;
    const seen = observed();
    // 300 guesses at once: each is counted before it is verified, and the sixth failure starts a wait.
    const burst = await Promise.all(Array.from({ length: 300 }, (_, i) => seen.run(email, `guess ${i}`)));
    const tally = (outcomes: readonly { outcome: string }[], name: string) => outcomes.filter((o) => o.outcome === name).length;
    expect([tally(burst, 'wrong'), tally(burst, 'throttled'), seen.verified.length]).toEqual([6, 294, 6]);
    // The attacker's best schedule from there: each guess the moment its wait ends, and a burst of 20 then.
    for (let failures = 6; failures < UNTRUSTED_FAILURE_LIMIT; failures++) {
      const probe = await seen.run(email, 'a probe');
      if (probe.outcome !== 'throttled') throw new Error(`after ${failures} failures: ${JSON.stringify(probe)}`);
      const retryAt = clock + probe.retryAfterSeconds * 1000;
      clock = retryAt - 1;
      expect(await seen.run(email, 'a probe')).toMatchObject({ outcome: 'throttled' });
      clock = retryAt;
      const verifiedBefore = seen.verified.length;
      const round = await Promise.all(
        Array.from({ length: failures % 10 === 0 ? 20 : 1 }, (_, i) => seen.run(email, `guess ${failures}.${i}`)),
      );
      expect([tally(round, 'wrong'), seen.verified.length - verifiedBefore]).toEqual([1, 1]);
    }
    expect((await state(email))?.failures).toBe(UNTRUSTED_FAILURE_LIMIT);
    // The waits were at least 24 hours; seconds rounding up can only have made them longer.
    expect((clock - start) / 1000).toBeGreaterThanOrEqual(fastestLockoutSeconds());
    const verifiedAtLock = seen.verified.length;
    expect(await seen.run(email, 'the right password')).toEqual({ outcome: 'locked' });
    clock += 30 * 86_400_000;
    expect(await seen.run(email, 'the right password')).toEqual({ outcome: 'locked' });
    expect(seen.verified.length).toBe(verifiedAtLock);
    // Only a reset unlocks; a success clears everything.
    await reset(email, 'a new password now');
    expect(await signInAs(email, 'a new password now')).toEqual({ outcome: 'ok' });
    expect(await state(email)).toBeUndefined();
  }, 300_000);

  it('a success clears the count and the wait', async () => {
    const email = uniqueEmail('cleared');
    await create(email, 'the right password');
    for (let i = 0; i < 6; i++) expect(await signInAs(email, `wrong ${i}`)).toEqual({ outcome: 'wrong' });
    expect(await signInAs(email, 'the right password')).toEqual({ outcome: 'throttled', retryAfterSeconds: 30 });
    clock += 30_000;
    expect(await signInAs(email, 'the right password')).toEqual({ outcome: 'ok' });
    for (let i = 0; i < 6; i++) expect(await signInAs(email, `wrong ${i}`)).toEqual({ outcome: 'wrong' });
  }, 60_000);
});

describe('an unknown e-mail is not told apart', () => {
  it('the same outcomes over the same 120 attempts (wrong, throttled, locked), through the same kinds of store operations', async () => {
    const known = uniqueEmail('known');
    const unknown = uniqueEmail('unknown');
    await create(known, 'known password');
    const seenKnown = observed();
    const seenUnknown = observed();
    const outcomes: { known: string[]; unknown: string[] } = { known: [], unknown: [] };
    let wrongs = 0;
    for (let attempt = 0; attempt < 120; attempt++) {
      const a = await seenKnown.run(known, `guess ${attempt}`);
      const b = await seenUnknown.run(unknown, `guess ${attempt}`);
      outcomes.known.push(a.outcome === 'throttled' ? `throttled ${a.retryAfterSeconds}` : a.outcome);
      outcomes.unknown.push(b.outcome === 'throttled' ? `throttled ${b.retryAfterSeconds}` : b.outcome);
      // Mostly the next attempt at the end of the wait; every twelfth a second after, so throttled.
      if (a.outcome === 'wrong') wrongs++;
      const wait =
        a.outcome === 'throttled' ? a.retryAfterSeconds : a.outcome === 'wrong' && attempt % 12 !== 5 ? waitAfterFailure(wrongs) : 1;
      clock += wait * 1000;
    }
    expect(outcomes.unknown).toEqual(outcomes.known);
    expect(new Set(outcomes.known.map((o) => o.split(' ')[0]))).toEqual(new Set(['wrong', 'throttled', 'locked']));
    expect(outcomes.known.filter((o) => o === 'wrong')).toHaveLength(UNTRUSTED_FAILURE_LIMIT);
    expect(seenUnknown.commands).toEqual(seenKnown.commands);
    // Every wrong attempt verified once, at the stage's setting, the unknown one against the dummy hash.
    expect([seenKnown.verified.length, seenUnknown.verified.length]).toEqual([UNTRUSTED_FAILURE_LIMIT, UNTRUSTED_FAILURE_LIMIT]);
    for (const stored of [...seenKnown.verified, ...seenUnknown.verified]) expect(stored).toMatch(CURRENT);
  }, 300_000);

  it('what is kept for it: one item, expiring by TTL, that neither the export nor a delete (a 404) counts as a user', async () => {
    const unknown = uniqueEmail('kept');
    for (let i = 0; i < 3; i++) expect(await signInAs(unknown, `guess ${i}`)).toEqual({ outcome: 'wrong' });
    const kept = (await state(unknown))!;
    expect(Object.keys(kept).sort()).toEqual(['expires_at', 'failures', 'hash_tag', 'pk', 'sk', 'wait_until']);
    expect(kept.sk).toBe(SIGN_IN_SK);
    expect(kept.expires_at).toBe(Math.ceil(clock / 1000) + UNKNOWN_STATE_DAYS * 86_400);
    expect((await invoke(deleteUser, { user_email: unknown }, owner.apiKey)).status).toBe(404);
    const exported = await runScript('admin/cli.ts', ['export-users', owner.ownerEmail], process.env);
    expect(exported.code).toBe(0);
    expect(exported.stdout).not.toContain(unknown);
    // A user created with that e-mail starts from nothing: the state was counted against no profile.
    await create(unknown, 'now a real user');
    expect(await signInAs(unknown, 'now a real user')).toEqual({ outcome: 'ok' });
  }, 60_000);

  it("a known user's state is kept in the sign-in table without a TTL, never in the export, and deleteUser erases it with the user", async () => {
    const email = uniqueEmail('erased');
    await create(email, 'erased password');
    expect(await signInAs(email, 'wrong')).toEqual({ outcome: 'wrong' });
    expect(await state(email)).toMatchObject({ failures: 1 });
    expect((await state(email))?.expires_at).toBeUndefined();
    expect(await item(signInStateKey(owner.ownerId, email))).toBeUndefined();
    const exported = await runScript('admin/cli.ts', ['export-users', owner.ownerEmail], process.env);
    const line = exported.stdout.split('\n').find((l) => l.includes(email))!;
    expect(Object.keys(JSON.parse(line)).filter((key) => /fail|wait|tag|sign/.test(key))).toEqual([]);
    expect((await invoke(deleteUser, { user_email: email }, owner.apiKey)).status).toBe(200);
    expect(await state(email)).toBeUndefined();
  }, 60_000);
});

describe('a stage whose tables existed before the move', () => {
  it('keeps signing users in: admin migrate-sign-in-state moves each count, its wait and its lock from the users table into the sign-in table', async () => {
    const [waiting, lockedOut, plain, unknown] = ['legacy-waiting', 'legacy-locked', 'legacy-plain', 'legacy-unknown'].map(uniqueEmail) as [
      string,
      string,
      string,
      string,
    ];
    for (const email of [waiting, lockedOut, plain]) await create(email, `legacy passphrase of ${email.length}`);
    const tagOf = async (email: string) => hashTag((await profile(email)).password_hash as string);
    // As the module before the sign-in table wrote them: in the users table, under the same key.
    const legacy: Record<string, Record<string, unknown>> = {
      [waiting]: { failures: FREE_FAILURES + 1, wait_until: clock + 30_000, hash_tag: await tagOf(waiting) },
      [lockedOut]: { failures: UNTRUSTED_FAILURE_LIMIT, wait_until: 0, hash_tag: await tagOf(lockedOut) },
      [unknown]: { failures: 2, wait_until: 0, hash_tag: NO_PROFILE_TAG, expires_at: Math.ceil(clock / 1000) + 86_400 },
    };
    for (const [email, kept] of Object.entries(legacy)) {
      await stores.client.send(
        new PutCommand({ TableName: config.usersTableName, Item: { ...signInStateKey(owner.ownerId, email), ...kept } }),
      );
    }
    const migrate = () => runScript('admin/cli.ts', ['migrate-sign-in-state'], process.env);
    const first = await migrate();
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(JSON.parse(first.stdout)).toMatchObject({ users_table: config.usersTableName, sign_in_table: config.signInTableName, left: 0 });
    expect(JSON.parse(first.stdout).moved).toBeGreaterThanOrEqual(Object.keys(legacy).length);
    for (const [email, kept] of Object.entries(legacy)) {
      expect(await item(signInStateKey(owner.ownerId, email))).toBeUndefined();
      expect(await state(email)).toEqual({ ...signInStateKey(owner.ownerId, email), ...kept });
    }
    expect(await signInAs(waiting, `legacy passphrase of ${waiting.length}`)).toEqual({ outcome: 'throttled', retryAfterSeconds: 30 });
    expect(await signInAs(lockedOut, `legacy passphrase of ${lockedOut.length}`)).toEqual({ outcome: 'locked' });
    expect(await signInAs(plain, `legacy passphrase of ${plain.length}`)).toEqual({ outcome: 'ok' });
    expect(await signInAs(unknown, 'a guess')).toEqual({ outcome: 'wrong' });
    expect((await state(unknown))?.failures).toBe(3);
    clock += 31_000;
    expect(await signInAs(waiting, `legacy passphrase of ${waiting.length}`)).toEqual({ outcome: 'ok' });
    // Again: nothing left to move, nothing changed.
    const second = await migrate();
    expect(JSON.parse(second.stdout)).toMatchObject({ moved: 0, superseded: 0, left: 0 });
    expect(await state(lockedOut)).toMatchObject({ failures: UNTRUSTED_FAILURE_LIMIT });
  }, 60_000);
});

describe('changePassword', () => {
  it('verifies the current password as a sign-in, applies the policy with the contract’s reasons, and stores the NFC hash', async () => {
    const email = uniqueEmail('changer');
    await create(email, 'the first password', true);
    const change = (currentPassword: string, newPassword: string) =>
      tool.changePassword({ ownerId: owner.ownerId, email, currentPassword, newPassword });
    expect(await change('not the password', 'a brand new passphrase')).toEqual({ outcome: 'wrong' });
    expect((await state(email))?.failures).toBe(1);
    expect(await change('the first password', 'password123')).toEqual({
      outcome: 'refused',
      reason: 'guessable',
      message: 'new_password is too easy to guess: choose another.',
    });
    expect(await change('the first password', email)).toMatchObject({ outcome: 'refused', reason: 'guessable' });
    expect(await change('the first password', 'short')).toEqual({
      outcome: 'refused',
      reason: 'length',
      message: `new_password must be between ${config.passwordPolicy.minLength} and ${config.passwordPolicy.maxLength} characters.`,
    });
    // A refusal after the right current password clears the count, as a successful sign-in does.
    expect(await state(email)).toBeUndefined();
    const nfd = 'Crème brûlée au café'.normalize('NFD');
    expect(await change('the first password', nfd)).toEqual({ outcome: 'changed' });
    const stored = await profile(email);
    expect([stored.should_reset_password, await verifyHash(stored.password_hash as string, nfd.normalize('NFC'))]).toEqual([false, true]);
    expect(stored.password_hash).toMatch(CURRENT);
    expect(await state(email)).toBeUndefined();
    expect(await signInAs(email, nfd)).toEqual({ outcome: 'ok' });
    expect(await signInAs(email, 'the first password')).toEqual({ outcome: 'wrong' });
  }, 60_000);

  it("the owner's own minimum and blocked words, set by admin set-password-policy, apply", async () => {
    const other = await newOwner('policy-owner');
    const ownerId = (await stores.owners.findOwner(other.ownerEmail))!.ownerId;
    const set = await runScript(
      'admin/cli.ts',
      ['set-password-policy', other.ownerEmail, '--min-length', '15', '--blocked-words', 'acmewidgetsportal'],
      process.env,
    );
    expect([set.code, set.stderr]).toEqual([0, '']);
    const email = uniqueEmail('policy-user');
    expect((await invoke(createUser, { user_email: email, user_password: 'a long first password' }, other.apiKey)).status).toBe(200);
    const change = (newPassword: string) => tool.changePassword({ ownerId, email, currentPassword: 'a long first password', newPassword });
    expect(await change('fourteen chars')).toEqual({
      outcome: 'refused',
      reason: 'length',
      message: `new_password must be between 15 and ${config.passwordPolicy.maxLength} characters.`,
    });
    expect(await change('AcmeWidgetsPortal')).toEqual({
      outcome: 'refused',
      reason: 'guessable',
      message: 'new_password is too easy to guess: choose another.',
    });
    expect(await change('a long and unguessable phrase')).toEqual({ outcome: 'changed' });
  }, 60_000);

  it('refuses the look-alike spellings: with widget blocked wıdget2026!!, WİDGET2026!!, wіdget2026!! (Cyrillic і), and раssword (Cyrillic р, а)', async () => {
    const other = await newOwner('look-alikes');
    const ownerId = (await stores.owners.findOwner(other.ownerEmail))!.ownerId;
    const set = await runScript('admin/cli.ts', ['set-password-policy', other.ownerEmail, '--blocked-words', 'widget'], process.env);
    expect([set.code, set.stderr]).toEqual([0, '']);
    const email = uniqueEmail('look-alikes');
    expect((await invoke(createUser, { user_email: email, user_password: 'a long first password' }, other.apiKey)).status).toBe(200);
    for (const newPassword of ['w\u0131dget2026!!', 'W\u0130DGET2026!!', 'w\u0456dget2026!!', '\u0440\u0430ssword']) {
      expect([newPassword, await tool.changePassword({ ownerId, email, currentPassword: 'a long first password', newPassword })]).toEqual([
        newPassword,
        { outcome: 'refused', reason: 'guessable', message: 'new_password is too easy to guess: choose another.' },
      ]);
    }
    expect(
      await tool.changePassword({ ownerId, email, currentPassword: 'a long first password', newPassword: 'gadgets of every colour' }),
    ).toEqual({
      outcome: 'changed',
    });
  }, 60_000);

  it('counts, throttles and locks as a sign-in does, and answers an unknown e-mail as a wrong password', async () => {
    const email = uniqueEmail('change-throttled');
    await create(email, 'the first password');
    const seen = observed();
    for (let i = 0; i < 6; i++) expect(await seen.change(email, `wrong ${i}`, 'a new passphrase')).toEqual({ outcome: 'wrong' });
    expect(await seen.change(email, 'the first password', 'a new passphrase')).toEqual({ outcome: 'throttled', retryAfterSeconds: 30 });
    expect(await seen.change(uniqueEmail('nobody'), 'the first password', 'a new passphrase')).toEqual({ outcome: 'wrong' });
  }, 60_000);
});

/** A trusted device's requests: a success that issues a cookie, checkSession (warm and cold), a trusted failure and success with it, the list and the revocation. */
async function trustedRequests(seen: ReturnType<typeof observed>, email: string, password: string) {
  const issued = await seen.trusted(email, password);
  if (issued.outcome !== 'ok') throw new Error(`expected ok, got ${issued.outcome}`);
  expect(await seen.check(email, issued.session)).toEqual({ outcome: 'valid' });
  expect(await seen.check(email, issued.session, true)).toEqual({ outcome: 'valid' });
  expect((await seen.trusted(email, 'wrong', issued.deviceCookie)).outcome).toBe('wrong');
  expect((await seen.trusted(email, password, issued.deviceCookie)).outcome).toBe('ok');
  const listed = await seen.devices(email);
  expect(listed.map((device) => device.deviceId)).toContain(issued.deviceCookie.split('.')[0]);
  expect(await seen.revoke(email)).toBe(listed.length);
}

describe('least privilege', () => {
  it("the grant's actions are exactly the DynamoDB actions the module sends", async () => {
    const [email, imported] = [uniqueEmail('actions'), uniqueEmail('actions-imported')];
    await create(email, 'actions password', true);
    await importHashes([{ email: imported, hash: bcrypt.hashSync('imported password', 4) }]);
    const seen = observed();
    await seen.run(email, 'wrong');
    await seen.run(email, 'actions password');
    await seen.run(imported, 'imported password');
    await seen.change(email, 'actions password', 'a changed passphrase');
    await seen.change(email, 'a changed passphrase', 'password');
    for (let i = 0; i < 7; i++) await seen.run(uniqueEmail('actions-unknown'), 'wrong');
    await trustedRequests(seen, imported, 'imported password');
    expect(new Set(seen.commands.flat().map((action) => `dynamodb:${action}`))).toEqual(new Set(SIGN_IN_ACTIONS));
  }, 60_000);

  it('every request the module sends, for every outcome, is allowed by the synthesized grant, for its owner and for every owner', async () => {
    const [email, imported, reset] = [uniqueEmail('iam'), uniqueEmail('iam-imported'), uniqueEmail('iam-reset')];
    await create(email, 'iam password');
    await create(reset, 'iam reset password', true);
    await importHashes([{ email: imported, hash: bcrypt.hashSync('imported password', 4) }]);
    await runScript('admin/cli.ts', ['set-password-policy', owner.ownerEmail, '--blocked-words', 'iamgranted'], process.env);
    const seen = observed();
    const outcomes = [
      await seen.run(email, 'wrong'),
      await seen.run(email, 'iam password'),
      await seen.run(imported, 'imported password'),
      await seen.run(reset, 'iam reset password'),
      await seen.change(reset, 'iam reset password', 'iamgranted'),
      await seen.change(reset, 'iam reset password', 'a changed passphrase'),
    ];
    for (let i = 0; i < 7; i++) outcomes.push(await seen.run(email, `wrong ${i}`));
    for (let i = 0; i < 7; i++) outcomes.push(await seen.run(uniqueEmail('iam-unknown'), 'wrong'));
    await trustedRequests(seen, imported, 'imported password');
    expect(new Set(outcomes.map((o) => o.outcome))).toEqual(new Set(['wrong', 'ok', 'must-reset', 'refused', 'changed', 'throttled']));
    const requests = seen.sent.flatMap(({ name, input }) => iamRequests(name, input));
    // Both tables, and every kind of request the grant names.
    expect(new Set(requests.map((r) => r.table))).toEqual(new Set([config.usersTableName, config.signInTableName]));
    expect(new Set(requests.map((r) => r.action))).toEqual(new Set(SIGN_IN_ACTIONS));
    const tables = { usersTable: tableArn(config.usersTableName), signInTable: tableArn(config.signInTableName) };
    for (const grant of [synthesizedGrant({ ...tables, ownerId: owner.ownerId }), synthesizedGrant(tables)]) {
      const denied = [];
      for (const request of requests) if ((await decide(grant, request)) !== 'Allowed') denied.push(request);
      expect(denied).toEqual([]);
    }
  }, 120_000);
});

describe('the real stream', () => {
  it("no sign-in write passes the consumer's filter; lifecycle events still arrive, one UserPasswordReset per changePassword", async () => {
    const delivery = await startTestDelivery();
    const stream = await watchStream();
    try {
      const [changed, imported, unknown, marker] = ['ev-changed', 'ev-imported', 'ev-unknown', 'ev-marker'].map(uniqueEmail) as [
        string,
        string,
        string,
        string,
      ];
      await create(changed, 'created password', true);
      await importHashes([{ email: imported, hash: bcrypt.hashSync('imported password', 4) }]);
      // Every kind of sign-in write: counts (known and unknown), a success's transaction, a rehash, a change of password.
      expect(await signInAs(changed, 'wrong')).toEqual({ outcome: 'wrong' });
      expect(await signInAs(changed, 'created password')).toEqual({ outcome: 'must-reset' });
      expect(await signInAs(unknown, 'wrong')).toEqual({ outcome: 'wrong' });
      expect(await signInAs(imported, 'wrong')).toEqual({ outcome: 'wrong' });
      expect(await signInAs(imported, 'imported password')).toEqual({ outcome: 'ok' });
      expect(
        await tool.changePassword({
          ownerId: owner.ownerId,
          email: changed,
          currentPassword: 'created password',
          newPassword: 'chosen passphrase',
        }),
      ).toEqual({ outcome: 'changed' });
      // A reset after the rehash: its write must pass, though the rehash's did not.
      await reset(imported, 'reset passphrase');
      // A write no writer of this service makes: a new hash that keeps the old rehash mark. The consumer
      // would call it a reset; the mapping's filter drops it, so npm start's delivery must too.
      const kept = uniqueEmail('ev-kept-mark');
      await importHashes([{ email: kept, hash: bcrypt.hashSync('kept password', 4) }]);
      expect(await signInAs(kept, 'kept password')).toEqual({ outcome: 'ok' });
      await stores.client.send(
        new UpdateCommand({
          TableName: config.usersTableName,
          Key: userKey(owner.ownerId, kept),
          UpdateExpression: 'SET password_hash = :other',
          ExpressionAttributeValues: { ':other': await argon2Hash('another password', { algorithm: 2, ...config.argon2 }) },
        }),
      );
      await create(marker, 'marker password');
      const records = await stream.until((read) => read.some((r) => keysOf(r).pk === userPk(owner.ownerId, marker)), 'the marker');
      const about = (email: string) => records.filter((r) => keysOf(r).pk === userPk(owner.ownerId, email));
      const described = (email: string, passing: boolean) =>
        about(email)
          .filter((r) => passesRecordFilter(r) === passing)
          .map((r) => `${r.eventName} ${keysOf(r).sk}`);
      expect(described(changed, true)).toEqual(['INSERT PROFILE', 'MODIFY PROFILE']);
      // The counts live in the sign-in table, which has no stream: only a rehash of the profile shows, filtered out.
      expect(described(changed, false)).toEqual([]);
      expect(described(imported, true)).toEqual(['INSERT PROFILE', 'MODIFY PROFILE']);
      expect(described(imported, false)).toEqual(['MODIFY PROFILE']);
      expect(described(unknown, true)).toEqual([]);
      expect(described(unknown, false)).toEqual([]);
      const { Table } = await stores.client.send(new DescribeTableCommand({ TableName: config.signInTableName }));
      expect(Table?.StreamSpecification?.StreamEnabled ?? false).toBe(false);

      const events = (email: string) =>
        delivery
          .events()
          .filter((e) => e.detail.owner_id === owner.ownerId && e.detail.user_email === email)
          .map((e) => e['detail-type']);
      await waitFor(() => events(marker)[0], 30_000, "the marker's UserCreated");
      expect([events(changed), events(imported), events(unknown), events(kept)]).toEqual([
        ['UserCreated', 'UserPasswordReset'],
        ['UserCreated', 'UserPasswordReset'],
        [],
        ['UserCreated'],
      ]);
      expect(described(kept, true)).toEqual(['INSERT PROFILE']);
    } finally {
      stream.stop();
      await delivery.stop();
    }
  }, 120_000);
});
