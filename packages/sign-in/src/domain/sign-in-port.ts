/** The sign-in's port and its types: what the rules (sign-in.ts) need from storage, what they take and what they answer. */

import type { OwnerPasswordPolicy } from '@white-label-user-management/shared/domain/password-policy';
import type { Argon2Setting } from '@white-label-user-management/shared/platform/config';
import type { SignInResult } from '../types';
import type { CostlyLane } from './costly-lane';
import type { AttemptState } from './sign-in-attempts';
import type { SignInMemory } from './sign-in-memory';
import type { DeviceRecord, PresentedDevice } from './trusted-devices';

/** What a sign-in needs of a user's profile. */
export interface SignInProfile {
  readonly passwordHash: string;
  readonly shouldResetPassword: boolean;
  /** The profile's `created_at` and `updated_at` (ISO instants), what a device cookie is bound to (trusted-devices.ts). */
  readonly createdAt?: string;
  readonly updatedAt?: string;
}

/** The profile (absent: no user has the e-mail), the attempt state (absent: none kept) and the device named, read together. */
export interface SignInRead {
  readonly profile?: SignInProfile;
  readonly state?: AttemptState;
  /** The record of the device a sealed cookie names, when one was asked for and exists. */
  readonly device?: DeviceRecord;
}

/** A fresh device cookie's record, as a success writes it. */
export interface NewDevice {
  readonly deviceId: string;
  readonly secretDigest: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
  readonly binding: string;
  /** ISO instant: the record's last use (and, for a new record, its creation). */
  readonly at: string;
}

/**
 * What a success writes besides the profile: the untrusted state cleared (an untrusted success) or kept (a
 * trusted one), and the device: a fresh cookie's record (`replaces`: the
 * digest the trusted record holds now, rotated on that condition; absent: a new record), or a trusted
 * record's failures cleared without a new cookie (`clear`).
 */
export interface Success {
  readonly upgradedHash?: string;
  readonly clearsUntrusted: boolean;
  readonly device?:
    | { readonly issue: NewDevice; readonly replaces?: string }
    | { readonly clear: { readonly deviceId: string; readonly secretDigest: string } };
}

/** How a success's write ended: done; not done because the hash is no longer the verified one; or because the trusted record changed. */
export type SuccessWrite = 'done' | 'hash' | 'device';

/** What a sign-in needs from storage (the port); packages/sign-in/src/store/sign-in-store.ts implements it on DynamoDB. */
export interface SignInStore {
  /** The profile, the attempt state and (with `deviceId`) that device's record, in one strongly consistent read. */
  read(ownerId: string, email: string, deviceId?: string): Promise<SignInRead>;
  /**
   * Stores `next` on condition that the stored state is still `expected` (absent: none). When it is
   * not, nothing is written and the state found comes back, to decide again.
   */
  count(
    ownerId: string,
    email: string,
    expected: AttemptState | undefined,
    next: AttemptState,
  ): Promise<{ readonly counted: true } | { readonly counted: false; readonly found: AttemptState | undefined }>;
  /**
   * Counts a trusted attempt, in one write apart from the untrusted state: one more failure on the device's
   * own record, on condition that it still holds `device.secretDigest` (with `previous`: as the cookie its
   * last rotation replaced, within the grace, which the write then ends), has failed fewer than
   * DEVICE_FAILURE_LIMIT times and has not expired. False, with nothing written, when the condition fails.
   */
  countTrusted(
    ownerId: string,
    email: string,
    device: { readonly deviceId: string; readonly secretDigest: string },
    now: number,
    previous?: boolean,
  ): Promise<boolean>;
  /**
   * After a verified password: the profile checked (or its hash upgraded) on condition that the hash is still
   * `verifiedHash`, and `success` written, in one write; after a new device record, the user's records past
   * MAX_DEVICES_PER_USER deleted, least recently used first.
   */
  succeed(ownerId: string, email: string, verifiedHash: string, success: Success): Promise<SuccessWrite>;
  /** changePassword's write: the new hash, `updated_at` = `at`, the reset flag cleared, the state and budget removed, the device written; on the same condition. */
  changePassword(
    ownerId: string,
    email: string,
    verifiedHash: string,
    newHash: string,
    at: string,
    success: Omit<Success, 'upgradedHash' | 'clearsUntrusted'>,
  ): Promise<SuccessWrite>;
  /** The owner's password policy as `admin set-password-policy` last set it; undefined when never set. */
  ownerPolicy(ownerId: string): Promise<OwnerPasswordPolicy | undefined>;
  /** The owner's device key (made on first use), which seals its tools' device cookies. */
  ownerDeviceKey(ownerId: string): Promise<Buffer>;
  /** Every device record kept for the user (trusted or not any more). */
  devices(ownerId: string, email: string): Promise<readonly DeviceRecord[]>;
  /** Deletes the user's device records (one, with `deviceId`); how many there were. */
  revokeDevices(ownerId: string, email: string, deviceId?: string): Promise<number>;
}

// A fresh device cookie, returned on every success: the tool keeps it in the browser until `deviceCookieExpiresAt`
// (IssuedDeviceCookie). How a sign-in ends: an outcome, never an error, for a wrong password, an unknown e-mail or a
// refusal (SignInResult). Both are declared once, in the package's public types (../types.ts).
export type { IssuedDeviceCookie, SignInResult } from '../types';

/** The outcomes that refuse before or instead of a verified password. */
export type SignInRefusal = Extract<SignInResult, { outcome: 'wrong' | 'throttled' | 'locked' | 'busy' }>;

export interface SignInDeps {
  readonly store: SignInStore;
  /** The stage's argon2id setting: what upgraded hashes and the dummy hash use, and what "costly" is measured against. */
  readonly setting: Argon2Setting;
  /** Where costly verifications wait and run (costly-lane.ts). */
  readonly lane: CostlyLane;
  /** The clock (epoch ms); tests inject a fake one. @default Date.now */
  readonly now?: () => number;
  /** Verifies a password against a stored hash, costly or not; tests wrap it to see or to time what was tried. */
  readonly verify?: (stored: string, password: string) => Promise<boolean>;
  /** The stage's password lengths: `maxLength` bounds what a sign-in reads at all ({@link oversized}). @default DEFAULT_PASSWORD_POLICY */
  readonly passwordPolicy?: { readonly maxLength: number };
  /**
   * The process's memory of refusals, verification times and owners' imported mixes (sign-in-memory.ts);
   * without it every attempt reads, a cheaper hash is not padded and an unknown e-mail is verified at the stage's setting.
   */
  readonly memory?: SignInMemory;
}

export interface SignInInput {
  readonly ownerId: string;
  readonly email: string;
  readonly password: string;
  /** The device cookie the browser holds for this account, if any (trusted-devices.ts). */
  readonly deviceCookie?: string;
}

/** A verified attempt: the profile it was verified on, the form of the password that matched, and the trusted device it came with. */
export interface Verified {
  readonly profile: SignInProfile;
  readonly matched: string;
  readonly forms: readonly string[];
  readonly device?: PresentedDevice;
  /** The device's previous cookie, in its grace: the success makes a new record and leaves the current cookie valid. */
  readonly grace?: true;
}
