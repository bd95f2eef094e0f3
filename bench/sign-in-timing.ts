/**
 * `npx tsx bench/sign-in-timing.ts [--json] [--attempts N]`: can an attacker tell a known e-mail from
 * an unknown one by the time a sign-in takes? The sign-in module (as a tool builds it) on its own
 * DynamoDB Local, in memory: for each outcome an attacker can provoke on both (`wrong`, `throttled`,
 * `locked`), at least N attempts at known e-mails (users at the stage's argon2id setting) and N at
 * unknown ones, interleaved in random order so that drift in the machine's load falls on both alike.
 * Reports each side's median and quartiles and the probability that a known e-mail's attempt takes
 * longer than an unknown one's (0.5: no difference; the Mann-Whitney statistic over every pair).
 *
 * Each e-mail takes at most six counted attempts (the sixth failure is the first with a wait), so
 * `wrong` needs no clock; `locked` is reached under a fake clock moved past each wait. Run it on a
 * quiet machine: a loaded one adds noise to both sides (ADR 18 keeps the figures it quotes).
 */

import { randomUUID } from 'node:crypto';
import { hashPassword } from '#domain/passwords';
import { FREE_FAILURES, MAX_FAILED_SIGN_INS } from '#domain/sign-in-attempts';
import { formatArgon2Setting, parseArgon2Setting } from '#platform/config';
import { createDocumentClient, localConnection } from '#store/client';
import { LOCAL_TABLES } from '#store/local-engine';
import { createUsersStore } from '#store/users-store';
import { ensureTables, startDynamoDbLocal } from '../local/dynamodb-local';
import { freePort } from '../local/free-port';
import { createSignIn } from '../packages/sign-in/src/index';
import { percentile, progress, round } from './stats';

const args = process.argv.slice(2);
const json = args.includes('--json');
const at = args.indexOf('--attempts');
const ATTEMPTS = at >= 0 ? Number(args[at + 1]) : 300;
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
    const ownerId = randomUUID();
    const db = createDocumentClient({ endpoint: dynamodb.endpoint });
    const users = createUsersStore(db, LOCAL_TABLES.usersTableName, LOCAL_TABLES.signInTableName);
    let clock = Date.now();
    const tool = createSignIn({
      usersTable: LOCAL_TABLES.usersTableName,
      signInTable: LOCAL_TABLES.signInTableName,
      argon2Setting: formatArgon2Setting(SETTING),
      dynamodb: localConnection(dynamodb.endpoint),
      now: () => clock,
    });
    const emails = Math.ceil(ATTEMPTS / PER_EMAIL);
    progress(`${emails} known users at ${formatArgon2Setting(SETTING)}, ${emails} unknown e-mails`);
    const known = Array.from({ length: emails }, (_, i) => `known-${i}-${randomUUID().slice(0, 8)}@example.com`);
    const unknown = Array.from({ length: emails }, (_, i) => `unknown-${i}-${randomUUID().slice(0, 8)}@example.com`);
    for (const email of known) {
      await users.createUser({ ownerId, email, passwordHash: await hashPassword(randomUUID(), SETTING), shouldResetPassword: false });
    }
    const timed = async (email: string, expected: string) => {
      const start = performance.now();
      const { outcome } = await tool.signIn({ ownerId, email, password: `guess ${randomUUID()}` });
      const elapsed = performance.now() - start;
      if (outcome !== expected) throw new Error(`expected ${expected}, got ${outcome}`);
      return elapsed;
    };
    /** Every e-mail of both sides `rounds` times, in one random order; the times by side. */
    const measure = async (rounds: number, expected: string) => {
      const times = { known: [] as number[], unknown: [] as number[] };
      const order = shuffle([...known, ...unknown].flatMap((email) => Array.from({ length: rounds }, () => email)));
      for (const email of order) (email.startsWith('known-') ? times.known : times.unknown).push(await timed(email, expected));
      return times;
    };
    // Warm up: the dummy hash, the SDK's connections.
    for (let i = 0; i < 20; i++) await tool.signIn({ ownerId, email: `warm-${i}@example.com`, password: 'warm' });

    progress(`wrong: ${PER_EMAIL} attempts at each e-mail`);
    const wrong = await measure(PER_EMAIL, 'wrong');
    progress('throttled: 5 more at each (the wait after the 6th failure)');
    const throttled = await measure(5, 'throttled');
    progress(`locked: ${MAX_FAILED_SIGN_INS} failures on a fifth of them under a fake clock, then 25 attempts at each`);
    const lockedKnown = known.slice(0, Math.ceil(emails / 5));
    const lockedUnknown = unknown.slice(0, Math.ceil(emails / 5));
    for (const email of [...lockedKnown, ...lockedUnknown]) {
      for (;;) {
        const result = await tool.signIn({ ownerId, email, password: 'drive' });
        if (result.outcome === 'locked') break;
        if (result.outcome === 'throttled') clock += result.retryAfterSeconds * 1000;
      }
    }
    const locked = { known: [] as number[], unknown: [] as number[] };
    for (const email of shuffle([...lockedKnown, ...lockedUnknown].flatMap((e) => Array.from({ length: 25 }, () => e)))) {
      (email.startsWith('known-') ? locked.known : locked.unknown).push(await timed(email, 'locked'));
    }
    await tool.close();
    db.destroy();

    const report = Object.fromEntries(
      Object.entries({ wrong, throttled, locked }).map(([outcome, times]) => [
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
          `${outcome.padEnd(10)} known ${r.known.median_ms} ms median (${r.known.p25_ms}-${r.known.p75_ms}, n=${r.known.n}); ` +
            `unknown ${r.unknown.median_ms} ms (${r.unknown.p25_ms}-${r.unknown.p75_ms}, n=${r.unknown.n}); P(known longer) ${r.p_known_longer}\n`,
        );
      }
    }
  } finally {
    dynamodb.process.kill('SIGTERM');
  }
}

await main();
