/**
 * Lifecycle events, built from the users table's change stream: the one module that turns stream
 * records into `UserCreated`, `UserPasswordReset` and `UserDeleted`, used by the deployed stream
 * consumer (functions/publishLifecycleEvents) and by `npm start` (local/event-delivery.ts) alike.
 * An event exists because a write happened: a refused or failed write leaves no record behind.
 */

import { unmarshall } from '@aws-sdk/util-dynamodb';
import { EVENT_SOURCE, type LifecycleDetail, type LifecycleEvent, type LifecycleEventType } from '#contract/lifecycle-events';
import type { Deletion } from '#domain/deletions';
import { type UndeliveredEvent, undeliveredEventId } from '#domain/undelivered-events';
import { PROFILE_SK, REHASHED_AT_ATTRIBUTE, USERS_TABLE } from '#store/table-layout';

/**
 * A stream record as both Lambda (DynamoDBStreamEvent) and the DynamoDB Streams API hand it over:
 * images in AttributeValue form; the approximate time in epoch seconds (Lambda) or as a Date (SDK).
 */
export interface ChangeRecord {
  readonly eventName?: string;
  readonly dynamodb?: {
    readonly ApproximateCreationDateTime?: number | Date;
    readonly Keys?: Record<string, unknown>;
    readonly NewImage?: Record<string, unknown>;
    readonly OldImage?: Record<string, unknown>;
    readonly SequenceNumber?: string;
  };
}

type Image = Record<string, unknown>;
const image = (raw: Record<string, unknown> | undefined): Image | undefined => raw && unmarshall(raw as never);

/** Whether the record is about a user's profile item (everything else in a collection is associated data). */
export const isProfileChange = (record: ChangeRecord) => {
  const sortKey = USERS_TABLE.sortKey!.name;
  return (record.dynamodb?.Keys?.[sortKey] as { S?: string } | undefined)?.S === PROFILE_SK;
};

/** The stream's own time of the change (second precision deployed; DynamoDB Local rounds to the minute). */
function approximateTime(record: ChangeRecord): string | undefined {
  const at = record.dynamodb?.ApproximateCreationDateTime;
  if (at === undefined) return undefined;
  return (at instanceof Date ? at : new Date(at * 1000)).toISOString();
}

const times = (...candidates: unknown[]) => candidates.filter((t): t is string => typeof t === 'string' && !Number.isNaN(Date.parse(t)));
/** The first usable time. */
const first = (...candidates: unknown[]) => times(...candidates)[0];
/** The latest usable time. */
const latest = (...candidates: unknown[]) => times(...candidates).sort((a, b) => Date.parse(b) - Date.parse(a))[0];

/** The base of every detail, field by field: nothing else from the item can slip in. */
const detailOf = (item: Image, occurredAt: string) => ({
  owner_id: String(item.owner_id),
  user_email: String(item.user_email),
  white_label: item.white_label === true,
  occurred_at: occurredAt,
});

/**
 * The event a change means, or undefined: associated items, updates that leave the password as it
 * was (a sign-in's count, its upgrade of the hash), and anything not shaped like a profile produce none.
 */
export function lifecycleEventOf(record: ChangeRecord): LifecycleEvent | undefined {
  if (!isProfileChange(record)) return undefined;
  const before = image(record.dynamodb?.OldImage);
  const after = image(record.dynamodb?.NewImage);
  const event = (type: LifecycleEventType, detail: LifecycleDetail): LifecycleEvent => ({
    'detail-type': type,
    source: EVENT_SOURCE,
    detail,
  });
  switch (record.eventName) {
    case 'INSERT':
      if (!after) return undefined;
      return event('UserCreated', {
        // The time the service itself stored with the write (to the millisecond), else the stream's.
        // updated_at, not created_at: an imported user keeps its old creation time, and its event
        // must not look older than a deletion that came before the import.
        ...detailOf(after, first(after.updated_at, after.created_at, approximateTime(record)) ?? new Date().toISOString()),
        should_reset_password: after.should_reset_password === true,
      });
    case 'MODIFY':
      // A reset changes the hash. So does a sign-in's upgrade to argon2id, which marks its write
      // with a new rehash time: the same password, no event. A change of the failed sign-in count
      // leaves the hash as it was: no event either.
      if (!before || !after || before.password_hash === after.password_hash) return undefined;
      if (after[REHASHED_AT_ATTRIBUTE] !== undefined && after[REHASHED_AT_ATTRIBUTE] !== before[REHASHED_AT_ATTRIBUTE]) return undefined;
      return event('UserPasswordReset', detailOf(after, first(after.updated_at, approximateTime(record)) ?? new Date().toISOString()));
    case 'REMOVE':
      if (!before) return undefined;
      // The deleted item has no time of its own: the stream's, but never before the item's last write.
      return event('UserDeleted', detailOf(before, latest(approximateTime(record), before.updated_at) ?? new Date().toISOString()));
    default:
      return undefined;
  }
}

/** Where delivered changes go: an event bus or a file, and the deletion ledger. */
export interface EventSink {
  /** Publishes the events in order; resolves with one flag per event, true when it was accepted. */
  publish(events: readonly LifecycleEvent[]): Promise<boolean[]>;
  recordDeletion(deletion: Deletion): Promise<void>;
}

/** Events per publish call: EventBridge's PutEvents takes at most 10 entries. */
export const PUBLISH_BATCH = 10;

export interface DeliveryOptions {
  /**
   * Tries of a chunk of events before it counts as failed, the first included (a partial
   * PutEvents failure is retried for the rejected entries only). @default 1
   */
  readonly attempts?: number;
  /** Pause before the second try, doubled before each next one. @default 200 */
  readonly pauseMs?: number;
  /**
   * Where events that failed every try are kept whole (the undelivered-events store), so delivery
   * moves on. Without it, or when keeping fails too, delivery stops at the first failed record.
   */
  readonly keep?: (events: readonly UndeliveredEvent[]) => Promise<void>;
}

export interface DeliveryResult {
  /** Events delivered (published, or kept for replay). */
  readonly delivered: number;
  /** Events among them kept for replay instead of published. */
  readonly kept: number;
  /** Sequence number of the first record not delivered: the caller retries from there (records before it are done). */
  readonly retryFrom?: string;
  /** Why, by error name or code only (never its text, which may quote an item). */
  readonly failure?: string;
}

/** An error's name or code, never its text: a system error's code (EISDIR, ECONNREFUSED) says more than its name. */
export function failureName(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error';
}

export interface Pending {
  readonly event: LifecycleEvent;
  readonly changeId: string;
}

/** The deletion an event records in the ledger, if it is a UserDeleted. */
const deletionOf = ({ event, changeId }: Pending): Deletion | undefined =>
  event['detail-type'] === 'UserDeleted'
    ? { ownerId: event.detail.owner_id, email: event.detail.user_email, deletedAt: event.detail.occurred_at, changeId }
    : undefined;

/**
 * Delivers one chunk (at most PUBLISH_BATCH events): each deletion to the ledger, then the events.
 * Resolves with the events not delivered after every try, and why. The stream's delivery and
 * `admin replay-events` both send events this way.
 */
export async function deliverEvents(
  chunk: readonly Pending[],
  sink: EventSink,
  options: Pick<DeliveryOptions, 'attempts' | 'pauseMs'> = {},
) {
  let left = chunk;
  let failure = '';
  const attempts = Math.max(1, options.attempts ?? 1);
  for (let attempt = 1; attempt <= attempts && left.length > 0; attempt++) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, (options.pauseMs ?? 200) * 2 ** (attempt - 2)));
    try {
      await Promise.all(left.flatMap((pending) => deletionOf(pending) ?? []).map((deletion) => sink.recordDeletion(deletion)));
      const accepted = await sink.publish(left.map(({ event }) => event));
      left = left.filter((_, index) => accepted[index] !== true);
      failure = 'EventRejected';
    } catch (error) {
      failure = failureName(error);
    }
  }
  return { left, failure };
}

/**
 * Delivers a batch of stream records in order: each user deletion to the ledger, then every event.
 * An event that fails every try is kept for replay when `options.keep` is given (delivery goes on),
 * else delivery stops there and names the record to retry from.
 */
export async function deliverChanges(
  records: readonly ChangeRecord[],
  sink: EventSink,
  options: DeliveryOptions = {},
): Promise<DeliveryResult> {
  const pending = records.flatMap((record) => {
    const event = lifecycleEventOf(record);
    return event ? [{ event, changeId: record.dynamodb?.SequenceNumber ?? '' }] : [];
  });
  let kept = 0;
  let keptFailure: string | undefined;
  for (let i = 0; i < pending.length; i += PUBLISH_BATCH) {
    const chunk = pending.slice(i, i + PUBLISH_BATCH);
    const { left, failure } = await deliverEvents(chunk, sink, options);
    if (left.length === 0) continue;
    const stopAt = () => {
      const index = chunk.indexOf(left[0]!);
      return { delivered: i + index, kept, retryFrom: left[0]!.changeId, failure };
    };
    if (!options.keep) return stopAt();
    const keptAt = new Date().toISOString();
    try {
      await options.keep(left.map(({ event, changeId }) => ({ id: undeliveredEventId(event), event, changeId, failure, keptAt })));
    } catch {
      return stopAt();
    }
    kept += left.length;
    keptFailure ??= failure;
  }
  return { delivered: pending.length, kept, ...(keptFailure && { failure: keptFailure }) };
}
