/**
 * What the commands on one owner's user's sign-in share (sign-in-state, revoke-devices): their table
 * options, the tables (all three named, for a deployed stage, or none, for the engine `npm start` uses),
 * and the owner, looked up by e-mail (an unknown owner is a command line that cannot run: exit 2).
 */

import { normalizeEmail } from '#domain/email';
import type { SignInStore } from '#sign-in/domain/sign-in';
import { createSignInStore } from '#sign-in/store/sign-in-store';
import { createDocumentClient } from '#store/client';
import { adminEndpoint, LOCAL_TABLES } from '#store/local-engine';
import { createOwnersStore } from '#store/owners-store';
import { checkEmail, UsageError } from './key-commands';

/** The options naming a deployed stage's tables (or USERS_TABLE_NAME, OWNERS_TABLE_NAME, SIGN_IN_TABLE_NAME). */
export const SIGN_IN_TABLE_OPTIONS = {
  'users-table': { type: 'string' },
  'owners-table': { type: 'string' },
  'sign-in-table': { type: 'string' },
} as const;

/** The table options as parseArgs gives them. */
export interface SignInTableValues {
  readonly 'users-table'?: string | undefined;
  readonly 'owners-table'?: string | undefined;
  readonly 'sign-in-table'?: string | undefined;
}

/** Runs `run` with the owner's id and the sign-in store on the tables named (or npm start's), then closes the connection. */
export async function withOwnerSignIn<T>(
  values: SignInTableValues,
  usage: string,
  ownerEmail: string,
  run: (context: { readonly ownerId: string; readonly store: SignInStore }) => Promise<T>,
): Promise<T> {
  checkEmail(ownerEmail);
  const tables = {
    usersTableName: values['users-table'] ?? process.env.USERS_TABLE_NAME,
    ownersTableName: values['owners-table'] ?? process.env.OWNERS_TABLE_NAME,
    signInTableName: values['sign-in-table'] ?? process.env.SIGN_IN_TABLE_NAME,
  };
  const named = Object.values(tables).filter((name) => name !== undefined).length;
  if (named !== 0 && named !== 3) throw new UsageError(`${usage} (all three tables, or none for npm start's)`);
  const db = createDocumentClient({ endpoint: adminEndpoint(named === 3) });
  try {
    const names = {
      usersTableName: tables.usersTableName ?? LOCAL_TABLES.usersTableName,
      ownersTableName: tables.ownersTableName ?? LOCAL_TABLES.ownersTableName,
      signInTableName: tables.signInTableName ?? LOCAL_TABLES.signInTableName,
    };
    const owner = await createOwnersStore(db, names).findOwner(normalizeEmail(ownerEmail));
    if (!owner) throw new UsageError(`No owner ${normalizeEmail(ownerEmail)}`);
    const store = createSignInStore(db, { usersTable: names.usersTableName, signInTable: names.signInTableName });
    return await run({ ownerId: owner.ownerId, store });
  } finally {
    db.destroy();
  }
}
