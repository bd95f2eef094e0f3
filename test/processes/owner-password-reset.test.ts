/**
 * `admin reset-owner-password <email>` through the real CLI on DynamoDB Local: the one way to
 * reset an owner's own account, which the API refuses to. It ends a sign-in lockout (100 failed
 * sign-ins through the sign-in module, then `locked` even with the right password), prints the
 * new password once, stores only its hash, and the change stream emits UserPasswordReset.
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { formatArgon2Setting, readPasswordSettings } from '#platform/config';
import { UNTRUSTED_FAILURE_LIMIT } from '#sign-in/domain/sign-in-attempts';
import { REFUSAL_MEMORY } from '#sign-in/domain/sign-in-memory';
import { localConnection } from '#store/client';
import { processStores } from '#store/stores';
import { signInStateKey, userKey } from '#store/table-layout';
import { createSignIn } from '../../packages/sign-in/src/index';
import { startTestDelivery } from '../support/lifecycle-events';
import { newOwner } from '../support/local';
import { waitFor } from '../support/poll';
import { runScript } from '../support/processes';
import { withoutCookie } from '../support/sign-in-results';

jest.setTimeout(120_000);

const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
const admin = (...args: string[]) => runScript('admin/cli.ts', args, env);
const { stores } = processStores();
const usersTable = process.env.USERS_TABLE_NAME!;
/** The sign-in's clock, moved past each wait: 100 failures take days of real time by design. */
let clock = Date.now();
const users = createSignIn({
  usersTable,
  signInTable: process.env.SIGN_IN_TABLE_NAME!,
  argon2Setting: formatArgon2Setting(readPasswordSettings().argon2),
  dynamodb: localConnection(process.env.DYNAMODB_ENDPOINT!),
  now: () => clock,
});

let delivery: Awaited<ReturnType<typeof startTestDelivery>>;
beforeAll(async () => {
  delivery = await startTestDelivery();
});
afterAll(async () => {
  await delivery.stop();
  await users.close();
});

describe('admin reset-owner-password', () => {
  it("ends a locked owner account's lockout with a new password, shown once and stored as its hash", async () => {
    const owner = await newOwner('locked-owner');
    const { ownerId } = (await stores.owners.findOwner(owner.ownerEmail))!;
    const read = async (key: Record<string, string>, table = usersTable) =>
      (await stores.client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
    const state = () => read(signInStateKey(ownerId, owner.ownerEmail), process.env.SIGN_IN_TABLE_NAME!);
    const profile = async () => (await read(userKey(ownerId, owner.ownerEmail)))!;
    const signIn = (password: string) => users.signIn({ ownerId, email: owner.ownerEmail, password });

    for (let failures = 0; failures < UNTRUSTED_FAILURE_LIMIT; ) {
      const outcome = await signIn(`guess ${failures}`);
      if (outcome.outcome === 'throttled') {
        clock += outcome.retryAfterSeconds * 1000;
        continue;
      }
      expect(outcome).toEqual({ outcome: 'wrong' });
      failures++;
    }
    expect(await signIn('one more guess')).toEqual({ outcome: 'locked' });
    expect((await state())?.failures).toBe(UNTRUSTED_FAILURE_LIMIT);

    const reset = await admin('reset-owner-password', owner.ownerEmail.toUpperCase());
    expect([reset.code, reset.stderr]).toEqual([0, '']);
    expect(reset.stdout.endsWith('\n')).toBe(true);
    expect(reset.stdout.trim().split('\n')).toHaveLength(1);
    const printed = JSON.parse(reset.stdout) as { owner_email: string; password: string };
    expect(Object.keys(printed)).toEqual(['owner_email', 'password']);
    expect(printed.owner_email).toBe(owner.ownerEmail);
    // The generator's own shape: 24 base64url characters (more when the stage's minimum is higher; 8 here).
    expect(printed.password).toMatch(/^[A-Za-z0-9_-]{24}$/);

    const after = await profile();
    expect(after.white_label).toBe(true);
    expect(after.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(after)).not.toContain(printed.password);
    // This process remembers the lock it answered for REFUSAL_MEMORY.ms without a read (a reset made elsewhere is
    // seen once that has passed). The count was against the old hash: the new one starts from nothing, and a success removes it.
    clock += REFUSAL_MEMORY.ms;
    // A success carries a fresh device cookie (withoutCookie checks it is there, then sets it aside).
    expect(withoutCookie(await signIn(printed.password))).toEqual({ outcome: 'ok' });
    expect(await state()).toBeUndefined();

    const event = await waitFor(
      () => delivery.events().find((e) => e['detail-type'] === 'UserPasswordReset' && e.detail.user_email === owner.ownerEmail),
      30_000,
      "the owner account's UserPasswordReset",
    );
    expect(event.value.detail).toMatchObject({ owner_id: ownerId, user_email: owner.ownerEmail, white_label: true });
    expect(JSON.stringify(delivery.events())).not.toContain(printed.password);
  });

  it.each([
    [['reset-owner-password'], 'reset-owner-password needs <email>; see --help'],
    [['reset-owner-password', 'not-an-email'], 'Invalid e-mail address "not-an-email"'],
    [
      ['reset-owner-password', 'a@example.com', 'b@example.com'],
      'reset-owner-password takes one argument, <email>; got also "b@example.com"',
    ],
    [['reset-owner-password', 'a@example.com', '--operations', 'createUser'], '--operations applies only to create-owner and issue-key'],
    [['reset-owner-password', 'nobody-here@example.com'], 'No owner nobody-here@example.com'],
  ])('%j: one line on stderr, exit 2, nothing on stdout', async (args, message) => {
    const result = await admin(...args);
    expect([result.code, result.stdout, result.stderr]).toEqual([2, '', `${message}\n`]);
  });
});
