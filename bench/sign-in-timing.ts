/**
 * `npx tsx bench/sign-in-timing.ts [--json] [--attempts N]`: can an attacker tell a known e-mail from
 * an unknown one by the time a sign-in takes? The sign-in module (as a tool builds it) on its own
 * DynamoDB Local, in memory: for each comparison, at least N attempts at known e-mails and N at unknown
 * ones, interleaved in random order so that drift in the machine's load falls on both alike:
 *
 * - `wrong`: users at the stage's argon2id setting;
 * - `wrong bcrypt 4` and `wrong argon2id m=8,t=1`: migrated users whose imported hash is cheaper than
 *   the stage's (their `wrong` is padded by waiting to a drawn stage verification time), against unknown
 *   e-mails of the same owner;
 * - `wrong bcrypt 10`: an owner whose users were all imported at bcrypt 10 (dearer than the stage's, in
 *   the costly lane), against unknown e-mails of that owner (verified against a dummy drawn from its mix);
 * - `throttled` and `locked` after the read (the fake clock moved past the refusal memory before each),
 *   and `throttled` answered from memory.
 *
 * Reports each side's median and quartiles and the probability that a known e-mail's attempt takes
 * longer than an unknown one's (0.5: no difference; the Mann-Whitney statistic over every pair).
 * Each e-mail takes at most six counted attempts (the sixth failure is the first with a wait), so
 * `wrong` needs no clock; `locked` is set in the store as 100 failures leave it. Run it on a quiet
 * machine: a loaded one adds noise to both sides (ADR 27 keeps the figures it quotes).
 */

import { randomUUID } from 'node:crypto';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { hashPassword } from '#domain/passwords';
import { FREE_FAILURES, hashTag, NO_PROFILE_TAG, UNKNOWN_STATE_DAYS, UNTRUSTED_FAILURE_LIMIT } from '#domain/sign-in-attempts';
import { REFUSAL_MEMORY } from '#domain/sign-in-memory';
import { formatArgon2Setting, parseArgon2Setting } from '#platform/config';
import { createDocumentClient, localConnection } from '#store/client';
import { LOCAL_TABLES } from '#store/local-engine';
import { createSignInStore } from '#store/sign-in-store';
import { createUsersStore } from '#store/users-store';
import { ensureTables, startDynamoDbLocal } from '../local/dynamodb-local';
import { freePort } from '../local/free-port';
import { createSignIn } from '../packages/sign-in/src/index';
import { percentile, progress, round } from './stats';

const args = process.argv.slice(2);
const json = args.includes('--json');
const at = args.indexOf('--attempts');
const ATTEMPTS = at >= 0 ? Number(args[at + 1]) : 1000;
/** `--only <comparison>`: that `wrong` comparison alone (e.g. `--only "wrong bcrypt 10"`). */
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const SETTING = parseArgon2Setting(process.env.ARGON2_SETTING, 'ARGON2_SETTING');
/** Counted attempts per e-mail: the free failures, then the one that starts the first wait. */
const PER_EMAIL = FREE_FAILURES + 1;

/** P(a known attempt takes longer than an unknown one), ties counted half: the Mann-Whitney U over n·m. */
export function probabilityLonger(known: readonly number[], unknown: readonly number[]): number {
  const all = [...known.map((t) => ({ t, known: true })), ...unknown.map((t) => ({ t, known: false }))].sort((a, b) => a.t - b.t);
  let rankSum = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j < all.length && all[j]!.t === all[i]!.t) j++;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (all[k]!.known) rankSum += rank;
    i = j;
  }
  const u = rankSum - (known.length * (known.length + 1)) / 2;
  return u / (known.length * unknown.length);
}

const summary = (samples: readonly number[]) => ({
  n: samples.length,
  p25_ms: round(percentile(samples, 25), 2),
  median_ms: round(percentile(samples, 50), 2),
  p75_ms: round(percentile(samples, 75), 2),
});

/** Shuffles in place (Fisher-Yates). */
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

async function main(): Promise<void> {
  progress('DynamoDB Local: starting (in memory)');
  const dynamodb = await startDynamoDbLocal({ port: await freePort() });
  try {
    await ensureTables(dynamodb.endpoint, LOCAL_TABLES);
    const db = createDocumentClient({ endpoint: dynamodb.endpoint });
    const users = createUsersStore(db, LOCAL_TABLES.usersTableName, LOCAL_TABLES.signInTableName);
    const states = createSignInStore(db, { usersTable: LOCAL_TABLES.usersTableName, signInTable: LOCAL_TABLES.signInTableName });
    let clock = Date.now();
    const tool = createSignIn({
      usersTable: LOCAL_TABLES.usersTableName,
      signInTable: LOCAL_TABLES.signInTableName,
      argon2Setting: formatArgon2Setting(SETTING),
      dynamodb: localConnection(dynamodb.endpoint),
      now: () => clock,
    });
    const emails = Math.ceil(ATTEMPTS / PER_EMAIL);
    /** An owner with `emails` users whose hashes `hash` makes, and as many unknown e-mails. */
    const population = async (name: string, hash: (password: string) => Promise<string>) => {
      const ownerId = randomUUID();
      const known = Array.from({ length: emails }, (_, i) => `known-${name}-${i}-${randomUUID().slice(0, 8)}@example.com`);
      const unknown = Array.from({ length: emails }, (_, i) => `unknown-${name}-${i}-${randomUUID().slice(0, 8)}@example.com`);
      const hashes = new Map<string, string>();
      for (const email of known) {
        const passwordHash = await hash(randomUUID());
        hashes.set(email, passwordHash);
        await users.createUser({ ownerId, email, passwordHash, shouldResetPassword: false });
      }
      return { ownerId, known, unknown, hashes };
    };
    type Population = Awaited<ReturnType<typeof population>>;
    const timed = async (ownerId: string, email: string, expected: string) => {
      const start = performance.now();
      const { outcome } = await tool.signIn({ ownerId, email, password: `guess ${randomUUID()}` });
      const elapsed = performance.now() - start;
      if (outcome !== expected) throw new Error(`${email}: expected ${expected}, got ${outcome}`);
      return elapsed;
    };
    /** Every e-mail of both sides `rounds` times, in one random order; the times by side. With `forget`, no answer comes from the refusal memory. */
    const measure = async (who: Population, rounds: number, expected: string, forget = false) => {
      const times = { known: [] as number[], unknown: [] as number[] };
      const order = shuffle([...who.known, ...who.unknown].flatMap((email) => Array.from({ length: rounds }, () => email)));
      const base = clock;
      const turns = new Map<string, number>();
      for (const email of order) {
        // Each e-mail's attempts alternate between two times a memory's length apart: none finds its refusal
        // remembered in force, and no wait ends.
        const turn = turns.get(email) ?? 0;
        turns.set(email, turn + 1);
        if (forget) clock = base + (turn % 2) * REFUSAL_MEMORY.ms;
        (email.startsWith('known-') ? times.known : times.unknown).push(await timed(who.ownerId, email, expected));
      }
      return times;
    };

    progress(
      `${emails} known users and ${emails} unknown e-mails per owner: at ${formatArgon2Setting(SETTING)}, bcrypt 4, argon2id m=8,t=1, bcrypt 10`,
    );
    const stage = await population('stage', (password) => hashPassword(password, SETTING));
    const bcrypt4 = await population('bcrypt4', async (password) => bcrypt.hashSync(password, 4));
    const argon2Cheap = await population('argon2m8', (password) =>
      argon2Hash(password, { algorithm: 2, memoryCost: 8, timeCost: 1, parallelism: 1 }),
    );
    const bcrypt10 = await population('bcrypt10', (password) => bcrypt.hash(password, 10));

    // Warm up: the dummy hash, the SDK's connections, the stage's verification times; the bcrypt-10 owner's mix
    // (users of its own, apart from those measured).
    for (let i = 0; i < 20; i++) await tool.signIn({ ownerId: stage.ownerId, email: `warm-${i}@example.com`, password: 'warm' });
    for (let i = 0; i < 10; i++) {
      const email = `warm-${i}@example.com`;
      await users.createUser({
        ownerId: bcrypt10.ownerId,
        email,
        passwordHash: await bcrypt.hash(randomUUID(), 10),
        shouldResetPassword: false,
      });
      await tool.signIn({ ownerId: bcrypt10.ownerId, email, password: 'warm' });
      await tool.signIn({ ownerId: bcrypt10.ownerId, email: `warm-unknown-${i}@example.com`, password: 'warm' });
    }

    const compared: Record<string, { known: number[]; unknown: number[] }> = {};
    for (const [name, who] of [
      ['wrong', stage],
      ['wrong bcrypt 4', bcrypt4],
      ['wrong argon2id m=8,t=1', argon2Cheap],
      ['wrong bcrypt 10', bcrypt10],
    ] as const) {
      if (only && name !== only) continue;
      progress(`${name}: ${PER_EMAIL} attempts at each e-mail`);
      compared[name] = await measure(who, PER_EMAIL, 'wrong');
    }
    const rounds = Math.ceil(ATTEMPTS / emails);
    if (!only) {
      progress(`throttled (after the read): ${rounds} more at each stage e-mail, the clock moved past the memory before each`);
      compared.throttled = await measure(stage, rounds, 'throttled', true);
      progress(`throttled (from memory): ${rounds} more at each`);
      compared['throttled from memory'] = await measure(stage, rounds, 'throttled');
      progress(
        `locked: ${UNTRUSTED_FAILURE_LIMIT} failures stored at each bcrypt 4 e-mail, then ${rounds} attempts at each after the read`,
      );
      for (const email of [...bcrypt4.known, ...bcrypt4.unknown]) {
        const known = bcrypt4.hashes.get(email);
        const { state } = await states.read(bcrypt4.ownerId, email);
        const locked = {
          failures: UNTRUSTED_FAILURE_LIMIT,
          waitUntil: 0,
          tag: hashTag(known),
          ...(known === undefined && { expiresAt: Math.ceil(clock / 1000) + UNKNOWN_STATE_DAYS * 86_400 }),
        };
        if (!(await states.count(bcrypt4.ownerId, email, state, locked)).counted) throw new Error(`${email}: could not store the lock`);
        if (known === undefined && locked.tag !== NO_PROFILE_TAG) throw new Error('an unknown e-mail counted against a hash');
      }
      compared.locked = await measure(bcrypt4, rounds, 'locked', true);
    }
    await tool.close();
    db.destroy();

    const report = Object.fromEntries(
      Object.entries(compared).map(([outcome, times]) => [
        outcome,
        {
          known: summary(times.known),
          unknown: summary(times.unknown),
          p_known_longer: round(probabilityLonger(times.known, times.unknown), 3),
        },
      ]),
    );
    const result = { measured_at: new Date().toISOString(), argon2_setting: formatArgon2Setting(SETTING), outcomes: report };
    if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else {
      for (const [outcome, r] of Object.entries(report)) {
        process.stdout.write(
          `${outcome.padEnd(22)} known ${r.known.median_ms} ms median (${r.known.p25_ms}-${r.known.p75_ms}, n=${r.known.n}); ` +
            `unknown ${r.unknown.median_ms} ms (${r.unknown.p25_ms}-${r.unknown.p75_ms}, n=${r.unknown.n}); P(known longer) ${r.p_known_longer}\n`,
        );
      }
    }
  } finally {
    dynamodb.process.kill('SIGTERM');
  }
}

await main();
