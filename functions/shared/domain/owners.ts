/** White-label owners and their API keys: the admin operations, and (from key-check.ts) the key look-up every request makes. */

import { randomUUID } from 'node:crypto';
import { OPERATIONS, type OperationName } from '#contract/operations';
import type { PasswordSettings } from '#platform/config';
import { newApiKey } from './api-keys';
import { normalizeEmail } from './email';
import type { ApiKeyRecord, KeyScope, OwnerRecord, OwnerStore } from './key-check';
import { checkOwnerPolicy, type OwnerPasswordPolicy } from './password-policy';
import { generatePassword, hashPassword } from './passwords';

export * from './key-check';

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
