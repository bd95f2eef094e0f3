/**
 * Trusted devices, as plain rules (OWASP's "Slow Down Online Guessing Attacks with Device Cookies";
 * docs/adr/0028-trusted-devices.md): a browser that once signed a user in holds a device cookie, and
 * its attempts are counted per cookie, apart from the account's untrusted count, so that a stranger's
 * guesses never keep the user out.
 *
 * A cookie is `<deviceId>.<secret>.<seal>` (base64url):
 * - `deviceId` names the device's record in the sign-in table (under the user's partition), which the
 *   owner can list and revoke;
 * - `secret` is 32 random bytes; the record keeps only its SHA-256 digest, rotated on every success;
 * - `seal` is an HMAC of the owner, the e-mail, the id and the secret under the owner's own device key
 *   (one random key per owner, kept in the sign-in table under the owner's partition, so a tool limited
 *   to one owner reads only its own): a cookie that another owner's tool made, or a forged or damaged
 *   one, fails the seal and is treated as no cookie at all, before any read of a device record, so an
 *   invalid cookie costs no more store work than none.
 *
 * A record trusts its cookie while: the secret's digest matches; its lifetime has not ended; its
 * binding (a digest of the profile's `created_at` and `updated_at`) is the profile's, so a re-created
 * user or a changed password (an API reset, changePassword, an owner's reset: each sets `updated_at`;
 * a sign-in's rehash does not) voids it; and it has failed fewer than DEVICE_FAILURE_LIMIT times in a row.
 * Only its own failures count there: another device's never take its trust away (docs/adr/0030-trust-per-device.md).
 */

import { createHash, createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a cookie is valid after the success that issued it (each success issues a fresh one). */
export const DEVICE_COOKIE_DAYS = 30;

/** A cookie's consecutive failures after which it is no longer trusted (its attempts are then untrusted ones). */
export const DEVICE_FAILURE_LIMIT = 5;

/**
 * After a rotation, the device's previous cookie is still accepted once for this long, so that a response lost
 * on the way (or a double submit) does not void the device; its first attempt, right or wrong, uses it up.
 */
export const ROTATION_GRACE_SECONDS = 60;

/**
 * Device records kept per user (C): a success that makes a new one deletes the least recently used past
 * this many. At most C devices can be trusted, so their failures (C × DEVICE_FAILURE_LIMIT) and the
 * untrusted ones (sign-in-attempts.ts) between two successes stay within NIST's 100.
 */
export const MAX_DEVICES_PER_USER = 8;

/** The most trusted failures between two successes: C × L. */
export const TRUSTED_FAILURES_AT_MOST = MAX_DEVICES_PER_USER * DEVICE_FAILURE_LIMIT;

/**
 * The cookies a browser keeps, one per account: the tool drops the least recently used past this many
 * (a shared computer with a family's accounts fits; browsers keep at least 50 cookies per site).
 */
export const DEVICE_COOKIES_PER_BROWSER = 5;

/** The prefix of a device cookie's name: `__Host-` (Secure, no Domain, Path=/), then one name per account. */
export const DEVICE_COOKIE_PREFIX = '__Host-device-';

const ID_BYTES = 16;
const SECRET_BYTES = 32;
const SEAL_BYTES = 16;
const b64 = (bytes: number) => Math.ceil((bytes * 4) / 3);
const COOKIE_PATTERN = new RegExp(
  `^[A-Za-z0-9_-]{${b64(ID_BYTES)}}\\.[A-Za-z0-9_-]{${b64(SECRET_BYTES)}}\\.[A-Za-z0-9_-]{${b64(SEAL_BYTES)}}$`,
);

/** The cookie's name for one account of one owner's tool: fixed per account, and naming neither. */
export const deviceCookieName = (ownerId: string, email: string): string =>
  `${DEVICE_COOKIE_PREFIX}${createHash('sha256').update(ownerId).update('\0').update(email).digest('base64url').slice(0, 16)}`;

/** What a sealed cookie names: its record, and the digest its record must hold. */
export interface PresentedDevice {
  readonly deviceId: string;
  readonly secretDigest: string;
}

/** The stored digest of a cookie's secret. */
export const secretDigest = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

const keyObjects = new WeakMap<Buffer, KeyObject>();
/**
 * The owner's device key as a KeyObject, made once per key (the store caches the Buffer): given a Buffer,
 * createHmac prepares a key on every call, most of an HMAC's CPU here.
 */
export function hmacKey(ownerKey: Buffer): KeyObject {
  const known = keyObjects.get(ownerKey);
  if (known) return known;
  const key = createSecretKey(ownerKey);
  keyObjects.set(ownerKey, key);
  return key;
}

const seal = (ownerKey: Buffer, ownerId: string, email: string, deviceId: string, secret: string): Buffer =>
  createHmac('sha256', hmacKey(ownerKey)).update(`${ownerId}\n${email}\n${deviceId}\n${secret}`).digest().subarray(0, SEAL_BYTES);

/** Whether a value has a cookie's shape: checked before anything else, so a megabyte of junk costs a regular expression on its length. */
export const looksLikeDeviceCookie = (value: unknown): value is string =>
  typeof value === 'string' && value.length === b64(ID_BYTES) + b64(SECRET_BYTES) + b64(SEAL_BYTES) + 2 && COOKIE_PATTERN.test(value);

/** The device a cookie names, when its seal is this owner's for this e-mail; undefined for anything else. */
export function openDeviceCookie(ownerKey: Buffer, ownerId: string, email: string, value: unknown): PresentedDevice | undefined {
  if (!looksLikeDeviceCookie(value)) return undefined;
  const [deviceId, secret, sealed] = value.split('.') as [string, string, string];
  const expected = seal(ownerKey, ownerId, email, deviceId, secret);
  const given = Buffer.from(sealed, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return { deviceId, secretDigest: secretDigest(secret) };
}

/** A fresh cookie for a device (a new one, or `deviceId` rotated): its value, the digest to store, and its expiry. */
export function issueDeviceCookie(ownerKey: Buffer, ownerId: string, email: string, now: number, deviceId?: string) {
  const id = deviceId ?? randomBytes(ID_BYTES).toString('base64url');
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  const expiresAt = Math.floor(now / 1000) + DEVICE_COOKIE_DAYS * 86_400;
  return {
    value: `${id}.${secret}.${seal(ownerKey, ownerId, email, id, secret).toString('base64url')}`,
    deviceId: id,
    secretDigest: secretDigest(secret),
    /** Epoch seconds: the record's TTL and the cookie's Expires. */
    expiresAt,
  };
}

/** A new owner's device key. */
export const newOwnerDeviceKey = (): string => randomBytes(32).toString('base64url');

/**
 * What a cookie is bound to: the user's creation and the password's version. `updated_at` changes with
 * every write of a new password (createUser, resetUserPassword, changePassword, an owner's reset) and
 * never with a sign-in's rehash of the same password.
 */
export const passwordBinding = (createdAt: string | undefined, updatedAt: string | undefined): string =>
  createHash('sha256')
    .update(`${createdAt ?? ''}\n${updatedAt ?? ''}`)
    .digest('base64url')
    .slice(0, 22);

/** A trusted device's record, as stored beside the user's sign-in state. */
export interface DeviceRecord {
  readonly deviceId: string;
  readonly secretDigest: string;
  /** {@link passwordBinding} when it was issued or last rotated. */
  readonly binding: string;
  /** Consecutive failed attempts with this cookie. */
  readonly failures: number;
  /** Epoch seconds: the cookie's expiry and the record's TTL. */
  readonly expiresAt: number;
  /** ISO instants: when the device was first trusted and last signed in. */
  readonly createdAt: string;
  readonly lastUsedAt: string;
  /** The digest of the cookie the last rotation replaced, and until when (epoch ms) it is accepted once (ROTATION_GRACE_SECONDS). */
  readonly previousDigest?: string;
  readonly previousUntil?: number;
}

const sameDigest = (stored: string | undefined, presented: string): boolean => {
  if (stored === undefined) return false;
  const a = Buffer.from(stored);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * Whether `record` trusts the presented cookie now, for a profile whose binding is `binding`: `current` for its
 * cookie, `previous` for the one its last rotation replaced while the grace lasts (once: the attempt's count
 * uses it up), else false. A reset (the binding), a revocation (no record) or the expiry ends both.
 */
export function trusts(
  record: DeviceRecord | undefined,
  presented: PresentedDevice,
  binding: string | undefined,
  now: number,
): 'current' | 'previous' | false {
  if (!record || record.deviceId !== presented.deviceId || !stillTrusted(record, binding, now)) return false;
  if (sameDigest(record.secretDigest, presented.secretDigest)) return 'current';
  return (record.previousUntil ?? 0) > now && sameDigest(record.previousDigest, presented.secretDigest) ? 'previous' : false;
}

/** Whether a record still trusts some cookie (for listing): bound to the profile, unexpired, under its limit. */
export const stillTrusted = (record: DeviceRecord, binding: string | undefined, now: number): boolean =>
  binding !== undefined && record.binding === binding && record.expiresAt * 1000 > now && record.failures < DEVICE_FAILURE_LIMIT;
