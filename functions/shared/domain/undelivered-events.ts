/**
 * Undelivered lifecycle events: an event whose delivery kept failing is kept whole (its full
 * detail, never a stream position) until an operator replays it (`admin replay-events`), for at
 * least 14 days. The port the delivery and the replay share.
 */

import { hash } from 'node:crypto';
import type { LifecycleEvent } from '#contract/lifecycle-events';

export interface UndeliveredEvent {
  /** The same event kept twice (a retried batch) is one entry: a digest of the de-duplication fields. */
  readonly id: string;
  readonly event: LifecycleEvent;
  /** The stream record it came from (its sequence number): the ledger entry of a deletion names it. */
  readonly changeId: string;
  /** Why it was not delivered: an error's name or code, never its text. */
  readonly failure: string;
  readonly keptAt: string;
}

export interface UndeliveredEventStore {
  keep(events: readonly UndeliveredEvent[]): Promise<void>;
  /** Every kept event, oldest first. */
  list(): Promise<UndeliveredEvent[]>;
  remove(id: string): Promise<void>;
  /**
   * Claims a kept event for one replay for `leaseMs`: false when it is gone or another replay holds
   * it, so two replays at once never publish it twice. A claim left by a crash lapses.
   */
  claim(id: string, leaseMs: number): Promise<boolean>;
  /** Gives a claimed event back (its publish failed), so the next replay need not wait for the claim to lapse. */
  release(id: string): Promise<void>;
}

/** An event's identity, as consumers de-duplicate it: type, owner, user and time. */
export function undeliveredEventId(event: LifecycleEvent): string {
  const { owner_id, user_email, occurred_at } = event.detail;
  return hash('sha256', JSON.stringify([event['detail-type'], owner_id, user_email, occurred_at]), 'hex');
}
