/**
 * The sign-in's plain rules: the wait schedule and its fastest lockout, the decision on a state read,
 * which hashes go to the costly lane, the lane's order, bound and deadline, and the one description
 * of the stream records that reach the lifecycle-events consumer.
 */

import { describe, expect, it } from '@jest/globals';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { LIFECYCLE_RECORD_PATTERNS, matchesPattern, passesRecordFilter } from '#events/record-filter';
import { DEFAULT_ARGON2_SETTING, OWASP_ARGON2ID_SETTINGS } from '#platform/config';
import { createCostlyLane, type LaneEntry } from '#sign-in/domain/costly-lane';
import { isCostly, verificationCost } from '#sign-in/domain/hash-cost';
import {
  decideAttempt,
  FREE_FAILURES,
  fastestLockoutSeconds,
  hashTag,
  MAX_FAILED_SIGN_INS,
  NO_PROFILE_TAG,
  UNKNOWN_STATE_DAYS,
  UNTRUSTED_FAILURE_LIMIT,
  waitAfterFailure,
} from '#sign-in/domain/sign-in-attempts';
import { DEVICE_FAILURE_LIMIT, MAX_DEVICES_PER_USER } from '#sign-in/domain/trusted-devices';
import type { VerifierPool } from '#sign-in/domain/verify-worker';

describe('the wait schedule', () => {
  const waits = Array.from({ length: UNTRUSTED_FAILURE_LIMIT + 1 }, (_, failures) => waitAfterFailure(failures));

  it("none for the first five failures, then NIST's 30 seconds growing to an hour at the 59th; the 60th locks instead (100 less C devices × L failures)", () => {
    expect(FREE_FAILURES).toBe(5);
    expect([MAX_DEVICES_PER_USER, DEVICE_FAILURE_LIMIT]).toEqual([8, 5]);
    expect(UNTRUSTED_FAILURE_LIMIT).toBe(MAX_FAILED_SIGN_INS - MAX_DEVICES_PER_USER * DEVICE_FAILURE_LIMIT);
    expect(UNTRUSTED_FAILURE_LIMIT).toBe(60);
    expect(waits.slice(0, 6)).toEqual([0, 0, 0, 0, 0, 0]);
    expect([waits[6], waits[59], waits[60]]).toEqual([30, 3600, 0]);
    for (let failures = 7; failures < UNTRUSTED_FAILURE_LIMIT; failures++) expect(waits[failures]!).toBeGreaterThan(waits[failures - 1]!);
  });

  it('the fastest way from no failure to locked takes at least 24 hours: the sum of the waits', () => {
    expect(fastestLockoutSeconds()).toBe(waits.reduce((sum, wait) => sum + wait, 0));
    expect(fastestLockoutSeconds()).toBe(98_010);
    expect(fastestLockoutSeconds()).toBeGreaterThanOrEqual(86_400);
  });
});

describe('deciding an attempt on the state read', () => {
  const now = Date.UTC(2026, 0, 1);
  const tag = hashTag('$argon2id$v=19$m=7168,t=5,p=1$c29tZXNhbHQ$aGFzaA');

  it('counts first, with the wait the new count imposes; an unknown e-mail the same way, expiring', () => {
    expect(decideAttempt(undefined, tag, now)).toEqual({ next: { failures: 1, waitUntil: now, tag } });
    expect(decideAttempt({ failures: 5, waitUntil: now, tag }, tag, now)).toEqual({ next: { failures: 6, waitUntil: now + 30_000, tag } });
    expect(decideAttempt(undefined, NO_PROFILE_TAG, now)).toEqual({
      next: { failures: 1, waitUntil: now, tag: NO_PROFILE_TAG, expiresAt: now / 1000 + UNKNOWN_STATE_DAYS * 86_400 },
    });
  });

  it('throttled during a wait (rounded up to whole seconds), locked at the limit', () => {
    expect(decideAttempt({ failures: 6, waitUntil: now + 29_001, tag }, tag, now)).toEqual({ refused: 'throttled', retryAfterSeconds: 30 });
    expect(decideAttempt({ failures: 6, waitUntil: now + 1, tag }, tag, now)).toEqual({ refused: 'throttled', retryAfterSeconds: 1 });
    expect(decideAttempt({ failures: UNTRUSTED_FAILURE_LIMIT, waitUntil: 0, tag }, tag, now)).toEqual({ refused: 'locked' });
  });

  it('a count against another hash (a reset since) or an expired one is no count', () => {
    expect(decideAttempt({ failures: UNTRUSTED_FAILURE_LIMIT, waitUntil: 0, tag: hashTag('another') }, tag, now)).toMatchObject({
      next: { failures: 1 },
    });
    const expired = { failures: UNTRUSTED_FAILURE_LIMIT, waitUntil: 0, tag: NO_PROFILE_TAG, expiresAt: now / 1000 };
    expect(decideAttempt(expired, NO_PROFILE_TAG, now)).toMatchObject({ next: { failures: 1 } });
    expect(decideAttempt({ ...expired, expiresAt: now / 1000 + 1 }, NO_PROFILE_TAG, now)).toEqual({ refused: 'locked' });
  });
});

describe('which hashes are costly', () => {
  it("the stage's own settings never; imported hashes past four times the stage's work or memory", async () => {
    for (const setting of OWASP_ARGON2ID_SETTINGS) {
      expect(isCostly(await argon2Hash('x', { algorithm: 2, ...setting }), DEFAULT_ARGON2_SETTING)).toBe(setting.memoryCost > 4 * 7168);
    }
    const ceilingArgon2 = '$argon2id$v=19$m=262144,t=10,p=8$c29tZXNhbHRzb21lc2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
    expect(verificationCost(ceilingArgon2)).toEqual({ work: 262_144 * 10 * 8, memoryKiB: 262_144 });
    expect(isCostly(ceilingArgon2, DEFAULT_ARGON2_SETTING)).toBe(true);
    expect(isCostly(bcrypt.hashSync('x', 4), DEFAULT_ARGON2_SETTING)).toBe(false);
    expect(isCostly('$2b$14$abcdefghijklmnopqrstuu5dSfb0l5y2l5Ct1c2GEaj5Uzm2YFlMm', DEFAULT_ARGON2_SETTING)).toBe(true);
    const pbkdf2 = (iterations: number) => `pbkdf2_sha256$${iterations}$salt$${Buffer.alloc(32).toString('base64')}`;
    expect([isCostly(pbkdf2(100_000), DEFAULT_ARGON2_SETTING), isCostly(pbkdf2(2_000_000), DEFAULT_ARGON2_SETTING)]).toEqual([false, true]);
    expect(isCostly('not a hash', DEFAULT_ARGON2_SETTING)).toBe(false);
  });
});

describe('the costly lane', () => {
  /** A pool whose verifications finish when the test says. */
  function manualPool() {
    const pending: (() => void)[] = [];
    const pool: VerifierPool = {
      verify: () => new Promise<boolean>((resolve) => pending.push(() => resolve(true))),
      close: async () => {},
    };
    return { pool, finishNext: () => pending.shift()?.() };
  }
  const costly = '$2b$14$abcdefghijklmnopqrstuu5dSfb0l5y2l5Ct1c2GEaj5Uzm2YFlMm';

  it('places in arrival order, never more than its concurrency; a released place passes to the next in line', async () => {
    const { pool } = manualPool();
    const lane = createCostlyLane({ concurrency: 2, maxWaitMs: 60_000 }, pool);
    const order: number[] = [];
    const entries = Array.from({ length: 5 }, (_, i) =>
      lane.enter(`account-${i}`, 0).then((entry) => {
        order.push(i);
        return entry;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect([order, lane.load]).toEqual([[0, 1], { active: 2, waiting: 3 }]);
    const first = (await entries[0]!) as Extract<LaneEntry, { place: unknown }>;
    first.place.release();
    first.place.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect([order, lane.load]).toEqual([[0, 1, 2], { active: 2, waiting: 2 }]);
    for (const index of [1, 2, 3, 4]) ((await entries[index]!) as Extract<LaneEntry, { place: unknown }>).place.release();
    expect(lane.load).toEqual({ active: 0, waiting: 0 });
  });

  it('busy, with the seconds to retry after, past the deadline or beyond the queue; a busy attempt verifies nothing', async () => {
    const { pool, finishNext } = manualPool();
    const lane = createCostlyLane({ concurrency: 1, maxWaitMs: 50, maxQueue: 1 }, pool);
    const held = (await lane.enter('a', 0)) as Extract<LaneEntry, { place: unknown }>;
    const verifying = held.place.verify(costly, 'x');
    const waiting = lane.enter('b', 0);
    expect(await lane.enter('c', 0)).toEqual({ busy: true, retryAfterSeconds: 1 });
    expect(await waiting).toEqual({ busy: true, retryAfterSeconds: 1 });
    expect(lane.load).toEqual({ active: 1, waiting: 0 });
    finishNext();
    expect(await verifying).toBe(true);
    held.place.release();
    expect(lane.load).toEqual({ active: 0, waiting: 0 });
  });

  it('one attempt per account waiting or verifying: another at it is busy at once, and once released it may enter again', async () => {
    const { pool } = manualPool();
    const lane = createCostlyLane({ concurrency: 1, maxWaitMs: 60_000 }, pool);
    const held = (await lane.enter('attacked', 7)) as Extract<LaneEntry, { place: unknown }>;
    expect(await lane.enter('attacked', 7)).toEqual({ busy: true, retryAfterSeconds: 60 });
    const waiting = lane.enter('other', 0);
    expect(await lane.enter('other', 0)).toEqual({ busy: true, retryAfterSeconds: 60 });
    expect(lane.load).toEqual({ active: 1, waiting: 1 });
    held.place.release();
    const admitted = (await waiting) as Extract<LaneEntry, { place: unknown }>;
    const again = lane.enter('attacked', 8);
    expect(lane.load).toEqual({ active: 1, waiting: 1 });
    admitted.place.release();
    ((await again) as Extract<LaneEntry, { place: unknown }>).place.release();
    expect(lane.load).toEqual({ active: 0, waiting: 0 });
  });

  it('fewer consecutive failures go first, then arrival order; a full queue gives its most-failed waiter’s turn to a newcomer with fewer', async () => {
    const { pool } = manualPool();
    const lane = createCostlyLane({ concurrency: 1, maxWaitMs: 60_000, maxQueue: 4 }, pool);
    const held = (await lane.enter('first', 0)) as Extract<LaneEntry, { place: unknown }>;
    const order: string[] = [];
    const entries = new Map<string, Promise<LaneEntry>>();
    const enter = (key: string, failures: number) =>
      entries.set(
        key,
        lane.enter(key, failures).then((entry) => {
          order.push('busy' in entry ? `${key} busy` : key);
          return entry;
        }),
      );
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    const release = async (key: string) => ((await entries.get(key)!) as Extract<LaneEntry, { place: unknown }>).place.release();
    enter('attacked-a', 50);
    enter('attacked-b', 10);
    enter('quiet', 0);
    enter('attacked-c', 10);
    // The queue is full: as many failures as its last waiter is busy; fewer takes its place.
    enter('attacked-d', 50);
    enter('quiet-2', 1);
    await tick();
    expect(order).toEqual(['attacked-d busy', 'attacked-a busy']);
    held.place.release();
    for (const key of ['quiet', 'quiet-2', 'attacked-b', 'attacked-c']) {
      await tick();
      await release(key);
    }
    expect(order).toEqual(['attacked-d busy', 'attacked-a busy', 'quiet', 'quiet-2', 'attacked-b', 'attacked-c']);
    expect(lane.load).toEqual({ active: 0, waiting: 0 });
  });

  it('the fresh place: an account with no consecutive failure and a usual migration’s hash verifies there, past a running ceiling verification; any other in the main places', async () => {
    const main = manualPool();
    const fresh = manualPool();
    const seen: string[] = [];
    const watched = (name: string, pool: VerifierPool): VerifierPool => ({
      ...pool,
      verify: (format, stored, password) => {
        seen.push(`${name} ${stored.slice(0, 6)}`);
        return pool.verify(format, stored, password);
      },
    });
    const lane = createCostlyLane({ concurrency: 1, maxWaitMs: 60_000 }, watched('main', main.pool), watched('fresh', fresh.pool));
    const bcrypt12 = '$2b$12$abcdefghijklmnopqrstuu5dSfb0l5y2l5Ct1c2GEaj5Uzm2YFlMm';
    const ceiling = (await lane.enter('attacked', 0, costly)) as Extract<LaneEntry, { place: unknown }>;
    void ceiling.place.verify(costly, 'x');
    expect(lane.busyFor('attacked')).toEqual({ busy: true, retryAfterSeconds: 60 });
    expect(lane.busyFor('user')).toBeUndefined();
    const user = (await lane.enter('user', 0, bcrypt12)) as Extract<LaneEntry, { place: unknown }>;
    void user.place.verify(bcrypt12, 'x');
    const typo = lane.enter('typo', 1, bcrypt12);
    expect(lane.load).toEqual({ active: 2, waiting: 1 });
    expect(seen).toEqual(['main $2b$14', 'fresh $2b$12']);
    // The typo's account has a failure: it waits for the main place, not for the fresh one the user frees.
    user.place.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lane.load).toEqual({ active: 1, waiting: 1 });
    ceiling.place.release();
    ((await typo) as Extract<LaneEntry, { place: unknown }>).place.release();
    expect(lane.load).toEqual({ active: 0, waiting: 0 });
  });

  it('verifies in a worker thread, every accepted format, and a hash it cannot verify is false', async () => {
    const lane = createCostlyLane();
    const entry = (await lane.enter('a', 0)) as Extract<LaneEntry, { place: unknown }>;
    try {
      const hashes = [
        await argon2Hash('right', { algorithm: 2, memoryCost: 8192, timeCost: 1, parallelism: 2 }),
        bcrypt.hashSync('right', 4),
        `pbkdf2_sha256$1000$salt$${(await import('node:crypto')).pbkdf2Sync('right', 'salt', 1000, 32, 'sha256').toString('base64')}`,
      ];
      for (const stored of hashes)
        expect([await entry.place.verify(stored, 'right'), await entry.place.verify(stored, 'wrong')]).toEqual([true, false]);
      expect(await entry.place.verify('$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA', 'right')).toBe(false);
    } finally {
      entry.place.release();
      await lane.close();
    }
  });
});

describe("the consumer's filter: one description, matched here as Lambda matches it", () => {
  const S = (value: string) => ({ S: value });
  const record = (eventName: string, sk: string, images: { NewImage?: object; OldImage?: object } = {}) => ({
    eventName,
    dynamodb: { Keys: { pk: S('o#jane@example.com'), sk: S(sk) }, ...images },
  });
  const profile = { pk: S('o#jane@example.com'), sk: S('PROFILE'), password_hash: S('$argon2id$...') };
  const rehashed = { ...profile, password_rehashed_at: S('2026-01-01T00:00:00.000Z') };

  it.each([
    ['a created profile', true, record('INSERT', 'PROFILE', { NewImage: profile })],
    ['a reset profile', true, record('MODIFY', 'PROFILE', { NewImage: profile, OldImage: rehashed })],
    ['a deleted profile', true, record('REMOVE', 'PROFILE', { OldImage: rehashed })],
    ["a sign-in's rehash", false, record('MODIFY', 'PROFILE', { NewImage: rehashed, OldImage: profile })],
    ["a sign-in's count", false, record('MODIFY', 'SIGN_IN', { NewImage: { failures: { N: '2' } } })],
    ["a success's delete of the state, or its TTL", false, record('REMOVE', 'SIGN_IN', { OldImage: { failures: { N: '2' } } })],
    ["a tool's own item", false, record('INSERT', 'DOC#1', { NewImage: {} })],
  ])('%s passes: %s', (_, passes, change) => {
    expect(passesRecordFilter(change)).toBe(passes);
  });

  it('lists match a value among them; exists: false an absent leaf', () => {
    expect(LIFECYCLE_RECORD_PATTERNS).toHaveLength(2);
    expect(matchesPattern({ a: ['x', 'y'] }, { a: 'y' })).toBe(true);
    expect(matchesPattern({ a: ['x'] }, { a: 'z' })).toBe(false);
    expect(matchesPattern({ a: ['x'] }, {})).toBe(false);
    expect(matchesPattern({ a: { b: [{ exists: false }] } }, { a: { c: 1 } })).toBe(true);
    expect(matchesPattern({ a: { b: [{ exists: false }] } }, { a: { b: 'v' } })).toBe(false);
    expect(matchesPattern({ a: { b: [{ exists: true }] } }, { a: { b: 'v' } })).toBe(true);
  });
});
