import type { UndeliveredEvent, UndeliveredEventStore } from '#domain/undelivered-events';
import { readUndeliveredEventDays } from '#platform/config';
import { deliverEvents, type EventSink, failureName } from './lifecycle-events';

export interface ReplayOutcome {
  /** Events kept when the replay began, within their retention. */
  readonly undelivered: number;
  /**
   * Kept past their retention (DynamoDB's TTL had not removed them yet): never published, removed
   * (unless a dry run). Present only when there were some.
   */
  readonly expired?: number;
  /** Published (deletions recorded in the ledger first) and removed from the store. */
  readonly replayed: number;
  /** Still undelivered: kept for the next replay. */
  readonly failed: number;
  /** Being replayed by another run at the same time (claimed by it): left to it. Absent when none. */
  readonly elsewhere?: number;
  /** Why the first of them failed, by error name. */
  readonly failure?: string;
}

/** Whether a kept event is past its retention: the moment its TTL (`expires_at`, whole seconds) is reached. */
const expiredAt = (event: UndeliveredEvent, retentionDays: number, now: number) =>
  now >= (Math.ceil(Date.parse(event.keptAt) / 1000) + retentionDays * 86_400) * 1000;

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
 * already de-duplicate. An event past its retention (`retentionDays`, UNDELIVERED_EVENT_DAYS) is
 * never published and is removed: DynamoDB's TTL deletes expired items only within days, and the
 * promise is that an undelivered event lives no longer than its retention.
 */
export async function replayUndelivered(
  store: UndeliveredEventStore,
  sink: EventSink,
  options: { dryRun?: boolean; retentionDays?: number; now?: number } = {},
): Promise<ReplayOutcome> {
  const retentionDays = options.retentionDays ?? readUndeliveredEventDays();
  const now = options.now ?? Date.now();
  const all = await store.list();
  const expired = all.filter((event) => expiredAt(event, retentionDays, now));
  const kept = all.filter((event) => !expired.includes(event));
  const expiredCount = expired.length > 0 ? { expired: expired.length } : {};
  if (options.dryRun) return { undelivered: kept.length, ...expiredCount, replayed: 0, failed: 0 };
  for (const { id } of expired) await store.remove(id);
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
    ...expiredCount,
    replayed,
    failed: kept.length - replayed - elsewhere,
    ...(elsewhere > 0 && { elsewhere }),
    ...(failure && { failure }),
  };
}
