import { hash, randomBytes } from 'node:crypto';

/** Fixed, greppable prefix, so that secret scanners can find leaked keys. */
export const API_KEY_PREFIX = 'wlk_';

/**
 * The shape of every issued key: the prefix, then 256 random bits in base64url (43 characters).
 * The functions check it before any lookup and the edge (the stage's web ACL) refuses anything
 * else, so both refuse exactly the same keys.
 */
export const API_KEY_PATTERN = /^wlk_[A-Za-z0-9_-]{43}$/;

/** Issues a new API key: shown once, stored only as its digest. */
export function newApiKey(): { apiKey: string; keyId: string; digest: string } {
  const apiKey = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { apiKey, keyId: `key_${randomBytes(8).toString('hex')}`, digest: digestApiKey(apiKey) };
}

/**
 * SHA-256 of the key, hex: the only form in which a key is stored or compared. One-shot: on every
 * request, and half the cost of a Hash object's create, update and digest.
 */
export const digestApiKey = (apiKey: string): string => hash('sha256', apiKey, 'hex');

/** Cheap shape check, so malformed keys never reach the database. */
export const isWellFormedApiKey = (value: string): boolean => API_KEY_PATTERN.test(value);
