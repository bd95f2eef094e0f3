/**
 * The sign-in module a tool's back end imports (`@white-label-user-management/sign-in`, Node.js 20+):
 * it checks a user's password against the profile the service stored, on the stage's users table.
 * A thin entry: the rules are the domain's (functions/shared/domain/sign-in.ts, the same hash
 * formats and ceilings as the import), the storage its DynamoDB adapter; nothing of the Lambda
 * pipeline comes with it. Its public types are declared here, so the built declarations stand alone.
 */

import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dummyHash, signIn as signInRule } from '../../../functions/shared/domain/sign-in';
import { parseArgon2Setting } from '../../../functions/shared/platform/config';
import { createSignInStore } from '../../../functions/shared/store/sign-in-store';

/**
 * How a sign-in ended. `ok`: the password is right, start a session. `wrong`: wrong password or
 * unknown e-mail (the same answer, in the same time). `must-reset`: the password is right but the
 * user must choose a new password before a session starts (`should_reset_password`). `locked`: 100
 * consecutive failed sign-ins; refused, even with the right password, until the password is reset.
 */
export type SignInOutcome = 'ok' | 'wrong' | 'must-reset' | 'locked';

/** A sign-in's result: an outcome, never a thrown error for a wrong password or an unknown e-mail. */
export interface SignInResult {
  readonly outcome: SignInOutcome;
}

export interface SignInOptions {
  /** The users table: the stack output `UsersTableName` (locally `users`). */
  readonly usersTable: string;
  /** The stage's argon2id setting, the stack output `Argon2Setting` (e.g. `m=7168,t=5,p=1`): upgraded hashes use it. */
  readonly argon2Setting: string;
  /** How to reach DynamoDB (region, credentials, endpoint): the AWS SDK's own client options; default, the SDK's defaults. */
  readonly dynamodb?: DynamoDBClientConfig;
}

export interface SignInRequest {
  /** The owner's id (`owner_id` in every lifecycle event and in the owners table). */
  readonly ownerId: string;
  /** The e-mail as the user typed it; trimmed and lower-cased here, as the service stores it. */
  readonly email: string;
  /** The password as the user typed it; normalised to NFC here, as the service hashes it. */
  readonly password: string;
}

export interface SignIn {
  signIn(request: SignInRequest): Promise<SignInResult>;
}

/** A sign-in for one stage's users table. Build it once per process; it holds one DynamoDB client. */
export function createSignIn(options: SignInOptions): SignIn {
  const setting = parseArgon2Setting(options.argon2Setting, 'argon2Setting');
  const client = new DynamoDBClient({ maxAttempts: 3, retryMode: 'standard', ...options.dynamodb });
  const store = createSignInStore(DynamoDBDocumentClient.from(client), options.usersTable);
  void dummyHash(setting);
  return {
    async signIn(request: SignInRequest): Promise<SignInResult> {
      for (const field of ['ownerId', 'email', 'password'] as const) {
        if (typeof request?.[field] !== 'string') throw new TypeError(`signIn: ${field} must be a string`);
      }
      return signInRule({ store, setting }, request);
    },
  };
}
