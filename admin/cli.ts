/**
 * `npm run admin -- <command>`: manage white-label owners and their API keys.
 *
 *   create-owner <email>   create an owner, its own (white-label) account and its first key
 *   issue-key <email>      issue another key for an owner (rotation)
 *   revoke-key <key-id>    revoke a key (warm functions stop accepting it within the key-cache TTL)
 *   list-keys <email>      list an owner's keys (ids and dates, never the keys)
 *
 * Local engine by default, found exactly as `npm start` finds it (DYNAMODB_ENDPOINT, else
 * http://127.0.0.1:${DYNAMODB_PORT}, else port 8000; tables `users` and `owners`). Against AWS:
 * give the stage's table names with --users-table and --owners-table (or USERS_TABLE_NAME /
 * OWNERS_TABLE_NAME) and leave DYNAMODB_ENDPOINT and DYNAMODB_PORT unset; credentials and
 * region come from the usual AWS chain.
 */

import { parseArgs } from 'node:util';
import { readPasswordPolicy } from '../functions/shared/config';
import { createDocumentClient } from '../functions/shared/dynamodb';
import { LOCAL_TABLES, localEngine } from '../functions/shared/local-engine';
import * as owners from '../functions/shared/owners';
import { createRepository } from '../functions/shared/repository';

const USAGE =
  'usage: npm run admin -- create-owner <email> | issue-key <email> | revoke-key <key-id> | list-keys <email> [--users-table NAME --owners-table NAME]';

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { 'users-table': { type: 'string' }, 'owners-table': { type: 'string' } },
  });
  const [command, argument] = positionals;
  if (!command || !argument || positionals.length !== 2) throw new Error(USAGE);

  const usersTableName = values['users-table'] ?? process.env.USERS_TABLE_NAME;
  const ownersTableName = values['owners-table'] ?? process.env.OWNERS_TABLE_NAME;
  const local = Boolean(process.env.DYNAMODB_ENDPOINT || process.env.DYNAMODB_PORT);
  const againstAws = usersTableName !== undefined && ownersTableName !== undefined && !local;
  const endpoint = againstAws ? undefined : localEngine().endpoint;

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
