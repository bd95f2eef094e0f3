/**
 * Sessions that end when the password does (docs/adr/0033-sessions-that-end.md). A success (`ok`, `changed`)
 * hands the tool a session value, which it keeps with its own session; checkSession answers whether that
 * session may go on, in one read.
 *
 * A value is `<deviceId>.<start>.<mac>`: the device record the success wrote (trusted-devices.ts), the
 * start in epoch seconds, and an HMAC under the owner's device key over the owner, the e-mail, the
 * password binding (passwordBinding: the profile's `created_at` and `updated_at`), the device and the
 * start. So it is `valid` only while:
 * - the profile's binding is the one it was issued under: an API reset, an owner's reset, a change of
 *   password (from any session: the one that changed it gets a new value) or a re-created user changes it,
 *   a sign-in's rehash does not;
 * - the device's record still exists: `revokeDevices` (one device or all: "sign out everywhere"), the
 *   user's deletion and the cap's eviction (MAX_DEVICES_PER_USER, least recently used) delete it, and a
 *   deleted record never comes back (a new one has a new random id);
 * - its start is less than SESSION_LIFETIME_HOURS ago.
 * Anything else, a forged value, another user's or another owner's, a value of another type, is `ended`;
 * and since none of the three can be undone, `ended` is final.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import { normalizeEmail } from '@white-label-user-management/shared/domain/email';
import type { SessionResult } from '../types';
import { MAX_EMAIL_OCTETS } from './sign-in-inputs';
import { hmacKey, passwordBinding } from './trusted-devices';

/** A session's absolute lifetime from the success that started it (OWASP ASVS 5.0, 7.3.2): then the user signs in again. */
export const SESSION_LIFETIME_HOURS = 12;

// What a success hands the tool to keep with its own session (IssuedSession: the session value, kept server-side with the
// session, never in a cookie the browser can read), and how checkSession answers (SessionResult): declared once, in the
// package's public types (../types.ts).
export type { IssuedSession, SessionResult } from '../types';

/** What checkSession reads, in one call: the profile's binding, whether the device's record exists, the owner's key. */
export interface SessionRead {
  /** The profile's creation and update times; absent when no user has the e-mail. */
  readonly profile?: { readonly createdAt?: string; readonly updatedAt?: string };
  /** Whether the device record the value names exists. */
  readonly device: boolean;
  /** The owner's device key; absent when the owner has none yet (then no value was ever issued). */
  readonly ownerKey?: Buffer;
}

/** What checkSession needs from storage (the port); packages/sign-in/src/store/session-reads.ts implements it on DynamoDB. */
export interface SessionStore {
  /** The profile, the device's record and (unless this process knows it) the owner's device key, in one strongly consistent read. */
  readSession(ownerId: string, email: string, deviceId: string): Promise<SessionRead>;
}

const MAC_BYTES = 16;
/** A device id (16 random bytes), epoch seconds, a MAC of MAC_BYTES: base64url and digits only. */
const SESSION_PATTERN = /^([A-Za-z0-9_-]{22})\.([0-9]{1,12})\.([A-Za-z0-9_-]{22})$/;

const mac = (ownerKey: Buffer, ownerId: string, email: string, binding: string, deviceId: string, start: number): Buffer =>
  createHmac('sha256', hmacKey(ownerKey))
    .update(JSON.stringify(['session', ownerId, email, binding, deviceId, start]))
    .digest()
    .subarray(0, MAC_BYTES);

/** A fresh session value for the device `deviceId`, starting `now` (epoch ms), under the password binding `binding`. */
export function issueSession(ownerKey: Buffer, ownerId: string, email: string, binding: string, deviceId: string, now: number): string {
  const start = Math.floor(now / 1000);
  return `${deviceId}.${start}.${mac(ownerKey, ownerId, email, binding, deviceId, start).toString('base64url')}`;
}

export interface CheckSessionInput {
  readonly ownerId: string;
  readonly email: string;
  /** The value a success returned; anything else (of any type) is `ended`. */
  readonly session: unknown;
}

/**
 * Whether the session a success started may go on: `valid`, or `ended` (see above). One read for a value of
 * the right shape and unexpired; none for anything else. Never throws for a value it does not know.
 */
export async function checkSession(
  deps: { readonly store: SessionStore; readonly now?: () => number },
  input: CheckSessionInput,
): Promise<SessionResult> {
  const ended = { outcome: 'ended' } as const;
  if (typeof input.session !== 'string' || input.session.length > 64) return ended;
  const parts = SESSION_PATTERN.exec(input.session);
  if (!parts || input.email.length > MAX_EMAIL_OCTETS || Buffer.byteLength(input.email, 'utf8') > MAX_EMAIL_OCTETS) return ended;
  const [, deviceId, startText, given] = parts as unknown as [string, string, string, string];
  const start = Number(startText);
  if ((start + SESSION_LIFETIME_HOURS * 3600) * 1000 <= (deps.now ?? Date.now)()) return ended;
  const email = normalizeEmail(input.email);
  const { profile, device, ownerKey } = await deps.store.readSession(input.ownerId, email, deviceId);
  if (!profile || !device || !ownerKey) return ended;
  const binding = passwordBinding(profile.createdAt, profile.updatedAt);
  // Compared as text: base64url's unused low bits of the last character cannot make a second valid spelling.
  const expected = Buffer.from(mac(ownerKey, input.ownerId, email, binding, deviceId, start).toString('base64url'));
  const presented = Buffer.from(given);
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? { outcome: 'valid' } : ended;
}
