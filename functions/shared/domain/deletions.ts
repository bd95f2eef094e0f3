/**
 * Restore safety: every deleted user is written to a ledger (owner, user key, time) that expires
 * when the tables' recovery window closes. A table restored from a backup taken before a delete
 * holds that user again; {@link reapplyDeletions} deletes them once more, with their item collections.
 */

/** One deleted user, as the ledger keeps it. */
export interface Deletion {
  readonly ownerId: string;
  readonly email: string;
  /** When the profile was deleted (ISO 8601), as the change stream tells it: never later than the delete. */
  readonly deletedAt: string;
  /** Identifies the change that deleted it, so a redelivered change writes the same entry. */
  readonly changeId: string;
}

/** Where deletions are remembered until the recovery window closes (the port). */
export interface DeletionLedger {
  /** Idempotent: the same deletion recorded twice is one entry. */
  record(deletion: Deletion): Promise<void>;
  /**
   * Unexpired deletions recorded at or after `since` (ISO 8601), oldest first. Recorded, not
   * happened: the record is never earlier than the delete, so no deletion after `since` is missed.
   */
  since(since: string): Promise<Deletion[]>;
}

/** Erases a user's whole item collection, owner account or not, whatever it holds (the port). */
export interface CollectionEraser {
  /**
   * Deletes every item stored under the user's key, the profile last, unless the profile was
   * created after `deletedAt` (the user came back after that deletion); resolves with how many
   * items were deleted.
   */
  eraseUser(ownerId: string, email: string, deletedAt: string): Promise<number>;
}

export interface ReapplyOutcome {
  readonly since: string;
  /** Ledger entries at or after `since`. */
  readonly deletions: number;
  /** Of those, users that the table still held and that are now deleted again. */
  readonly usersDeleted: number;
  readonly itemsDeleted: number;
}

/** Deletes again, from a restored table, every user the ledger says was deleted at or after `since`. */
export async function reapplyDeletions(ledger: DeletionLedger, table: CollectionEraser, since: string): Promise<ReapplyOutcome> {
  const deletions = await ledger.since(since);
  let usersDeleted = 0;
  let itemsDeleted = 0;
  // Each user's latest deletion (the ledger lists them oldest first).
  const latest = new Map(deletions.map((deletion) => [JSON.stringify([deletion.ownerId, deletion.email]), deletion]));
  // One user at a time: a restore is rare and the ledger small; a failure stops with the rest untouched and a rerun is safe.
  for (const { ownerId, email, deletedAt } of latest.values()) {
    const items = await table.eraseUser(ownerId, email, deletedAt);
    if (items > 0) usersDeleted++;
    itemsDeleted += items;
  }
  return { since, deletions: deletions.length, usersDeleted, itemsDeleted };
}
