/**
 * The lifecycle events' shape: part of the data contract (docs/data-contract.md, "Lifecycle
 * events"). Built by events/lifecycle-events.ts, kept whole by the undelivered-events store.
 */

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
