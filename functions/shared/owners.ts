/** White-label owners and their API keys: the key lookup every request makes, and the admin operations. */

import { randomUUID } from 'node:crypto';
import { newApiKey } from './api-keys';
import type { PasswordPolicy } from './config';
import { normalizeEmail } from './email';
import { generatePassword, hashPassword } from './passwords';
import type { Owner, UserRecord } from './users';

/** An API key as stored: only its digest, never the key. */
export interface ApiKeyRecord {
  readonly digest: string;
  readonly keyId: string;
  readonly ownerId: string;
  readonly ownerEmail: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
}

export interface OwnerRecord {
  readonly ownerId: string;
  readonly ownerEmail: string;
  readonly createdAt: string;
}

/**
 * What the key look-up and the admin operations need from storage (the port);
 * functions/shared/repository.ts implements it on DynamoDB.
 */
export interface OwnerStore {
  /** The key with this digest, revoked or not. */
  findApiKey(digest: string): Promise<ApiKeyRecord | undefined>;
  /** Whether the owner's own account (the white-label user) still exists. */
  ownerAccountExists(ownerId: string, ownerEmail: string): Promise<boolean>;
  findOwner(ownerEmail: string): Promise<OwnerRecord | undefined>;
  /** Creates the owner, its own account and its first key at once; false when the owner exists. */
  createOwner(owner: OwnerRecord, account: Pick<UserRecord, 'passwordHash'>, key: ApiKeyRecord): Promise<boolean>;
  putApiKey(key: ApiKeyRecord): Promise<void>;
  listApiKeys(ownerEmail: string): Promise<ApiKeyRecord[]>;
  findApiKeyById(keyId: string): Promise<ApiKeyRecord | undefined>;
  revokeApiKey(digest: string): Promise<void>;
}

export type Authentication = { owner: Owner } | { refused: 'unauthorized' | 'no_owner' };

/**
 * Resolves an API key, given as its digest, to its owner: unknown and revoked keys
 * are refused, and so is a key whose owner account is gone.
 */
export async function authenticate(store: OwnerStore, digest: string): Promise<Authentication> {
  const key = await store.findApiKey(digest);
  if (!key || key.revokedAt) return { refused: 'unauthorized' };
  if (!(await store.ownerAccountExists(key.ownerId, key.ownerEmail))) return { refused: 'no_owner' };
  return { owner: { ownerId: key.ownerId, ownerEmail: key.ownerEmail, keyId: key.keyId } };
}

/** What the admin CLI prints when it issues a key: the only time the key is shown. */
export interface IssuedKey {
  owner_email: string;
  key_id: string;
  api_key: string;
}

/**
 * Creates an owner, its own account (a white-label user of its own tool, with a
 * random password nobody is shown) and its first API key.
 */
export async function createOwner(store: OwnerStore, email: string, policy: PasswordPolicy): Promise<IssuedKey> {
  const ownerEmail = normalizeEmail(email);
  const createdAt = new Date().toISOString();
  const ownerId = randomUUID();
  const { apiKey, keyId, digest } = newApiKey();
  const created = await store.createOwner(
    { ownerId, ownerEmail, createdAt },
    { passwordHash: await hashPassword(generatePassword(policy)) },
    { digest, keyId, ownerId, ownerEmail, createdAt },
  );
  if (!created) throw new Error(`Owner ${ownerEmail} already exists`);
  return { owner_email: ownerEmail, key_id: keyId, api_key: apiKey };
}

/** Issues another key for an existing owner (rotation). */
export async function issueKey(store: OwnerStore, email: string): Promise<IssuedKey> {
  const owner = await store.findOwner(normalizeEmail(email));
  if (!owner) throw new Error(`No owner ${normalizeEmail(email)}`);
  const { apiKey, keyId, digest } = newApiKey();
  await store.putApiKey({ digest, keyId, ownerId: owner.ownerId, ownerEmail: owner.ownerEmail, createdAt: new Date().toISOString() });
  return { owner_email: owner.ownerEmail, key_id: keyId, api_key: apiKey };
}

/** Revokes a key by its id; warm functions stop accepting it within the key-cache TTL. */
export async function revokeKey(store: OwnerStore, keyId: string): Promise<ApiKeyRecord> {
  const key = await store.findApiKeyById(keyId);
  if (!key) throw new Error(`No key ${keyId}`);
  await store.revokeApiKey(key.digest);
  return key;
}

/** An owner's keys, without digests. */
export async function listKeys(store: OwnerStore, email: string) {
  const keys = await store.listApiKeys(normalizeEmail(email));
  return keys.map(({ keyId, createdAt, revokedAt }) => ({ key_id: keyId, created_at: createdAt, revoked_at: revokedAt ?? null }));
}
