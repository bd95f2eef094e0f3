/** White-label owners and their API keys: the key lookup every request makes, and the admin operations. */

import { randomUUID } from 'node:crypto';
import { newApiKey } from './api-keys';
import type { PasswordPolicy } from './config';
import { normalizeEmail } from './email';
import { generatePassword, hashPassword } from './passwords';
import type { ApiKeyRecord, Repository } from './repository';
import type { Owner } from './users';

export type Authentication = { owner: Owner } | { refused: 'unauthorized' | 'no_owner' };

/**
 * Resolves an API key, given as its digest, to its owner: unknown and revoked keys
 * are refused, and so is a key whose owner account is gone.
 */
export async function authenticate(repository: Repository, digest: string): Promise<Authentication> {
  const key = await repository.findApiKey(digest);
  if (!key || key.revokedAt) return { refused: 'unauthorized' };
  if (!(await repository.ownerAccountExists(key.ownerId, key.ownerEmail))) return { refused: 'no_owner' };
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
export async function createOwner(repository: Repository, email: string, policy: PasswordPolicy): Promise<IssuedKey> {
  const ownerEmail = normalizeEmail(email);
  const createdAt = new Date().toISOString();
  const ownerId = randomUUID();
  const { apiKey, keyId, digest } = newApiKey();
  const created = await repository.createOwner(
    { ownerId, ownerEmail, createdAt },
    { passwordHash: await hashPassword(generatePassword(policy)) },
    { digest, keyId, ownerId, ownerEmail, createdAt },
  );
  if (!created) throw new Error(`Owner ${ownerEmail} already exists`);
  return { owner_email: ownerEmail, key_id: keyId, api_key: apiKey };
}

/** Issues another key for an existing owner (rotation). */
export async function issueKey(repository: Repository, email: string): Promise<IssuedKey> {
  const owner = await repository.findOwner(normalizeEmail(email));
  if (!owner) throw new Error(`No owner ${normalizeEmail(email)}`);
  const { apiKey, keyId, digest } = newApiKey();
  await repository.putApiKey({ digest, keyId, ownerId: owner.ownerId, ownerEmail: owner.ownerEmail, createdAt: new Date().toISOString() });
  return { owner_email: owner.ownerEmail, key_id: keyId, api_key: apiKey };
}

/** Revokes a key by its id; warm functions stop accepting it within the key-cache TTL. */
export async function revokeKey(repository: Repository, keyId: string): Promise<ApiKeyRecord> {
  const key = await repository.findApiKeyById(keyId);
  if (!key) throw new Error(`No key ${keyId}`);
  await repository.revokeApiKey(key.digest);
  return key;
}

/** An owner's keys, without digests. */
export async function listKeys(repository: Repository, email: string) {
  const keys = await repository.listApiKeys(normalizeEmail(email));
  return keys.map(({ keyId, createdAt, revokedAt }) => ({ key_id: keyId, created_at: createdAt, revoked_at: revokedAt ?? null }));
}
