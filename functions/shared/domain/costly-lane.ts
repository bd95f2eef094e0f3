/**
 * The lane for costly verifications (hash-cost.ts): a bounded number of places per process, taken in
 * arrival order, each waiting at most a deadline; past it, or when the queue is full, the answer is
 * `busy` and nothing is verified. A place verifies in one of the lane's own worker threads
 * (verify-worker.ts), at the lowest CPU priority where the OS allows it, so neither the event loop
 * nor libuv's thread pool (where the stage's own argon2id verifications and the SDK's work run) ever
 * waits behind an imported hash. At most `concurrency` such verifications are in memory at once.
 */

import { checkHash } from './password-hashes';
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
  /** Waits for a place, first come first served; `busy` past the deadline or when the queue is full. */
  enter(): Promise<LaneEntry>;
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

/** A lane whose places verify with `pool` (default: worker threads, one per place). */
export function createCostlyLane(options: CostlyLaneOptions = {}, pool?: VerifierPool): CostlyLane {
  const concurrency = positive(options.concurrency, COSTLY_LANE_DEFAULTS.concurrency, 'costlyLane.concurrency');
  const maxWaitMs = positive(options.maxWaitMs, COSTLY_LANE_DEFAULTS.maxWaitMs, 'costlyLane.maxWaitMs');
  const maxQueue = positive(options.maxQueue, COSTLY_LANE_DEFAULTS.maxQueue, 'costlyLane.maxQueue');
  const verifiers = pool ?? createVerifierPool(concurrency);
  const busy: LaneEntry = { busy: true, retryAfterSeconds: Math.ceil(maxWaitMs / 1000) };
  const waiting: { admit: () => void; timer: NodeJS.Timeout }[] = [];
  let active = 0;

  const place = (): LanePlace => {
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
    enter() {
      if (active < concurrency && waiting.length === 0) {
        active++;
        return Promise.resolve({ place: place() });
      }
      if (waiting.length >= maxQueue) return Promise.resolve(busy);
      return new Promise<LaneEntry>((resolve) => {
        const entry = {
          // The place passes straight from the releasing attempt to this one: `active` stays as it is.
          admit: () => resolve({ place: place() }),
          timer: setTimeout(() => {
            waiting.splice(waiting.indexOf(entry), 1);
            resolve(busy);
          }, maxWaitMs),
        };
        waiting.push(entry);
      });
    },
    get load() {
      return { active, waiting: waiting.length };
    },
    close: () => verifiers.close(),
  };
}
