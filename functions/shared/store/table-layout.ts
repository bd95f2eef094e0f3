/**
 * The DynamoDB table layout, defined once: the CDK stack, the local start-up
 * and the repository all read it, so they cannot drift.
 */

import { PASSWORD_POLICY_ATTRIBUTE } from './owner-policy-item';

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
  // No TTL: nothing here expires. The sign-in state, which does, has its own table (SIGN_IN_TABLE), so no
  // role that may write that state's expiry can set one on a profile for DynamoDB to delete it.
};

/**
 * The sign-in module's own state (the tool's role writes it; the service only erases it): per e-mail of an
 * owner's tool, its consecutive failures (SIGN_IN_SK), and room beside it, under the same partition key, for
 * what else a user's sign-ins keep (the trusted devices). The partition key is the users table's
 * (`<ownerId>#<email>`), so one grant's `dynamodb:LeadingKeys` limits a role to one owner on both tables.
 * What is kept for an e-mail no user has expires by its own TTL attribute. No stream: no sign-in write
 * can reach the lifecycle events. deleteUser erases the user's partition here with the rest of its data.
 */
export const SIGN_IN_TABLE: TableLayout = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [],
  timeToLiveAttribute: 'expires_at',
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
 * The count of consecutive failed sign-ins that earlier versions kept on the profile; nothing reads it
 * now (the count lives in the sign-in state item, SIGN_IN_SK). A reset still removes it from old profiles.
 */
export const LEGACY_FAILED_SIGN_INS_ATTRIBUTE = 'failed_sign_ins';

/**
 * The mark of a sign-in's write to the profile (its upgrade of the hash to argon2id at the stage's
 * setting): the time of that rehash. The stream's filter (events/record-filter.ts) drops a profile
 * change whose new image carries it, so every other write to a profile removes it.
 */
export const REHASHED_AT_ATTRIBUTE = 'password_rehashed_at';

/**
 * Sort key of the sign-in state in SIGN_IN_TABLE: the consecutive failures, the wait before the next
 * attempt, and the tag of the hash they were counted against (sign-in-store.ts). Kept under the same key
 * for an e-mail no user has, then expiring by TTL. Versions before the sign-in table kept it under this
 * key in the users table: `admin migrate-sign-in-state` (and `npm start`) moves such items (ADR 26).
 */
export const SIGN_IN_SK = 'SIGN_IN';

/** Primary key of the sign-in state of an e-mail in an owner's tool, whether or not a user has it (in SIGN_IN_TABLE). */
export const signInStateKey = (ownerId: string, email: string) => ({ pk: userPk(ownerId, email), sk: SIGN_IN_SK });

/** Sort-key prefix of a user's trusted devices in SIGN_IN_TABLE: one item per device (trusted-devices.ts), expiring by TTL. */
export const DEVICE_SK_PREFIX = 'DEVICE#';

/** Primary key of one trusted device of a user. */
export const deviceKey = (ownerId: string, email: string, deviceId: string) => ({
  pk: userPk(ownerId, email),
  sk: `${DEVICE_SK_PREFIX}${deviceId}`,
});

/** Primary key of a user's trusted budget in SIGN_IN_TABLE: the trusted failures of all its devices since the last success. */
export const trustedBudgetKey = (ownerId: string, email: string) => ({ pk: userPk(ownerId, email), sk: 'TRUSTED' });

/**
 * Primary key of an owner's device key in SIGN_IN_TABLE, which seals its tools' device cookies: a
 * partition key no user can have (no `@`), inside the `<ownerId>#` range a tool's role may be limited to.
 */
export const ownerDeviceKeyKey = (ownerId: string) => ({ pk: `${ownerId}#DEVICE_KEY`, sk: 'KEY' });

/**
 * The attributes of the users table that the sign-in module reads: a profile's hash and reset flag
 * (signIn), its creation and update times (what a device cookie is bound to), the owner's password
 * policy on its copy (changePassword), and the keys. The grant
 * (lib/constructs/sign-in-grant.ts) allows reads of these and no other.
 */
export const SIGN_IN_READ_ATTRIBUTES = [
  'pk',
  'sk',
  'password_hash',
  'should_reset_password',
  'created_at',
  'updated_at',
  PASSWORD_POLICY_ATTRIBUTE,
] as const;

/**
 * The attributes of a profile that the sign-in module writes or checks: the hash and its rehash mark
 * (a success's upgrade), the reset flag, the update time and the legacy count (changePassword), and the
 * keys. The grant allows updates of these and no other: never `white_label`, the owner's password policy,
 * or an expiry.
 */
export const SIGN_IN_WRITE_ATTRIBUTES = [
  'pk',
  'sk',
  'password_hash',
  REHASHED_AT_ATTRIBUTE,
  'should_reset_password',
  'updated_at',
  LEGACY_FAILED_SIGN_INS_ATTRIBUTE,
] as const;

/**
 * Primary key of the copy of an owner's password policy that the sign-in module reads (its
 * changePassword), kept beside the owner's users: a partition key that no user can have (no `@`),
 * inside the `<ownerId>#` range a tool's role may be limited to. `admin set-password-policy` writes
 * it in the same transaction as the policy on the owner's own account.
 */
export const ownerPolicyKey = (ownerId: string) => ({ pk: `${ownerId}#OWNER`, sk: 'PASSWORD_POLICY' });

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
