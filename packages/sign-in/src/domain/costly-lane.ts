/**
 * The lane for costly verifications (hash-cost.ts): a bounded number of places per process, each
 * attempt waiting at most a deadline; past it, or when the queue is full, the answer is `busy` and
 * nothing is verified. It is fair (docs/adr/0027-fair-lane-and-migrated-users.md): an account (its key)
 * has at most one attempt waiting or verifying, and any other attempt at it answers `busy` at once;
 * the waiting are served fewest consecutive failures first (then in arrival order), and a full queue
 * gives the place of its most-failed waiter to a newcomer with fewer failures, so that the accounts an
 * attacker guesses at wait behind a user nobody attacks. A verification already running cannot be
 * overtaken, so one more place (FRESH_PLACE) serves only accounts with no consecutive failure whose
 * hash is a usual migration's (hash-cost.ts: bcrypt up to 12, PBKDF2 up to a million iterations,
 * argon2 up to 64 MiB): an attacker's verification at an import ceiling, however long, never holds it,
 * and each account's first guess is the only one that may use it. A place verifies in one of the lane's own worker threads
 * (verify-worker.ts), at the lowest CPU priority where the OS allows it, so neither the event loop
 * nor libuv's thread pool (where the stage's own argon2id verifications and the SDK's work run) ever
 * waits behind an imported hash. At most `concurrency` such verifications are in memory at once.
 *
 * The lane keeps its places for known users (docs/adr/0034-lane-for-known-users.md): an attempt at an e-mail
 * the owner has no user for waits behind every known user's, in both queues, and a full queue gives its
 * place to a known newcomer; once the lane has seen enough known users' answers for a hash's class, such an
 * attempt takes no place at all and replays one of them (lane-ghosts.ts).
 */

import { checkHash } from '@white-label-user-management/shared/domain/password-hashes';
import { isUsualMigration } from './hash-cost';
import { createLaneSamples, ghostEntry, sampleClass } from './lane-ghosts';
import { createVerifierPool, type VerifierPool } from './verify-worker';

export interface CostlyLaneOptions {
  /** Costly verifications at once in this process (each in its own worker thread). @default 1 */
  readonly concurrency?: number;
  /** How long an attempt waits for a place before it answers `busy`, in ms. @default 5000 */
  readonly maxWaitMs?: number;
  /** Attempts waiting at most; one more answers `busy` at once. @default 32 */
  readonly maxQueue?: number;
}

export const COSTLY_LANE_DEFAULTS = { concurrency: 1, maxWaitMs: 5_000, maxQueue: 32 } as const;

/**
 * The stated memory bound of verifications in a process (docs/data-contract.md) allows this much,
 * in MiB, beyond the places' argon2 memory and the thread pool's: a worker thread and its buffers.
 */
export const LANE_OVERHEAD_MIB = 64;

/** A place in the lane: verify in it, then release it (exactly once). */
export interface LanePlace {
  verify(stored: string, password: string): Promise<boolean>;
  release(): void;
}

export type LaneEntry = { readonly place: LanePlace } | { readonly busy: true; readonly retryAfterSeconds: number };

export interface CostlyLane {
  /**
   * Waits for a place for the account `key`, whose consecutive failures are `failures` and whose hash is
   * `stored`: `busy` at once when that account already has an attempt waiting or verifying, or when the
   * queue is full of attempts no further behind; `busy` past the deadline. `unknown`: no user has the
   * e-mail (`stored` is a dummy), so the attempt goes behind every known user's, or replays a known one's answer.
   */
  enter(key: string, failures: number, stored?: string, unknown?: boolean): Promise<LaneEntry>;
  /** `busy` when the account `key` has an attempt waiting or verifying now (then another answers at once, with no read). */
  busyFor(key: string): LaneEntry | undefined;
  /** Places taken and attempts waiting now (for tests and measurements). */
  readonly load: { readonly active: number; readonly waiting: number };
  /** Ends the worker threads (the tool's shutdown; idle workers never keep a process alive). */
  close(): Promise<void>;
}

const positive = (value: number | undefined, fallback: number, what: string): number => {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 1) throw new RangeError(`${what} must be a positive integer, got ${String(value)}`);
  return chosen;
};

/** The place for accounts with no consecutive failure and a usual migration's hash: one, in a worker of its own. */
export const FRESH_PLACE = { places: 1, maxMemoryKiB: 65_536 } as const;

/**
 * A lane whose places verify with `pool` (default: worker threads, one per place), and whose fresh place
 * (FRESH_PLACE) verifies with `freshPool` (default: a worker thread of its own).
 */
export function createCostlyLane(options: CostlyLaneOptions = {}, pool?: VerifierPool, freshPool?: VerifierPool): CostlyLane {
  const concurrency = positive(options.concurrency, COSTLY_LANE_DEFAULTS.concurrency, 'costlyLane.concurrency');
  const maxWaitMs = positive(options.maxWaitMs, COSTLY_LANE_DEFAULTS.maxWaitMs, 'costlyLane.maxWaitMs');
  const maxQueue = positive(options.maxQueue, COSTLY_LANE_DEFAULTS.maxQueue, 'costlyLane.maxQueue');
  /** The accounts with an attempt waiting or holding a place, in either queue. */
  const accounts = new Set<string>();
  const main = createQueue(concurrency, maxWaitMs, maxQueue, pool ?? createVerifierPool(concurrency), accounts);
  const fresh = createQueue(FRESH_PLACE.places, maxWaitMs, maxQueue, freshPool ?? createVerifierPool(FRESH_PLACE.places, 0), accounts);
  const samples = createLaneSamples();
  return {
    busyFor: (key) => (accounts.has(key) ? main.busy : undefined),
    async enter(key, failures, stored, unknown = false) {
      if (accounts.has(key)) return main.busy;
      const queue = failures === 0 && stored !== undefined && isUsualMigration(stored, FRESH_PLACE.maxMemoryKiB) ? fresh : main;
      const cls = stored === undefined ? undefined : sampleClass(stored, failures);
      if (unknown) {
        const sample = cls === undefined ? undefined : samples.draw(cls);
        return sample ? ghostEntry(key, sample, main.busy, accounts) : queue.enter(key, failures, true);
      }
      const start = performance.now();
      const entry = await queue.enter(key, failures, false);
      if (cls === undefined) return entry;
      if ('busy' in entry) {
        samples.record(cls, { busy: true, ms: performance.now() - start });
        return entry;
      }
      // A known user's place, timed from entering to its release, for unknown e-mails to replay.
      let released = false;
      const release = () => {
        if (!released) samples.record(cls, { busy: false, ms: performance.now() - start });
        released = true;
        entry.place.release();
      };
      return { place: { verify: entry.place.verify, release } };
    },
    get load() {
      return { active: main.load.active + fresh.load.active, waiting: main.load.waiting + fresh.load.waiting };
    },
    close: async () => {
      await Promise.all([main.close(), fresh.close()]);
    },
  };
}

/** One queue of places, known users first, then fewest failures; `accounts` is shared by the lane's queues. */
function createQueue(concurrency: number, maxWaitMs: number, maxQueue: number, verifiers: VerifierPool, accounts: Set<string>) {
  const busy: LaneEntry = { busy: true, retryAfterSeconds: Math.ceil(maxWaitMs / 1000) };
  interface Waiter {
    readonly key: string;
    readonly unknown: boolean;
    readonly failures: number;
    readonly arrival: number;
    readonly admit: () => void;
    readonly refuse: () => void;
    readonly timer: NodeJS.Timeout;
  }
  /** Waiting attempts, kept sorted: known users first, then fewest failures, then earliest arrival (at most maxQueue: a sorted insert is enough). */
  const waiting: Waiter[] = [];
  let active = 0;
  let arrivals = 0;

  /** Whether `a` goes before `b` (the same arrival: whether it goes before all of `b`'s rank). */
  const before = (a: Pick<Waiter, 'unknown' | 'failures'>, b: Pick<Waiter, 'unknown' | 'failures'>) =>
    a.unknown !== b.unknown ? b.unknown : a.failures < b.failures;
  const ahead = (a: Waiter, b: Waiter) => before(a, b) || (!before(b, a) && a.arrival < b.arrival);
  const remove = (waiter: Waiter) => {
    const index = waiting.indexOf(waiter);
    if (index !== -1) waiting.splice(index, 1);
    clearTimeout(waiter.timer);
  };

  const place = (key: string): LanePlace => {
    let released = false;
    return {
      verify(stored, password) {
        if (released) throw new Error('costly lane: verify after release');
        const verdict = checkHash(stored);
        if (!('accepted' in verdict)) return Promise.resolve(false);
        return verifiers.verify(verdict.accepted.format, stored, password);
      },
      release() {
        if (released) return;
        released = true;
        accounts.delete(key);
        const next = waiting.shift();
        if (next) {
          clearTimeout(next.timer);
          next.admit();
        } else {
          active--;
        }
      },
    };
  };

  return {
    busy,
    enter(key: string, failures: number, unknown: boolean): Promise<LaneEntry> {
      if (accounts.has(key)) return Promise.resolve(busy);
      if (active < concurrency && waiting.length === 0) {
        active++;
        accounts.add(key);
        return Promise.resolve({ place: place(key) });
      }
      if (waiting.length >= maxQueue) {
        const last = waiting[waiting.length - 1]!;
        if (!before({ unknown, failures }, last)) return Promise.resolve(busy);
        // The last waiter (an unknown e-mail's, or the most-failed) gives its turn to a newcomer before it.
        remove(last);
        last.refuse();
      }
      accounts.add(key);
      return new Promise<LaneEntry>((resolve) => {
        const waiter: Waiter = {
          key,
          unknown,
          failures,
          arrival: arrivals++,
          // The place passes straight from the releasing attempt to this one: `active` stays as it is.
          admit: () => resolve({ place: place(key) }),
          refuse: () => {
            accounts.delete(key);
            resolve(busy);
          },
          timer: setTimeout(() => {
            remove(waiter);
            waiter.refuse();
          }, maxWaitMs),
        };
        let index = waiting.length;
        while (index > 0 && ahead(waiter, waiting[index - 1]!)) index--;
        waiting.splice(index, 0, waiter);
      });
    },
    get load() {
      return { active, waiting: waiting.length };
    },
    close: () => verifiers.close(),
  };
}
