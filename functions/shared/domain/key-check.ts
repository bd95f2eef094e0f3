/**
 * The key check every request makes: an API key's scope and record, the owners' storage port, and
 * the look-up from a key's digest to its owner. Kept apart from the admin operations (owners.ts),
 * so a function's bundle carries the check without the registry of every operation.
 */

import type { OperationName } from '#contract/operations';
import type { OwnerPasswordPolicy } from './password-policy';
import type { Owner, UserRecord } from './users';

/** What a key may do, set when it is issued. Absent fields are the defaults: every operation, no expiry. */
export interface KeyScope {
  /** The operations the key may call; absent, every operation (existing keys, and future operations). */
  readonly operations?: readonly OperationName[];
  /** ISO-8601 instant from which the key is refused. */
  readonly expiresAt?: string;
}

/** An API key as stored: only its digest, never the key. */
export interface ApiKeyRecord extends KeyScope {
  readonly digest: string;
  readonly keyId: string;
  readonly ownerId: string;
  readonly ownerEmail: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
  /** The hour (ISO-8601, minutes zeroed) in which the key was last accepted, as last recorded. */
  readonly lastUsedAt?: string;
}

/**
 * Whether a key may call this operation at this instant (ms since the epoch): the operation is in
 * its list, and its expiry, if any, is still ahead. An unreadable stored expiry refuses (NaN).
 */
export function keyPermits(key: KeyScope, operation: OperationName, now: number): boolean {
  if (key.operations && !key.operations.includes(operation)) return false;
  return key.expiresAt === undefined || Date.parse(key.expiresAt) > now;
}

/** The hour `now` falls in, as last_used_at records it: `2026-01-31T14:00:00.000Z`. */
export const hourOf = (now: number): string => new Date(now - (now % 3_600_000)).toISOString();

/** What the key look-up reads of the owner's own account besides its existence. */
export interface OwnerAccount {
  readonly passwordPolicy?: OwnerPasswordPolicy;
}

export interface OwnerRecord {
  readonly ownerId: string;
  readonly ownerEmail: string;
  readonly createdAt: string;
}

/**
 * What the key look-up and the admin operations need from storage (the port);
 * functions/shared/store/owners-store.ts implements it on DynamoDB.
 */
export interface OwnerStore {
  /** The key with this digest, revoked or not. */
  findApiKey(digest: string): Promise<ApiKeyRecord | undefined>;
  /** The owner's own account (the white-label user) with its password policy; undefined when it is gone. */
  findOwnerAccount(ownerId: string, ownerEmail: string): Promise<OwnerAccount | undefined>;
  /** Replaces the password policy stored on the owner's own account. */
  setOwnerPasswordPolicy(ownerId: string, ownerEmail: string, policy: OwnerPasswordPolicy): Promise<void>;
  /** Replaces the hash on the owner's own account and ends a sign-in lockout; false when the account is gone. */
  setOwnerPasswordHash(ownerId: string, ownerEmail: string, passwordHash: string): Promise<boolean>;
  findOwner(ownerEmail: string): Promise<OwnerRecord | undefined>;
  /** Creates the owner, its own account and its first key at once; false when the owner exists. */
  createOwner(owner: OwnerRecord, account: Pick<UserRecord, 'passwordHash'>, key: ApiKeyRecord): Promise<boolean>;
  putApiKey(key: ApiKeyRecord): Promise<void>;
  listApiKeys(ownerEmail: string): Promise<ApiKeyRecord[]>;
  findApiKeyById(keyId: string): Promise<ApiKeyRecord | undefined>;
  revokeApiKey(digest: string): Promise<void>;
  /**
   * Records that the key was used in this hour: a write only when the stored hour is older
   * (or absent), and never on a key that is gone.
   */
  recordKeyUse(digest: string, hour: string): Promise<void>;
}

export type Authentication = { owner: Owner; key: ApiKeyRecord } | { refused: 'unauthorized' | 'no_owner' };

/**
 * Resolves an API key, given as its digest, to its owner: unknown and revoked keys are
 * refused, so is a key outside its operations or past its expiry (before its owner is
 * looked at: such a key is not valid), and a key whose owner account is gone.
 */
export async function authenticate(store: OwnerStore, digest: string, operation: OperationName, now = Date.now()): Promise<Authentication> {
  const key = await store.findApiKey(digest);
  if (!key || key.revokedAt || !keyPermits(key, operation, now)) return { refused: 'unauthorized' };
  const account = await store.findOwnerAccount(key.ownerId, key.ownerEmail);
  if (!account) return { refused: 'no_owner' };
  const owner = { ownerId: key.ownerId, ownerEmail: key.ownerEmail, keyId: key.keyId };
  // The policy comes with the read that proves the owner exists: no extra call, cached with the key.
  return { owner: account.passwordPolicy ? { ...owner, passwordPolicy: account.passwordPolicy } : owner, key };
}
