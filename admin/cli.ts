/**
 * `npm run admin -- <command>`: manage white-label owners and their API keys.
 *
 *   create-owner <email>   create an owner, its own (white-label) account and its first key
 *   issue-key <email>      issue another key for an owner (rotation)
 *   revoke-key <key-id>    revoke a key (warm functions stop accepting it within the key-cache TTL)
 *   list-keys <email>      list an owner's keys (ids and dates, never the keys)
 *   reapply-deletions --users-table NAME --since ISO-TIME
 *                          after a restore: delete again the users deleted since (admin/reapply-deletions.ts)
 *
 * Local engine by default (DYNAMODB_ENDPOINT, default http://127.0.0.1:8000, tables
 * `users` and `owners`). Against AWS: give the stage's table names with
 * --users-table and --owners-table (or USERS_TABLE_NAME / OWNERS_TABLE_NAME) and
 * leave DYNAMODB_ENDPOINT unset; credentials and region come from the usual AWS chain.
 */

import { parseArgs } from 'node:util';
import { readPasswordPolicy } from '../functions/shared/config';
import { createDocumentClient } from '../functions/shared/dynamodb';
import * as owners from '../functions/shared/owners';
import { createRepository } from '../functions/shared/repository';
import { LOCAL_TABLES } from '../local/dynamodb-local';
import { reapplyDeletionsCommand } from './reapply-deletions';

const USAGE =
  'usage: npm run admin -- create-owner <email> | issue-key <email> | revoke-key <key-id> | list-keys <email> [--users-table NAME --owners-table NAME]';

async function main(): Promise<void> {
  // Its own options; see admin/reapply-deletions.ts.
  if (process.argv[2] === 'reapply-deletions') return void (await reapplyDeletionsCommand(process.argv.slice(3)));
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { 'users-table': { type: 'string' }, 'owners-table': { type: 'string' } },
  });
  const [command, argument] = positionals;
  if (!command || !argument || positionals.length !== 2) throw new Error(USAGE);

  const usersTableName = values['users-table'] ?? process.env.USERS_TABLE_NAME;
  const ownersTableName = values['owners-table'] ?? process.env.OWNERS_TABLE_NAME;
  const againstAws = usersTableName !== undefined && ownersTableName !== undefined && !process.env.DYNAMODB_ENDPOINT;
  const endpoint = againstAws ? undefined : (process.env.DYNAMODB_ENDPOINT ?? 'http://127.0.0.1:8000');

  const repository = createRepository(createDocumentClient({ endpoint }), {
    usersTableName: usersTableName ?? LOCAL_TABLES.usersTableName,
    ownersTableName: ownersTableName ?? LOCAL_TABLES.ownersTableName,
  });

  switch (command) {
    case 'create-owner':
      return print(await owners.createOwner(repository, argument, readPasswordPolicy()));
    case 'issue-key':
      return print(await owners.issueKey(repository, argument));
    case 'revoke-key': {
      const key = await owners.revokeKey(repository, argument);
      return print({ key_id: key.keyId, owner_email: key.ownerEmail, revoked: true });
    }
    case 'list-keys':
      return print(await owners.listKeys(repository, argument));
    default:
      throw new Error(USAGE);
  }
}

/** Exactly one line of JSON on stdout. */
const print = (value: unknown) => void process.stdout.write(`${JSON.stringify(value)}\n`);

main().catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
