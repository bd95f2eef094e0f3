/** White-label owners and their API keys: the key lookup every request makes, and the admin operations. */

import { randomUUID } from 'node:crypto';
import { OPERATIONS, type OperationName } from '#contract/operations';
import type { PasswordSettings } from '#platform/config';
import { newApiKey } from './api-keys';
import { normalizeEmail } from './email';
import { checkOwnerPolicy, type OwnerPasswordPolicy } from './password-policy';
import { generatePassword, hashPassword } from './passwords';
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

/** What the admin CLI prints when it issues a key: the only time the key is shown. */
export interface IssuedKey {
  owner_email: string;
  key_id: string;
  api_key: string;
  operations: readonly OperationName[];
  expires_at: string | null;
}

/** Checks a scope before a key is issued with it; throws naming what is wrong. */
function checkScope(scope: KeyScope, now: number): KeyScope {
  const { operations, expiresAt } = scope;
  if (operations) {
    const unknown = operations.find((operation) => !OPERATIONS.includes(operation));
    if (unknown !== undefined) throw new Error(`Unknown operation ${unknown}; operations are ${OPERATIONS.join(', ')}`);
    if (operations.length === 0) throw new Error('A key needs at least one operation');
  }
  if (expiresAt !== undefined) {
    const at = Date.parse(expiresAt);
    if (Number.isNaN(at)) throw new Error(`Invalid expiry ${expiresAt}`);
    if (at <= now) throw new Error(`Expiry ${new Date(at).toISOString()} is not in the future`);
  }
  return {
    // Stored in the API's order, once each; no list at all means every operation.
    ...(operations && { operations: OPERATIONS.filter((operation) => operations.includes(operation)) }),
    ...(expiresAt !== undefined && { expiresAt: new Date(Date.parse(expiresAt)).toISOString() }),
  };
}

const issued = (ownerEmail: string, keyId: string, apiKey: string, scope: KeyScope): IssuedKey => ({
  owner_email: ownerEmail,
  key_id: keyId,
  api_key: apiKey,
  operations: scope.operations ?? OPERATIONS,
  expires_at: scope.expiresAt ?? null,
});

/**
 * Creates an owner, its own account (a white-label user of its own tool, with a
 * random password nobody is shown) and its first API key.
 */
export async function createOwner(store: OwnerStore, email: string, passwords: PasswordSettings, scope: KeyScope = {}): Promise<IssuedKey> {
  const now = Date.now();
  const checked = checkScope(scope, now);
  const ownerEmail = normalizeEmail(email);
  const createdAt = new Date(now).toISOString();
  const ownerId = randomUUID();
  const { apiKey, keyId, digest } = newApiKey();
  const created = await store.createOwner(
    { ownerId, ownerEmail, createdAt },
    { passwordHash: await hashPassword(generatePassword(passwords.passwordPolicy), passwords.argon2) },
    { digest, keyId, ownerId, ownerEmail, createdAt, ...checked },
  );
  if (!created) throw new Error(`Owner ${ownerEmail} already exists`);
  return issued(ownerEmail, keyId, apiKey, checked);
}

/**
 * A new password for an owner's own account, the one way to reset it (the API refuses to): a
 * generated password, returned once and stored only as its hash, and the count of failed sign-ins
 * cleared, so that a locked account can sign in again. The change stream sees a new password and
 * emits UserPasswordReset, as for any reset.
 */
export async function resetOwnerPassword(
  store: OwnerStore,
  email: string,
  passwords: PasswordSettings,
): Promise<{ owner_email: string; password: string }> {
  const owner = await findOwnerOrThrow(store, email);
  const password = generatePassword(passwords.passwordPolicy);
  if (!(await store.setOwnerPasswordHash(owner.ownerId, owner.ownerEmail, await hashPassword(password, passwords.argon2)))) {
    throw new Error(`No owner account for ${owner.ownerEmail}`);
  }
  return { owner_email: owner.ownerEmail, password };
}

/** Issues another key for an existing owner (rotation, or a key limited to some operations or a time). */
export async function issueKey(store: OwnerStore, email: string, scope: KeyScope = {}): Promise<IssuedKey> {
  const now = Date.now();
  const checked = checkScope(scope, now);
  const owner = await findOwnerOrThrow(store, email);
  const { apiKey, keyId, digest } = newApiKey();
  await store.putApiKey({
    digest,
    keyId,
    ownerId: owner.ownerId,
    ownerEmail: owner.ownerEmail,
    createdAt: new Date(now).toISOString(),
    ...checked,
  });
  return issued(owner.ownerEmail, keyId, apiKey, checked);
}

/** An owner or key the caller named does not exist: the caller's mistake, not a failure. */
export class UnknownTargetError extends Error {
  override readonly name = 'UnknownTargetError';
}

async function findOwnerOrThrow(store: OwnerStore, email: string): Promise<OwnerRecord> {
  const owner = await store.findOwner(normalizeEmail(email));
  if (!owner) throw new UnknownTargetError(`No owner ${normalizeEmail(email)}`);
  return owner;
}

/** What `admin show-owner` prints: the id a tool's sign-in module is configured with (`ownerId`). */
export async function showOwner(store: OwnerStore, email: string): Promise<{ owner_email: string; owner_id: string }> {
  const owner = await findOwnerOrThrow(store, email);
  return { owner_email: owner.ownerEmail, owner_id: owner.ownerId };
}

/** Revokes a key by its id; warm functions stop accepting it within the key-cache TTL. */
export async function revokeKey(store: OwnerStore, keyId: string): Promise<ApiKeyRecord> {
  const key = await store.findApiKeyById(keyId);
  if (!key) throw new UnknownTargetError(`No key ${keyId}`);
  await store.revokeApiKey(key.digest);
  return key;
}

/** One key as `list-keys` shows it: never the key or its digest. */
export interface ListedKey {
  key_id: string;
  operations: readonly OperationName[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** An owner's keys, oldest first, without digests; throws for an unknown owner. */
export async function listKeys(store: OwnerStore, email: string): Promise<ListedKey[]> {
  const owner = await findOwnerOrThrow(store, email);
  const keys = await store.listApiKeys(owner.ownerEmail);
  return keys
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId))
    .map((key) => ({
      key_id: key.keyId,
      operations: key.operations ?? OPERATIONS,
      created_at: key.createdAt,
      expires_at: key.expiresAt ?? null,
      revoked_at: key.revokedAt ?? null,
      last_used_at: key.lastUsedAt ?? null,
    }));
}

/** An owner's password policy as `admin show-password-policy` prints it: what is in force, the stage's minimum where unset. */
export interface ShownPasswordPolicy {
  owner_email: string;
  min_length: number;
  max_length: number;
  blocked_words: readonly string[];
}

const shown = (
  ownerEmail: string,
  policy: OwnerPasswordPolicy | undefined,
  stage: PasswordSettings['passwordPolicy'],
): ShownPasswordPolicy => ({
  owner_email: ownerEmail,
  min_length: policy?.minLength ?? stage.minLength,
  max_length: stage.maxLength,
  blocked_words: policy?.blockedWords ?? [],
});

/** The owner's password policy; throws for an unknown owner. */
export async function showPasswordPolicy(store: OwnerStore, email: string, passwords: PasswordSettings): Promise<ShownPasswordPolicy> {
  const owner = await findOwnerOrThrow(store, email);
  const account = await store.findOwnerAccount(owner.ownerId, owner.ownerEmail);
  if (!account) throw new Error(`No owner account for ${owner.ownerEmail}`);
  return shown(owner.ownerEmail, account.passwordPolicy, passwords.passwordPolicy);
}

/**
 * Sets what is given of an owner's password policy (the rest stays as it was); warm functions
 * apply it within the key-cache TTL, as it travels with the cached key look-up.
 */
export async function setPasswordPolicy(
  store: OwnerStore,
  email: string,
  change: { minLength?: number; blockedWords?: readonly string[] },
  passwords: PasswordSettings,
): Promise<ShownPasswordPolicy> {
  const checked = checkOwnerPolicy(change);
  if (checked.minLength !== undefined && checked.minLength > passwords.passwordPolicy.maxLength) {
    throw new Error(`--min-length must not exceed the stage's maximum, ${passwords.passwordPolicy.maxLength}`);
  }
  const owner = await findOwnerOrThrow(store, email);
  const account = await store.findOwnerAccount(owner.ownerId, owner.ownerEmail);
  if (!account) throw new Error(`No owner account for ${owner.ownerEmail}`);
  const policy = { ...account.passwordPolicy, ...checked };
  await store.setOwnerPasswordPolicy(owner.ownerId, owner.ownerEmail, policy);
  return shown(owner.ownerEmail, policy, passwords.passwordPolicy);
}
