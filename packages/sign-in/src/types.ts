/**
 * The sign-in package's public types (re-exported by index.ts): how a tool builds it, what it passes in
 * and gets back.
 */

import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DescriptorSource } from './descriptor.js';

/** A fresh device cookie, on every success: keep it as `DEVICE_COOKIE` says. */
export interface IssuedDeviceCookie {
  /** The cookie's value (about 90 characters, base64url and dots). */
  readonly deviceCookie: string;
  /** ISO instant: the cookie's Expires. */
  readonly deviceCookieExpiresAt: string;
}

/**
 * What `ok` and `changed` carry besides the cookie: keep `session` with your own session (server-side, never
 * in a cookie the browser can read), and ask {@link SignIn.checkSession} on every request whether it still holds.
 */
export interface IssuedSession {
  readonly session: string;
}

/**
 * How a sign-in ended; `switch (result.outcome)` over it is exhaustive.
 * - `ok`: the password is right: start a session, keep `session` with it, and keep the fresh device cookie.
 * - `wrong`: wrong password, or no user has this e-mail in this owner's tool (the same answers, in the same time).
 * - `must-reset`: the password is right, but the user must choose a new one (`changePassword`) before a session starts;
 *   keep the fresh device cookie.
 * - `throttled`: too many failures in a row: wait `retryAfterSeconds`; nothing was verified or counted.
 * - `locked`: 60 untrusted failures in a row; refused, even with the right password, until the password is reset
 *   (a trusted device still signs in).
 * - `busy`: this process cannot verify an imported costly hash in time; retry after `retryAfterSeconds`.
 */
export type SignInResult =
  | ({ readonly outcome: 'ok' } & IssuedDeviceCookie & IssuedSession)
  | { readonly outcome: 'wrong' }
  | ({ readonly outcome: 'must-reset' } & IssuedDeviceCookie)
  | { readonly outcome: 'throttled'; readonly retryAfterSeconds: number }
  | { readonly outcome: 'locked' }
  | { readonly outcome: 'busy'; readonly retryAfterSeconds: number };

export type SignInOutcome = SignInResult['outcome'];

/**
 * How a change of password ended; `switch (result.outcome)` over it is exhaustive.
 * - `changed`: the new password is stored, `should_reset_password` cleared: start a session with the new `session`,
 *   and keep the fresh device cookie (every other device cookie and session of the user is void).
 * - `refused`: the new password is outside the owner's policy; show `message` (the API's text, e.g.
 *   `new_password is too easy to guess: choose another.`) and ask for another. `reason` names the rule.
 * - `wrong`, `throttled`, `locked`, `busy`: the current password was refused, as `signIn` refuses it.
 */
export type ChangePasswordResult =
  | ({ readonly outcome: 'changed' } & IssuedDeviceCookie & IssuedSession)
  | { readonly outcome: 'refused'; readonly reason: 'length' | 'guessable' | 'breached'; readonly message: string }
  | Extract<SignInResult, { outcome: 'wrong' | 'throttled' | 'locked' | 'busy' }>;

export interface SignInRequest {
  /** The owner's id: from your tool's own configuration or routing, never from the user (`admin show-owner` prints it). */
  readonly ownerId: string;
  /** The e-mail as the user typed it; trimmed and lower-cased here, as the service stores it. */
  readonly email: string;
  /** The password as the user typed it; normalised to NFC here, as the service hashes it. */
  readonly password: string;
  /** The device cookie the browser sent under {@link deviceCookieName}, if any; anything not a valid cookie (any type but a string too) counts as none. */
  readonly deviceCookie?: string | undefined;
}

export interface ChangePasswordRequest {
  readonly ownerId: string;
  readonly email: string;
  /** The password the user signs in with now (verified, counted, throttled and locked as a sign-in). */
  readonly currentPassword: string;
  /** The password the user chose. */
  readonly newPassword: string;
  /** As in {@link SignInRequest}. */
  readonly deviceCookie?: string | undefined;
}

export interface UserRequest {
  readonly ownerId: string;
  readonly email: string;
}

/** One trusted device of a user: never its cookie. */
export interface TrustedDevice {
  readonly deviceId: string;
  /** ISO instants. */
  readonly firstSignedInAt: string;
  readonly lastSignedInAt: string;
  readonly expiresAt: string;
}

/** A session to check: the user's, and the `session` value its `ok` or `changed` returned. */
export interface SessionRequest extends UserRequest {
  /** Anything but a value this owner's module issued for this user (any type but a string too) is `ended`. */
  readonly session: unknown;
}

/** Whether a session may go on: `ended` is final (sign the browser out); see {@link SESSION}. */
export type SessionResult = { readonly outcome: 'valid' } | { readonly outcome: 'ended' };

export interface SignIn {
  signIn(request: SignInRequest): Promise<SignInResult>;
  /**
   * `ended` once the user's password was reset or changed from another session, the user deleted, the session's
   * device revoked ("sign out everywhere" too) or its lifetime over; else `valid`. One DynamoDB read; never throws for a value.
   */
  checkSession(request: SessionRequest): Promise<SessionResult>;
  changePassword(request: ChangePasswordRequest): Promise<ChangePasswordResult>;
  /** The user's trusted devices (those whose cookie still signs in), most recently used first; none for an unknown e-mail. */
  listDevices(request: UserRequest): Promise<readonly TrustedDevice[]>;
  /** Revokes one trusted device (`deviceId`), or every one ("sign out everywhere"): how many were revoked. */
  revokeDevices(request: UserRequest & { readonly deviceId?: string }): Promise<number>;
  /** Stops the costly lane's worker threads and the DynamoDB client (idle, neither keeps the process alive). */
  close(): Promise<void>;
}

export interface SignInOptions {
  /** The users table: the stack output `UsersTableName` (`users` under `npm start`). */
  readonly usersTable: string;
  /**
   * The sign-in table, where the module keeps each e-mail's failed attempts: the stack output
   * `SignInTableName` (`sign-in` under `npm start`). New in 2.0.0 (CHANGELOG: the rollout).
   */
  readonly signInTable: string;
  /** The stage's argon2id setting, the stack output `Argon2Setting` (e.g. `m=7168,t=5,p=1`): new and upgraded hashes use it. */
  readonly argon2Setting: string;
  /** How to reach DynamoDB (region, credentials, endpoint): the AWS SDK's own client options; default, the SDK's defaults. */
  readonly dynamodb?: DynamoDBClientConfig;
  /**
   * The stage's password lengths in code points (its PASSWORD_MIN_LENGTH and PASSWORD_MAX_LENGTH): a new
   * password's limits. An owner's own minimum (`admin set-password-policy`) replaces `minLength`.
   * @default { minLength: 8, maxLength: 1024 }
   */
  readonly passwordPolicy?: { readonly minLength?: number; readonly maxLength?: number };
  /** The online breach check for new passwords, when the stage has one: `found`, `not_found`, or `unavailable` (fail-open). @default none */
  readonly breachCheck?: (password: string) => Promise<'found' | 'not_found' | 'unavailable'>;
  /**
   * The lane for imported hashes dearer than four times the stage's own: at most `concurrency` verified
   * at once in this process (each in its own worker thread), each attempt waiting at most `maxWaitMs`
   * for its turn (then `busy`), at most `maxQueue` waiting.
   * @default { concurrency: 1, maxWaitMs: 5000, maxQueue: 32 }
   */
  readonly costlyLane?: { readonly concurrency?: number; readonly maxWaitMs?: number; readonly maxQueue?: number };
  /** The clock, in epoch milliseconds. For tests only. @default Date.now */
  readonly now?: () => number;
}

/**
 * The way to build a sign-in: from the stage's descriptor, read where the stage keeps it
 * (`descriptorFromSsm(...)` deployed, `descriptorFromFile('.data/sign-in.json')` under `npm start`).
 * The descriptor is re-read past its loader's cache (60 s by default), so a changed setting (a new
 * argon2id setting, password lengths, the breach check) is picked up without a redeploy of the tool.
 */
export interface DescriptorSignInOptions {
  readonly descriptor: DescriptorSource;
  /**
   * The AWS SDK's own DynamoDB client options, over what the descriptor says (its Region; for a local
   * endpoint, the endpoint and static dummy credentials): e.g. `credentials` from a role assumed in the
   * stage's account.
   */
  readonly dynamodb?: DynamoDBClientConfig;
  /** As in {@link SignInOptions}. */
  readonly costlyLane?: SignInOptions['costlyLane'];
  /** The clock, in epoch milliseconds. For tests only. @default Date.now */
  readonly now?: () => number;
}
