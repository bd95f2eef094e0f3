/** The three operations' rules, free of HTTP: each returns an outcome for the handler to answer with. */

import type { PasswordSettings } from '#platform/config';
import { normalizeEmail } from './email';
import type { OwnerPasswordPolicy } from './password-policy';
import { generatePassword, hashPassword } from './passwords';

/** The caller: the owner whose tool the users belong to. */
export interface Owner {
  readonly ownerId: string;
  readonly ownerEmail: string;
  readonly keyId: string;
  /** The owner's own password policy, when it set one (`admin set-password-policy`). */
  readonly passwordPolicy?: OwnerPasswordPolicy;
}

/** A user's profile as stored. `whiteLabel` is set only on owner accounts. */
export interface UserRecord {
  readonly ownerId: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly shouldResetPassword: boolean;
  readonly whiteLabel?: boolean;
  /** When the user was created (ISO 8601); an import may keep another system's; default: now. */
  readonly createdAt?: string;
}

/** Why a conditional write on a user was refused. */
export type Refusal = 'not_found' | 'white_label';

/** A user's item collection: the profile and the data associated with the user. */
export interface UserItems {
  readonly profileExists: boolean;
  readonly whiteLabel: boolean;
  /** Opaque keys of the associated items (everything in the collection but the profile). */
  readonly associatedItems: readonly string[];
}

/**
 * What the user operations need from storage (the port). functions/shared/store/users-store.ts
 * implements it on DynamoDB; the rules below know nothing of tables or keys.
 */
export interface UserStore {
  /** One conditional create; false when the e-mail already exists in this owner's tool. */
  createUser(user: UserRecord): Promise<boolean>;
  /** Sets the hash unless the user is unknown or white-label. */
  setPasswordHash(ownerId: string, email: string, passwordHash: string): Promise<'updated' | Refusal>;
  listUserItems(ownerId: string, email: string): Promise<UserItems>;
  deleteUserItems(ownerId: string, email: string, items: readonly string[]): Promise<void>;
  /** Deletes the profile unless the user is unknown or white-label. */
  deleteProfile(ownerId: string, email: string): Promise<'deleted' | Refusal>;
}

export interface CreateUserInput {
  user_email: string;
  user_password?: string;
  should_reset_password?: boolean | 'true' | 'false';
}

export type CreateUserOutcome = { created: true; user_email: string; user_password: string } | { created: false };

/** Creates a user in the owner's tool, generating a password when none is given. */
export async function createUser(
  store: UserStore,
  owner: Owner,
  input: CreateUserInput,
  passwords: PasswordSettings,
): Promise<CreateUserOutcome> {
  const email = normalizeEmail(input.user_email);
  const password = input.user_password ?? generatePassword(passwords.passwordPolicy);
  const created = await store.createUser({
    ownerId: owner.ownerId,
    email,
    // The hash is of the NFC form; the response echoes the password as it was sent.
    passwordHash: await hashPassword(password.normalize('NFC'), passwords.argon2),
    shouldResetPassword: input.should_reset_password === true || input.should_reset_password === 'true',
  });
  return created ? { created, user_email: email, user_password: password } : { created };
}

export interface ResetPasswordInput {
  user_email: string;
  new_password: string;
}

/**
 * Sets a new password. The hash is computed before the user is looked up, so an
 * unknown user costs the caller as much time as a known one.
 */
export async function resetUserPassword(
  store: UserStore,
  owner: Owner,
  input: ResetPasswordInput,
  passwords: Pick<PasswordSettings, 'argon2'>,
): Promise<'reset' | Refusal> {
  const passwordHash = await hashPassword(input.new_password.normalize('NFC'), passwords.argon2);
  const outcome = await store.setPasswordHash(owner.ownerId, normalizeEmail(input.user_email), passwordHash);
  return outcome === 'updated' ? 'reset' : outcome;
}

export interface DeleteUserInput {
  user_email: string;
}

/**
 * Deletes the user's whole item collection: associated data first, the profile
 * last, so a delete that fails half way leaves the user visible and a retry finishes it.
 */
export async function deleteUser(store: UserStore, owner: Owner, input: DeleteUserInput): Promise<'deleted' | Refusal> {
  const email = normalizeEmail(input.user_email);
  const { profileExists, whiteLabel, associatedItems } = await store.listUserItems(owner.ownerId, email);
  if (!profileExists) return 'not_found';
  if (whiteLabel) return 'white_label';
  await store.deleteUserItems(owner.ownerId, email, associatedItems);
  const outcome = await store.deleteProfile(owner.ownerId, email);
  // The profile was there a moment ago; gone now, it was deleted: by this request's own
  // attempt whose answer was lost (the SDK retried), or by a concurrent delete.
  return outcome === 'not_found' ? 'deleted' : outcome;
}
