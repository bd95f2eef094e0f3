/**
 * `npm run admin -- migrate-sign-in-state --users-table NAME --sign-in-table NAME`: moves the sign-in
 * state that versions of the sign-in module before the sign-in table kept in the users table into the
 * sign-in table (store/sign-in-migration.ts), and prints one line of JSON with the counts. Against a
 * deployed stage: the stack outputs UsersTableName and SignInTableName (or USERS_TABLE_NAME,
 * SIGN_IN_TABLE_NAME). Locally (the engine `npm start` uses), `users` and `sign-in`; `npm start` runs it
 * itself. Safe to run again: step 3 of the rollout in docs/data-contract.md.
 */

import { parseArgs } from 'node:util';
import { createDocumentClient } from '#store/client';
import { adminEndpoint, LOCAL_TABLES } from '#store/local-engine';
import { migrateSignInState } from '#store/sign-in-migration';
import { UsageError } from './key-commands';

export const MIGRATE_USAGE =
  '  migrate-sign-in-state [--users-table NAME --sign-in-table NAME]   move the sign-in state of earlier modules into the sign-in table';

/** Runs the command with the arguments after its name; resolves with the line it printed. */
export async function migrateSignInStateCommand(args: string[]): Promise<string> {
  const usage = 'usage: npm run admin -- migrate-sign-in-state [--users-table NAME --sign-in-table NAME]';
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: { 'users-table': { type: 'string' }; 'sign-in-table': { type: 'string' } } }>
  >;
  try {
    parsed = parseArgs({ args, options: { 'users-table': { type: 'string' }, 'sign-in-table': { type: 'string' } } });
  } catch {
    throw new UsageError(usage);
  }
  const usersTable = parsed.values['users-table'] ?? process.env.USERS_TABLE_NAME;
  const signInTable = parsed.values['sign-in-table'] ?? process.env.SIGN_IN_TABLE_NAME;
  if ((usersTable === undefined) !== (signInTable === undefined))
    throw new UsageError(`${usage} (both tables, or neither for npm start's)`);
  const db = createDocumentClient({ endpoint: adminEndpoint(usersTable !== undefined) });
  try {
    const tables = { usersTable: usersTable ?? LOCAL_TABLES.usersTableName, signInTable: signInTable ?? LOCAL_TABLES.signInTableName };
    const outcome = await migrateSignInState(db, tables);
    const line = JSON.stringify({ users_table: tables.usersTable, sign_in_table: tables.signInTable, ...outcome });
    process.stdout.write(`${line}\n`);
    return line;
  } finally {
    db.destroy();
  }
}
