/**
 * `npm run admin -- <command>`: manage white-label owners and their API keys (see USAGE, or
 * `--help`; the commands are in key-commands.ts). One line of JSON on stdout; an error is one
 * line on stderr and a non-zero exit (2 for a command line that cannot run, 1 for a failure).
 * `reapply-deletions` (after a restore from backup) is in reapply-deletions.ts, `replay-events`
 * (lifecycle events kept after failing) in replay-events.ts.
 *
 * Local engine by default, found exactly as `npm start` finds it (DYNAMODB_ENDPOINT, else
 * http://127.0.0.1:${DYNAMODB_PORT}, else port 8000; tables `users` and `owners`). Against AWS:
 * give the stage's table names with --users-table and --owners-table (or USERS_TABLE_NAME /
 * OWNERS_TABLE_NAME) and leave DYNAMODB_ENDPOINT and DYNAMODB_PORT unset; credentials and
 * region come from the usual AWS chain.
 */

import { parseArgs } from 'node:util';
import { normalizeEmail } from '#domain/email';
import type { OwnerStore } from '#domain/owners';
import { readPasswordSettings } from '#platform/config';
import { createDocumentClient } from '#store/client';
import { createOwnersStore } from '#store/owners-store';
import { createUserTransferStore } from '#store/user-transfer-store';
import { adminEndpoint, LOCAL_TABLES } from '../local/local-engine';
import { KEY_OPTIONS, KEY_USAGE, parseKeyCommand, runKeyCommand, UsageError } from './key-commands';
import { POLICY_COMMANDS, POLICY_USAGE, passwordPolicyCommand } from './policy-commands';
import { REAPPLY_USAGE, reapplyDeletionsCommand } from './reapply-deletions';
import { REPLAY_USAGE, replayEventsCommand } from './replay-events';
import { exportUsers, importUsers, type TableOptions, TRANSFER_USAGE, type TransferContext } from './transfer-commands';

const USAGE = `usage: npm run admin -- <command> [options]

${KEY_USAGE}
${POLICY_USAGE}
${TRANSFER_USAGE}
${REAPPLY_USAGE}
${REPLAY_USAGE}

  --users-table NAME --owners-table NAME   a deployed stage's tables (or USERS_TABLE_NAME, OWNERS_TABLE_NAME)
  --help                                   this text

Prints one line of JSON. Errors: one line on stderr; exit 2 for a command line that cannot run, 1 for a failure.`;

/** Stores on the tables the command names, or the local engine's, found as `npm start` finds it. */
function connect(tables: TableOptions): TransferContext & { owners: OwnerStore } {
  const usersTableName = tables.usersTable ?? process.env.USERS_TABLE_NAME;
  const ownersTableName = tables.ownersTable ?? process.env.OWNERS_TABLE_NAME;
  const db = createDocumentClient({ endpoint: adminEndpoint(usersTableName !== undefined && ownersTableName !== undefined) });
  const names = {
    usersTableName: usersTableName ?? LOCAL_TABLES.usersTableName,
    ownersTableName: ownersTableName ?? LOCAL_TABLES.ownersTableName,
  };
  const owners = createOwnersStore(db, names);
  return {
    owners,
    store: createUserTransferStore(db, names.usersTableName),
    ownerIdOf: async (email) => {
      const owner = await owners.findOwner(normalizeEmail(email));
      if (!owner) throw new UsageError(`No owner ${normalizeEmail(email)}`);
      return owner.ownerId;
    },
    passwords: readPasswordSettings,
  };
}

async function main(): Promise<void> {
  // Commands with options of their own; see admin/reapply-deletions.ts and admin/transfer-commands.ts.
  if (process.argv[2] === 'reapply-deletions') return void (await reapplyDeletionsCommand(process.argv.slice(3)));
  if (process.argv[2] === 'replay-events') {
    process.exitCode = await replayEventsCommand(process.argv.slice(3));
    return;
  }
  if (process.argv[2] === 'import-users') {
    process.exitCode = (await importUsers(process.argv.slice(3), connect)).exitCode;
    return;
  }
  if (process.argv[2] === 'export-users') return void (await exportUsers(process.argv.slice(3), connect));
  const policyCommand = POLICY_COMMANDS.find((name) => name === process.argv[2]);
  if (policyCommand && !process.argv.includes('--help'))
    return print(await passwordPolicyCommand(policyCommand, process.argv.slice(3), connect));
  const { positionals, values } = parseCommandLine();
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const command = parseKeyCommand(positionals, {
    operations: values.operations,
    'expires-in': values['expires-in'],
    'expires-at': values['expires-at'],
  });

  const { owners } = connect({
    ...(values['users-table'] !== undefined && { usersTable: values['users-table'] }),
    ...(values['owners-table'] !== undefined && { ownersTable: values['owners-table'] }),
  });
  print(await runKeyCommand(owners, command, readPasswordSettings));
}

function parseCommandLine() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        'users-table': { type: 'string' },
        'owners-table': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        ...KEY_OPTIONS,
      },
    });
  } catch (error) {
    // node:util's own message for an unknown option or a missing value, up to its first sentence.
    throw new UsageError(`${(error as Error).message.split('. ')[0]!.replace(/\.$/, '')}; see --help`);
  }
}

/** Exactly one line of JSON on stdout. */
const print = (value: unknown) => void process.stdout.write(`${JSON.stringify(value)}\n`);

/** An error as one line: its message, or its name when it has none (an SDK network error may not). */
const oneLine = (error: unknown) => {
  const text = error instanceof Error ? error.message || error.name : String(error);
  return text.replace(/\s*\n\s*/g, ' ').trim() || 'Failed';
};

main().catch((error: unknown) => {
  process.stderr.write(`${oneLine(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
