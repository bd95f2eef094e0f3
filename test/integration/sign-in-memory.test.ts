/**
 * What the sign-in keeps in memory (packages/sign-in/src/domain/sign-in-memory.ts), on DynamoDB Local with the
 * real adapter: refusals answered without a read during a wait the process knows of, for at most the
 * stated time and for known and unknown e-mails alike, within the stated bound; a `wrong` against a hash
 * cheaper than the stage's padded by waiting, not computing; an unknown e-mail of an owner whose users
 * were imported at bcrypt 10 verified against a bcrypt-10 dummy, made once.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { verifyHash } from '#domain/password-hashes';
import { formatArgon2Setting } from '#platform/config';
import { createCostlyLane } from '#sign-in/domain/costly-lane';
import { type SignInDeps, signIn } from '#sign-in/domain/sign-in';
import { FREE_FAILURES } from '#sign-in/domain/sign-in-attempts';
import {
  accountKey,
  costClass,
  createSignInMemory,
  REFUSAL_MEMORY,
  SIGN_IN_MEMORY_BOUND_MIB,
  type SignInMemory,
} from '#sign-in/domain/sign-in-memory';
import { createSignInStore } from '#sign-in/store/sign-in-store';
import { localConnection } from '#store/client';
import { processStores } from '#store/stores';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as resetUserPassword } from '../../functions/resetUserPassword/handler';
import { invoke } from '../support/events';
import { newOwner, uniqueEmail } from '../support/local';
import { withoutCookie } from '../support/sign-in-results';

const { config, stores } = processStores();
const endpoint = process.env.DYNAMODB_ENDPOINT!;
const CURRENT = `$argon2id$v=19$${formatArgon2Setting(config.argon2)}$`;
let clock = Date.now();
const lane = createCostlyLane();

let owner: { apiKey: string; ownerId: string };
beforeAll(async () => {
  const made = await newOwner('sign-in-memory');
  owner = { apiKey: made.apiKey, ownerId: (await stores.owners.findOwner(made.ownerEmail))!.ownerId };
});
afterAll(() => lane.close());

/** The domain's sign-in with a memory, the commands it sends and the hashes it verifies recorded. */
function tool(options: { memory?: SignInMemory; verify?: (stored: string, password: string) => Promise<boolean> } = {}) {
  const commands: string[] = [];
  const verified: string[] = [];
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ ...localConnection(endpoint), maxAttempts: 3 }));
  db.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize' },
  );
  const memory = options.memory ?? createSignInMemory(config.argon2);
  const deps: SignInDeps = {
    store: createSignInStore(db, { usersTable: config.usersTableName, signInTable: config.signInTableName }),
    setting: config.argon2,
    lane,
    memory,
    now: () => clock,
    verify: (stored, password) => {
      verified.push(stored);
      return (options.verify ?? verifyHash)(stored, password);
    },
  };
  return {
    commands,
    verified,
    memory,
    run: async (email: string, password: string, ownerId = owner.ownerId) =>
      withoutCookie(await signIn(deps, { ownerId, email, password })),
  };
}
const create = async (email: string, password: string) =>
  expect((await invoke(createUser, { user_email: email, user_password: password }, owner.apiKey)).status).toBe(200);

describe('refusals answered from memory', () => {
  it(`during a wait this process knows of, attempts answer throttled with no read for at most ${REFUSAL_MEMORY.ms} ms, for a known and an unknown e-mail alike; a reset made elsewhere is seen once that time has passed`, async () => {
    const t = tool();
    const known = uniqueEmail('remembered');
    const unknown = uniqueEmail('remembered-unknown');
    await create(known, 'the first password');
    for (const email of [known, unknown]) {
      for (let i = 0; i <= FREE_FAILURES; i++) expect(await t.run(email, `guess ${i}`)).toEqual({ outcome: 'wrong' });
    }
    t.commands.length = 0;
    for (let i = 0; i < 20; i++) {
      expect(await t.run(known, `flood ${i}`)).toEqual({ outcome: 'throttled', retryAfterSeconds: 30 });
      expect(await t.run(unknown, `flood ${i}`)).toEqual({ outcome: 'throttled', retryAfterSeconds: 30 });
    }
    expect(t.commands).toEqual([]);
    // The owner resets the password through the API (another process); this one still remembers the wait...
    expect((await invoke(resetUserPassword, { user_email: known, new_password: 'the second password' }, owner.apiKey)).status).toBe(200);
    clock += REFUSAL_MEMORY.ms - 1;
    expect(await t.run(known, 'the second password')).toEqual({ outcome: 'throttled', retryAfterSeconds: 29 });
    expect(t.commands).toEqual([]);
    // ...for at most the stated time: then it reads, and the reset has voided the count.
    clock += 1;
    expect(await t.run(known, 'the second password')).toEqual({ outcome: 'ok' });
    expect(await t.run(unknown, 'another guess')).toEqual({ outcome: 'throttled', retryAfterSeconds: 28 });
    // The success reads the owner's device key (an UpdateItem that makes it when absent, once per process), then writes,
    // then queries the user's device records for the cap (trusted-devices.ts: MAX_DEVICES_PER_USER).
    expect(t.commands).toEqual(['BatchGetItem', 'UpdateItem', 'UpdateItem', 'TransactWriteItems', 'Query', 'BatchGetItem']);
  }, 60_000);

  it(`keeps at most ${REFUSAL_MEMORY.entries} e-mails, within the stated ${SIGN_IN_MEMORY_BOUND_MIB} MiB with the owners' mixes full`, () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const memory = createSignInMemory(config.argon2);
    gc();
    const before = process.memoryUsage().heapUsed;
    const longest = (i: number) => `${String(i).padStart(8, '0')}${'x'.repeat(230)}@example.com`;
    for (let i = 0; i < 2 * REFUSAL_MEMORY.entries; i++)
      memory.remember(accountKey(owner.ownerId, longest(i)), { locked: true, waitUntil: 0 }, clock);
    const stageHash = `${CURRENT}${'A'.repeat(22)}$${'B'.repeat(43)}`;
    for (let o = 0; o < 1_000; o++)
      for (let u = 0; u < 64; u++) memory.observe(`owner-${o}`, accountKey(`owner-${o}`, longest(u)), stageHash);
    gc();
    const used = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    console.log(JSON.stringify({ memoryMiB: used, size: memory.size }));
    expect(memory.size).toEqual({ refusals: REFUSAL_MEMORY.entries, owners: 1_000, dummies: 0 });
    expect(used).toBeLessThan(SIGN_IN_MEMORY_BOUND_MIB);
    // The oldest were dropped, the newest kept.
    expect(memory.recall(accountKey(owner.ownerId, longest(0)), clock)).toBeUndefined();
    expect(memory.recall(accountKey(owner.ownerId, longest(2 * REFUSAL_MEMORY.entries - 1)), clock)).toEqual({ outcome: 'locked' });
  });
});

describe('migrated users not told apart', () => {
  it('a wrong against a hash cheaper than the stage’s takes a drawn stage verification time, by waiting: the cheap hash is the only one verified', async () => {
    // The stage's verifications made to take at least 150 ms, so that the pad is plain to see.
    const slow = async (stored: string, password: string) => {
      const ok = await verifyHash(stored, password);
      if (stored.startsWith(CURRENT)) await new Promise((resolve) => setTimeout(resolve, 150));
      return ok;
    };
    const t = tool({ verify: slow });
    for (let i = 0; i < 10; i++) expect(await t.run(uniqueEmail('stage-time'), 'guess')).toEqual({ outcome: 'wrong' });
    const email = uniqueEmail('bcrypt4');
    await stores.users.createUser({
      ownerId: owner.ownerId,
      email,
      passwordHash: bcrypt.hashSync('the bcrypt 4 password', 4),
      shouldResetPassword: false,
    });
    t.verified.length = 0;
    const start = performance.now();
    expect(await t.run(email, 'a wrong guess')).toEqual({ outcome: 'wrong' });
    const elapsed = performance.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(t.verified.map((h) => h.slice(0, 7))).toEqual(['$2b$04$']);
  }, 60_000);

  it('an unknown e-mail of an owner whose users were imported at bcrypt 10 is verified against a bcrypt-10 dummy (one dummy, made once); of an owner at the stage’s setting, against the stage’s', async () => {
    const t = tool();
    const migrated = (await newOwner('bcrypt10-owner')).ownerEmail;
    const migratedId = (await stores.owners.findOwner(migrated))!.ownerId;
    for (let i = 0; i < 3; i++) {
      const email = uniqueEmail('bcrypt10');
      await stores.users.createUser({
        ownerId: migratedId,
        email,
        passwordHash: await bcrypt.hash(`password ${i}`, 10),
        shouldResetPassword: false,
      });
      expect(await t.run(email, 'a wrong guess', migratedId)).toEqual({ outcome: 'wrong' });
    }
    const stageUser = uniqueEmail('stage-user');
    await create(stageUser, 'a stage password');
    expect(await t.run(stageUser, 'a wrong guess')).toEqual({ outcome: 'wrong' });
    t.verified.length = 0;
    const unknown = uniqueEmail('unknown-of-migrated');
    expect(await t.run(unknown, 'guess 1', migratedId)).toEqual({ outcome: 'wrong' });
    expect(await t.run(unknown, 'guess 2', migratedId)).toEqual({ outcome: 'wrong' });
    expect(await t.run(uniqueEmail('unknown-of-stage'), 'guess', owner.ownerId)).toEqual({ outcome: 'wrong' });
    expect(t.verified.map((h) => h.slice(0, 7))).toEqual(['$2b$10$', '$2b$10$', CURRENT.slice(0, 7)]);
    expect(t.verified[0]).toBe(t.verified[1]);
    expect(t.verified[2]!.startsWith(CURRENT)).toBe(true);
    // A class is the format and cost, never the salt: any number of users at bcrypt 10 make one class.
    const [a, b] = [bcrypt.hashSync('one', 10), bcrypt.hashSync('two', 10)];
    expect([costClass(a, config.argon2), costClass(b, config.argon2)]).toEqual(['$2b$10', '$2b$10']);
  }, 60_000);
});
