/**
 * The DynamoDB table layout, defined once: the CDK stack, the local start-up
 * and the repository all read it, so they cannot drift.
 */

export type KeyAttribute = { readonly name: string; readonly type: 'S' };

export interface TableLayout {
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly globalSecondaryIndexes: readonly {
    readonly indexName: string;
    readonly partitionKey: KeyAttribute;
    readonly sortKey?: KeyAttribute;
  }[];
  /** The change stream, when something reads the table's changes (lifecycle events). */
  readonly stream?: 'NEW_AND_OLD_IMAGES';
  /** A number attribute holding an epoch second after which DynamoDB's TTL deletes the item. */
  readonly timeToLiveAttribute?: string;
}

/**
 * Users of every owner's tool. The partition key is the user (tenant + normalised
 * e-mail) and the sort key names the item, so a user's profile and all data
 * associated with the user form one item collection.
 */
export const USERS_TABLE: TableLayout = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [],
  // Both images: a reset is told from other updates by comparing hashes, a delete names its user.
  stream: 'NEW_AND_OLD_IMAGES',
};

/**
 * The deletion ledger: one item per deleted user (owner, user key, time), written from the users
 * table's stream, expiring by TTL when the recovery window closes. After a restore from backup it
 * names the users to delete again (admin `reapply-deletions`).
 */
export const DELETIONS_TABLE: TableLayout = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [],
  timeToLiveAttribute: 'expires_at',
};

/**
 * Undelivered lifecycle events: one item per event whose delivery kept failing, kept whole (its
 * detail, never a password or hash) until `admin replay-events` publishes it, and expiring by TTL
 * after UNDELIVERED_EVENT_DAYS.
 */
export const UNDELIVERED_EVENTS_TABLE: TableLayout = {
  partitionKey: { name: 'pk', type: 'S' },
  globalSecondaryIndexes: [],
  timeToLiveAttribute: 'expires_at',
};

/**
 * White-label owners and their API keys. A key item is addressed by the SHA-256
 * digest of the key (one GetItem per lookup); the two sparse indexes serve the
 * admin CLI (list an owner's keys, revoke a key by its id).
 */
export const OWNERS_TABLE: TableLayout = {
  partitionKey: { name: 'pk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: 'by-owner',
      partitionKey: { name: 'owner_email', type: 'S' },
      sortKey: { name: 'key_id', type: 'S' },
    },
    { indexName: 'by-key-id', partitionKey: { name: 'key_id', type: 'S' } },
  ],
};

/**
 * Idempotency records, one per owner and Idempotency-Key. The key itself is never stored: an
 * item is addressed by the owner and a SHA-256 digest of the key. DynamoDB's TTL removes an item
 * some time after `expires_at`; the service treats an expired item as absent meanwhile.
 */
export const IDEMPOTENCY_TABLE: TableLayout = {
  partitionKey: { name: 'pk', type: 'S' },
  globalSecondaryIndexes: [],
  timeToLiveAttribute: 'expires_at',
};

/** Primary key of an idempotency record: the owner's tool, then the digest of its key. */
export const idempotencyRecordKey = (ownerId: string, keyDigest: string) => ({ pk: `${ownerId}#${keyDigest}` });

/** Sort key of a user's profile item; every other item in the collection is associated data. */
export const PROFILE_SK = 'PROFILE';

/**
 * The profile's count of consecutive failed sign-ins. resetUserPassword removes it (users-store.ts);
 * neither it nor an upgrade's rehash is a lifecycle event (events/lifecycle-events.ts); the sign-in module counts it (sign-in-store.ts).
 */
export const FAILED_SIGN_INS_ATTRIBUTE = 'failed_sign_ins';

/**
 * When a sign-in last replaced the hash with argon2id at the stage's setting: the mark by which the
 * stream consumer tells this write from a password reset.
 */
export const REHASHED_AT_ATTRIBUTE = 'password_rehashed_at';

/** Primary key of a user's profile. */
export const userKey = (ownerId: string, email: string) => ({ pk: userPk(ownerId, email), sk: PROFILE_SK });

/** Partition key of a user's item collection, scoped to one owner's tool. */
export const userPk = (ownerId: string, email: string) => `${ownerId}#${email}`;

/** Partition-key prefix of API key items. */
export const API_KEY_PK_PREFIX = 'KEY#';

/** Primary key of an API key item (the key itself is never stored). */
export const apiKeyKey = (digest: string) => ({ pk: `${API_KEY_PK_PREFIX}${digest}` });

/**
 * The one attribute of a key item the functions write: the hour of its last use. The functions'
 * IAM policy allows an UpdateItem on the owners table to touch this attribute and no other.
 */
export const KEY_LAST_USED_ATTRIBUTE = 'last_used_at';

/** Primary key of an owner record. */
export const ownerKey = (ownerEmail: string) => ({ pk: `OWNER#${ownerEmail}` });
