import type { UndeliveredEventStore } from '#domain/undelivered-events';
import { deliverEvents, type EventSink, failureName } from './lifecycle-events';

export interface ReplayOutcome {
  /** Events kept when the replay began. */
  readonly undelivered: number;
  /** Published (deletions recorded in the ledger first) and removed from the store. */
  readonly replayed: number;
  /** Still undelivered: kept for the next replay. */
  readonly failed: number;
  /** Being replayed by another run at the same time (claimed by it): left to it. Absent when none. */
  readonly elsewhere?: number;
  /** Why the first of them failed, by error name. */
  readonly failure?: string;
}

/**
 * How long a replay holds a kept event it claimed: far more than one publish takes; a replay that
 * crashed holding it leaves it to the next after this.
 */
export const CLAIM_MS = 60_000;

/**
 * `admin replay-events`: publishes every kept event through `sink`, oldest first (each deletion
 * recorded in the ledger first), and removes it once accepted. Each is claimed first, conditionally:
 * two replays at once never both publish one event. Safe to run again: what failed stays
 * kept, and an event published twice (a crash between publish and removal) is one that consumers
 * already de-duplicate.
 */
export async function replayUndelivered(
  store: UndeliveredEventStore,
  sink: EventSink,
  options: { dryRun?: boolean } = {},
): Promise<ReplayOutcome> {
  const kept = await store.list();
  if (options.dryRun) return { undelivered: kept.length, replayed: 0, failed: 0 };
  let replayed = 0;
  let elsewhere = 0;
  let failure: string | undefined;
  // One at a time, oldest first: each claimed (another run's claim, or its removal, makes it theirs), published, removed.
  for (const { id, event, changeId } of kept) {
    let claimed: boolean;
    try {
      claimed = await store.claim(id, CLAIM_MS);
    } catch (error) {
      failure ??= failureName(error);
      continue;
    }
    if (!claimed) {
      elsewhere++;
      continue;
    }
    const { left, failure: why } = await deliverEvents([{ event, changeId }], sink);
    if (left.length > 0) {
      failure ??= why;
      // Best effort: a claim not given back lapses after CLAIM_MS anyway.
      await store.release(id).catch(() => undefined);
      continue;
    }
    try {
      await store.remove(id);
      replayed++;
    } catch (error) {
      // Published but still kept: the next replay publishes it again, which consumers de-duplicate.
      failure ??= failureName(error);
    }
  }
  return {
    undelivered: kept.length,
    replayed,
    failed: kept.length - replayed - elsewhere,
    ...(elsewhere > 0 && { elsewhere }),
    ...(failure && { failure }),
  };
}
