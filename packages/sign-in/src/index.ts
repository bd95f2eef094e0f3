/**
 * The sign-in module a tool's back end imports (`@white-label-user-management/sign-in`, Node.js 20+):
 * it checks a user's password against the profile the service stored, on the stage's users table,
 * and lets the user choose a new one. A thin entry: the rules are the domain's
 * (functions/shared/domain/sign-in.ts, sign-in-attempts.ts, change-password.ts; the same hash formats
 * and ceilings as the import, the same password policy as the API), the storage its DynamoDB adapter;
 * nothing of the Lambda pipeline comes with it. Its public types are declared here, so the built
 * declarations stand alone.
 */

import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { changePassword as changePasswordRule } from '../../../functions/shared/domain/change-password';
import { createCostlyLane } from '../../../functions/shared/domain/costly-lane';
import { dummyHash, signIn as signInRule } from '../../../functions/shared/domain/sign-in';
import { createSignInMemory } from '../../../functions/shared/domain/sign-in-memory';
import { DEFAULT_PASSWORD_POLICY, parseArgon2Setting, parseInteger } from '../../../functions/shared/platform/config';
import { createSignInStore } from '../../../functions/shared/store/sign-in-store';

/**
 * How a sign-in ended; `switch (result.outcome)` over it is exhaustive.
 * - `ok`: the password is right: start a session.
 * - `wrong`: wrong password, or no user has this e-mail in this owner's tool (the same answers, in the same time).
 * - `must-reset`: the password is right, but the user must choose a new one (`changePassword`) before a session starts.
 * - `throttled`: too many failures in a row: wait `retryAfterSeconds`; nothing was verified or counted.
 * - `locked`: 100 failures in a row; refused, even with the right password, until the password is reset.
 * - `busy`: this process cannot verify an imported costly hash in time; retry after `retryAfterSeconds`.
 */
export type SignInResult =
  | { readonly outcome: 'ok' }
  | { readonly outcome: 'wrong' }
  | { readonly outcome: 'must-reset' }
  | { readonly outcome: 'throttled'; readonly retryAfterSeconds: number }
  | { readonly outcome: 'locked' }
  | { readonly outcome: 'busy'; readonly retryAfterSeconds: number };

export type SignInOutcome = SignInResult['outcome'];

/**
 * How a change of password ended; `switch (result.outcome)` over it is exhaustive.
 * - `changed`: the new password is stored, `should_reset_password` cleared: start a session.
 * - `refused`: the new password is outside the owner's policy; show `message` (the API's text, e.g.
 *   `new_password is too easy to guess: choose another.`) and ask for another. `reason` names the rule.
 * - `wrong`, `throttled`, `locked`, `busy`: the current password was refused, as `signIn` refuses it.
 */
export type ChangePasswordResult =
  | { readonly outcome: 'changed' }
  | { readonly outcome: 'refused'; readonly reason: 'length' | 'guessable' | 'breached'; readonly message: string }
  | Extract<SignInResult, { outcome: 'wrong' | 'throttled' | 'locked' | 'busy' }>;

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

export interface SignInRequest {
  /** The owner's id: from your tool's own configuration or routing, never from the user (`admin show-owner` prints it). */
  readonly ownerId: string;
  /** The e-mail as the user typed it; trimmed and lower-cased here, as the service stores it. */
  readonly email: string;
  /** The password as the user typed it; normalised to NFC here, as the service hashes it. */
  readonly password: string;
}

export interface ChangePasswordRequest {
  readonly ownerId: string;
  readonly email: string;
  /** The password the user signs in with now (verified, counted, throttled and locked as a sign-in). */
  readonly currentPassword: string;
  /** The password the user chose. */
  readonly newPassword: string;
}

export interface SignIn {
  signIn(request: SignInRequest): Promise<SignInResult>;
  changePassword(request: ChangePasswordRequest): Promise<ChangePasswordResult>;
  /** Stops the costly lane's worker threads and the DynamoDB client (idle, neither keeps the process alive). */
  close(): Promise<void>;
}

function strings<K extends string>(request: unknown, method: string, fields: readonly K[]): void {
  for (const field of fields) {
    if (typeof (request as Record<K, unknown> | null)?.[field] !== 'string') throw new TypeError(`${method}: ${field} must be a string`);
  }
}

/** A sign-in for one stage's users table. Build it once per process; it holds one DynamoDB client. */
export function createSignIn(options: SignInOptions): SignIn {
  for (const table of ['usersTable', 'signInTable'] as const) {
    if (typeof options?.[table] !== 'string' || options[table] === '') throw new TypeError(`createSignIn: ${table} must be a table name`);
  }
  if (options.usersTable === options.signInTable) throw new TypeError('createSignIn: signInTable must be another table than usersTable');
  const setting = parseArgon2Setting(options.argon2Setting, 'argon2Setting');
  const minLength = parseInteger(options.passwordPolicy?.minLength, DEFAULT_PASSWORD_POLICY.minLength, 1, 'passwordPolicy.minLength');
  const maxLength = parseInteger(
    options.passwordPolicy?.maxLength,
    DEFAULT_PASSWORD_POLICY.maxLength,
    minLength,
    'passwordPolicy.maxLength',
  );
  const client = new DynamoDBClient({ maxAttempts: 3, retryMode: 'standard', ...options.dynamodb });
  const store = createSignInStore(DynamoDBDocumentClient.from(client), {
    usersTable: options.usersTable,
    signInTable: options.signInTable,
  });
  const lane = createCostlyLane(options.costlyLane);
  const deps = {
    store,
    setting,
    lane,
    memory: createSignInMemory(setting),
    passwordPolicy: { minLength, maxLength },
    ...(options.now && { now: options.now }),
    ...(options.breachCheck && { breachCheck: options.breachCheck }),
  };
  void dummyHash(setting);
  return {
    async signIn(request) {
      strings(request, 'signIn', ['ownerId', 'email', 'password']);
      return signInRule(deps, request);
    },
    async changePassword(request) {
      strings(request, 'changePassword', ['ownerId', 'email', 'currentPassword', 'newPassword']);
      return changePasswordRule(deps, request);
    },
    async close() {
      await lane.close();
      client.destroy();
    },
  };
}
