/**
 * Lifecycle events, built from the users table's change stream: the one module that turns stream
 * records into `UserCreated`, `UserPasswordReset` and `UserDeleted`, used by the deployed stream
 * consumer (functions/publishLifecycleEvents) and by `npm start` (local/event-delivery.ts) alike.
 * An event exists because a write happened: a refused or failed write leaves no record behind.
 */

import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Deletion } from '#domain/deletions';
import { PROFILE_SK, USERS_TABLE } from '#store/table-layout';

/** `source` of every lifecycle event. */
export const EVENT_SOURCE = 'user-management';

export const EVENT_TYPES = ['UserCreated', 'UserPasswordReset', 'UserDeleted'] as const;
export type LifecycleEventType = (typeof EVENT_TYPES)[number];

/** What an event says about the user: never a password, hash or key. */
export interface LifecycleDetail {
  readonly owner_id: string;
  readonly user_email: string;
  readonly white_label: boolean;
  readonly occurred_at: string;
  /** On UserCreated only. */
  readonly should_reset_password?: boolean;
}

/** An event as EventBridge carries it (and as `npm start` writes it, one per line). */
export interface LifecycleEvent {
  readonly 'detail-type': LifecycleEventType;
  readonly source: typeof EVENT_SOURCE;
  readonly detail: LifecycleDetail;
}

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
 * was, and anything not shaped like a profile produce none.
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
        ...detailOf(after, first(after.created_at, approximateTime(record)) ?? new Date().toISOString()),
        should_reset_password: after.should_reset_password === true,
      });
    case 'MODIFY':
      if (!before || !after || before.password_hash === after.password_hash) return undefined;
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

export interface DeliveryResult {
  /** Events delivered. */
  readonly delivered: number;
  /** Sequence number of the first record not delivered: the caller retries from there (records before it are done). */
  readonly retryFrom?: string;
  /** Why, by error name or code only (never its text, which may quote an item). */
  readonly failure?: string;
}

/** Delivers a batch of stream records in order: each user deletion to the ledger, then every event. */
export async function deliverChanges(records: readonly ChangeRecord[], sink: EventSink): Promise<DeliveryResult> {
  const pending = records.flatMap((record) => {
    const event = lifecycleEventOf(record);
    return event ? [{ record, event }] : [];
  });
  for (let i = 0; i < pending.length; i += PUBLISH_BATCH) {
    const chunk = pending.slice(i, i + PUBLISH_BATCH);
    const firstOf = (index: number) => chunk[index]!.record.dynamodb?.SequenceNumber ?? '';
    try {
      await Promise.all(
        chunk
          .filter(({ event }) => event['detail-type'] === 'UserDeleted')
          .map(({ record, event }) =>
            sink.recordDeletion({
              ownerId: event.detail.owner_id,
              email: event.detail.user_email,
              deletedAt: event.detail.occurred_at,
              changeId: record.dynamodb?.SequenceNumber ?? '',
            }),
          ),
      );
      const accepted = await sink.publish(chunk.map(({ event }) => event));
      const failed = chunk.findIndex((_, index) => accepted[index] !== true);
      if (failed !== -1) return { delivered: i + failed, retryFrom: firstOf(failed), failure: 'EventRejected' };
    } catch (error) {
      // A system error's code (EISDIR, ECONNREFUSED) says more than its name, and no more than that.
      const code = (error as { code?: unknown }).code;
      return {
        delivered: i,
        retryFrom: firstOf(0),
        failure: typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error',
      };
    }
  }
  return { delivered: pending.length };
}
