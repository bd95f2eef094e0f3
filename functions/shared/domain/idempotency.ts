/**
 * Idempotency keys, free of HTTP: the key's shape, what a record holds, the store it needs (the
 * port), and the cryptography that keeps a record useless to anyone without the key.
 *
 * A record never holds the key, a password or an e-mail in clear: it is addressed by a SHA-256
 * digest of the key, the request is compared through an HMAC keyed by the key, and the recorded
 * response body is sealed (AES-256-GCM) under a key derived from the Idempotency-Key with HKDF.
 * Only a caller presenting the same key, as the same owner, can match or open it.
 */

import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** 16 to 255 printable ASCII characters (a UUID is ideal). */
const KEY_SHAPE = /^[\x20-\x7e]{16,255}$/;

/** Whether an Idempotency-Key header value has the contract's shape. */
export const isWellFormedIdempotencyKey = (value: string): boolean => KEY_SHAPE.test(value);

/** How long a recorded response is replayed. */
export const RECORD_LIFETIME_SECONDS = 24 * 60 * 60;

/** A claim on a key: written before the operation runs, so a concurrent duplicate finds it. */
export interface IdempotencyClaim {
  readonly ownerId: string;
  readonly keyDigest: string;
  /** HMAC of the operation and the validated body, keyed by a key derived from the Idempotency-Key. */
  readonly fingerprint: string;
  /** Random, per request: only the request holding the claim may complete or release it. */
  readonly claimId: string;
  /** Epoch milliseconds after which a claim never completed (the function died) counts as absent. */
  readonly inProgressUntil: number;
  /** Epoch seconds after which the record counts as absent, and DynamoDB's TTL removes it. */
  readonly expiresAt: number;
}

/** A record as found: in progress, or completed with the sealed response. */
export type IdempotencyRecord =
  | { readonly state: 'in_progress'; readonly fingerprint: string }
  | { readonly state: 'completed'; readonly fingerprint: string; readonly statusCode: number; readonly sealedBody: Uint8Array };

/** What the idempotency middleware needs from storage (the port); functions/shared/store/idempotency-store.ts implements it. */
export interface IdempotencyStore {
  /**
   * One conditional write: claims the key unless a live record holds it (an expired record, or
   * a claim past `inProgressUntil`, counts as absent); otherwise returns that record.
   */
  claimIdempotencyKey(claim: IdempotencyClaim, now: Date): Promise<{ claimed: true } | { claimed: false; record: IdempotencyRecord }>;
  /** Records the response, if this request still holds the claim; false otherwise. */
  completeIdempotencyKey(
    claim: IdempotencyClaim,
    response: { statusCode: number; sealedBody: Uint8Array; expiresAt: number },
  ): Promise<boolean>;
  /** Drops the claim (the operation failed with a 500), if this request still holds it. */
  releaseIdempotencyKey(claim: IdempotencyClaim): Promise<void>;
}

const INFO = {
  seal: 'user-management idempotency v1: response body',
  fingerprint: 'user-management idempotency v1: request fingerprint',
};

/** The per-request secrets of an Idempotency-Key, bound to its owner. */
export interface KeySecrets {
  /** What addresses the record: a SHA-256 digest of the key (the owner is part of the record's address). */
  readonly keyDigest: string;
  /** The request's fingerprint: same operation and same parsed body give the same value, under this key only. */
  fingerprint(operation: string, body: unknown): string;
  /** Encrypts a response body; the record's address and fingerprint are authenticated with it. */
  seal(body: string, fingerprint: string): Uint8Array;
  /** Decrypts a sealed body; throws if it was altered or belongs to another key, owner or request. */
  open(sealed: Uint8Array, fingerprint: string): string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Derives the record's address and keys from the Idempotency-Key. HKDF (RFC 5869, SHA-256) with
 * the owner id as salt: the same key string used by two owners gives unrelated records.
 */
export function keySecrets(ownerId: string, idempotencyKey: string): KeySecrets {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', idempotencyKey, ownerId, info, 32));
  const sealKey = derive(INFO.seal);
  const fingerprintKey = derive(INFO.fingerprint);
  const keyDigest = createHash('sha256').update(idempotencyKey).digest('base64url');
  const aad = (fingerprint: string) => Buffer.from(`${ownerId}#${keyDigest}#${fingerprint}`);
  return {
    keyDigest,
    fingerprint: (operation, body) =>
      createHmac('sha256', fingerprintKey)
        .update(`${operation}\n${canonicalJson(body)}`)
        .digest('base64url'),
    seal(body, fingerprint) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv).setAAD(aad(fingerprint));
      const ciphertext = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
    },
    open(sealed, fingerprint) {
      const bytes = Buffer.from(sealed);
      const decipher = createDecipheriv('aes-256-gcm', sealKey, bytes.subarray(0, IV_BYTES)).setAAD(aad(fingerprint));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * JSON with object keys sorted, so two bodies equal after parsing (key order and whitespace
 * aside) compare equal. Built as text, never as objects, so a `__proto__` key is just a key.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
