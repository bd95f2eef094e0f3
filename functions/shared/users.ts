/** The three operations' rules, free of HTTP: each returns an outcome for the handler to answer with. */

import type { PasswordPolicy } from './config';
import { normalizeEmail } from './email';
import { generatePassword, hashPassword } from './passwords';
import type { Refusal, Repository } from './repository';
import { PROFILE_SK } from './table-layout';

/** The caller: the owner whose tool the users belong to. */
export interface Owner {
  readonly ownerId: string;
  readonly ownerEmail: string;
  readonly keyId: string;
}

export interface CreateUserInput {
  user_email: string;
  user_password?: string;
  should_reset_password?: boolean | 'true' | 'false';
}

export type CreateUserOutcome = { created: true; user_email: string; user_password: string } | { created: false };

/** Creates a user in the owner's tool, generating a password when none is given. */
export async function createUser(
  repository: Repository,
  owner: Owner,
  input: CreateUserInput,
  policy: PasswordPolicy,
): Promise<CreateUserOutcome> {
  const email = normalizeEmail(input.user_email);
  const password = input.user_password ?? generatePassword(policy);
  const created = await repository.createUser({
    ownerId: owner.ownerId,
    email,
    passwordHash: await hashPassword(password),
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
export async function resetUserPassword(repository: Repository, owner: Owner, input: ResetPasswordInput): Promise<'reset' | Refusal> {
  const passwordHash = await hashPassword(input.new_password);
  const outcome = await repository.setPasswordHash(owner.ownerId, normalizeEmail(input.user_email), passwordHash);
  return outcome === 'updated' ? 'reset' : outcome;
}

export interface DeleteUserInput {
  user_email: string;
}

/**
 * Deletes the user's whole item collection: associated data first, the profile
 * last, so a delete that fails half way leaves the user visible and a retry finishes it.
 */
export async function deleteUser(repository: Repository, owner: Owner, input: DeleteUserInput): Promise<'deleted' | Refusal> {
  const email = normalizeEmail(input.user_email);
  const { sortKeys, whiteLabel } = await repository.listUserItems(owner.ownerId, email);
  if (!sortKeys.includes(PROFILE_SK)) return 'not_found';
  if (whiteLabel) return 'white_label';
  await repository.deleteUserItems(
    owner.ownerId,
    email,
    sortKeys.filter((sk) => sk !== PROFILE_SK),
  );
  const outcome = await repository.deleteProfile(owner.ownerId, email);
  // The profile was there a moment ago; gone now, it was deleted: by this request's own
  // attempt whose answer was lost (the SDK retried), or by a concurrent delete.
  return outcome === 'not_found' ? 'deleted' : outcome;
}
