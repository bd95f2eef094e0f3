/**
 * What the costly lane (costly-lane.ts) does for an e-mail the owner has no user for, once it knows how the
 * lane has been answering known users (docs/adr/0034-lane-for-known-users.md): such an attempt can only
 * ever be `wrong`, so it takes no place at all. It replays instead one of the last LANE_SAMPLES.kept
 * answers that known users' attempts with a hash of the same class got (`busy` after so long, or a place
 * held so long from entering to the end of its verification), drawn at random: a spray of unknown
 * e-mails costs no CPU and never fills the lane, while an unknown e-mail's answer and time follow a known
 * user's. Until LANE_SAMPLES.needed answers of that class are known, it goes through the lane, behind
 * every known user.
 */

import { checkHash } from '@white-label-user-management/shared/domain/password-hashes';

/**
 * Answers kept per class (the most recent: few, so that the replay follows the lane within a few known
 * users' attempts), answers needed before one is replayed, classes kept at most.
 */
export const LANE_SAMPLES = { kept: 8, needed: 4, classes: 64 } as const;

/** A known user's answer from the lane: `busy` after `ms`, or a place held `ms` from entering to its release. */
export interface LaneSample {
  readonly busy: boolean;
  readonly ms: number;
}

/**
 * The class an attempt's answers are kept under: the hash's format and cost (never its salt), and whether
 * the account has failed since its last success (those wait behind the ones that have not).
 */
export function sampleClass(stored: string, failures: number): string | undefined {
  const verdict = checkHash(stored);
  if (!('accepted' in verdict)) return undefined;
  const { format } = verdict.accepted;
  const cost =
    verdict.accepted.format === 'bcrypt'
      ? verdict.accepted.cost
      : verdict.accepted.format === 'pbkdf2_sha256'
        ? verdict.accepted.iterations
        : `${verdict.accepted.memoryKiB},${verdict.accepted.passes},${verdict.accepted.lanes}`;
  return `${format}:${cost}:${failures === 0 ? 'fresh' : 'failed'}`;
}

export interface LaneSamples {
  record(cls: string, sample: LaneSample): void;
  /** One of the class's recent answers, at random; undefined while fewer than LANE_SAMPLES.needed are known. */
  draw(cls: string): LaneSample | undefined;
}

export function createLaneSamples(): LaneSamples {
  const classes = new Map<string, LaneSample[]>();
  const next = new Map<string, number>();
  return {
    record(cls, sample) {
      let kept = classes.get(cls);
      if (!kept) {
        kept = [];
        classes.set(cls, kept);
        if (classes.size > LANE_SAMPLES.classes) {
          const oldest = classes.keys().next().value as string;
          classes.delete(oldest);
          next.delete(oldest);
        }
      }
      const index = next.get(cls) ?? 0;
      kept[index] = sample;
      next.set(cls, (index + 1) % LANE_SAMPLES.kept);
    },
    draw(cls) {
      const kept = classes.get(cls);
      if (!kept || kept.length < LANE_SAMPLES.needed) return undefined;
      return kept[Math.floor(Math.random() * kept.length)];
    },
  };
}

/** Waits until `deadline` (performance.now() ms): a timer for most of it, then turns of the event loop, so it ends close to it. */
async function waitUntil(deadline: number): Promise<void> {
  const coarse = deadline - performance.now() - 2;
  if (coarse > 0) await new Promise((resolve) => setTimeout(resolve, coarse));
  while (performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * An unknown e-mail's entry, replaying `sample`: `busy` after its time, or a place whose verification ends
 * at its time after entering and never matches (no user has the e-mail). The account counts as in the lane
 * meanwhile (`accounts`), so that another attempt at it answers `busy` at once, as a known user's does.
 */
export async function ghostEntry<Busy>(
  key: string,
  sample: LaneSample,
  busy: Busy,
  accounts: Set<string>,
): Promise<Busy | { readonly place: { verify(stored: string, password: string): Promise<boolean>; release(): void } }> {
  const start = performance.now();
  accounts.add(key);
  if (sample.busy) {
    await waitUntil(start + sample.ms);
    accounts.delete(key);
    return busy;
  }
  let released = false;
  const place = {
    async verify() {
      if (released) throw new Error('costly lane: verify after release');
      await waitUntil(start + sample.ms);
      return false;
    },
    release() {
      if (released) return;
      released = true;
      accounts.delete(key);
    },
  };
  return { place };
}
