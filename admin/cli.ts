/**
 * `npm run admin -- <command>`: manage white-label owners and their API keys (see USAGE, or
 * `--help`; the commands are in key-commands.ts). One line of JSON on stdout (export-users: one
 * per user); an error is one line on stderr and a non-zero exit (2 for a command line that cannot
 * run, an unknown owner or key included; 1 for a failure).
 * `reapply-deletions` (after a restore from backup) is in reapply-deletions.ts, `replay-events`
 * (lifecycle events kept after failing) in replay-events.ts.
 *
 * Local engine by default, found exactly as `npm start` finds it (DYNAMODB_ENDPOINT, else
 * http://127.0.0.1:${DYNAMODB_PORT}, else the endpoint npm start wrote in .data/sign-in.json, else
 * port 8000; tables `users` and `owners`). Against AWS:
 * give the stage's table names with --users-table and --owners-table (or USERS_TABLE_NAME /
 * OWNERS_TABLE_NAME) and leave DYNAMODB_ENDPOINT and DYNAMODB_PORT unset; credentials and
 * region come from the usual AWS chain.
 */

import { parseArgs } from 'node:util';
import { normalizeEmail } from '#domain/email';
import type { OwnerStore } from '#domain/owners';
import { type PasswordSettings, parseArgon2Setting, readPasswordSettings, readPwnedPasswordsUrl } from '#platform/config';
import { pwnedPasswordsCheck } from '#platform/pwned-passwords';
import { createDocumentClient } from '#store/client';
import { adminEndpoint, LOCAL_TABLES, localEngine } from '#store/local-engine';
import { createOwnersStore } from '#store/owners-store';
import { createUserTransferStore } from '#store/user-transfer-store';
import { commandUsage } from './command-usage';
import { KEY_OPTIONS, KEY_USAGE, parseKeyCommand, runKeyCommand, UsageError } from './key-commands';
import { MIGRATE_USAGE, migrateSignInStateCommand } from './migrate-sign-in-state';
import { discoveredFrom, useNpmStartEngine } from './npm-start-engine';
import { POLICY_COMMANDS, POLICY_USAGE, passwordPolicyCommand } from './policy-commands';
import { REAPPLY_USAGE, reapplyDeletionsCommand } from './reapply-deletions';
import { REPLAY_USAGE, replayEventsCommand } from './replay-events';
import { REVOKE_DEVICES_USAGE, revokeDevicesCommand } from './revoke-devices';
import { SIGN_IN_STATE_USAGE, signInStateCommand } from './sign-in-state';
import { exportUsers, importUsers, type TableOptions, TRANSFER_USAGE, type TransferContext } from './transfer-commands';

const USAGE = `usage: npm run admin -- <command> [options]

${KEY_USAGE}
${POLICY_USAGE}
${TRANSFER_USAGE}
${REAPPLY_USAGE}
${MIGRATE_USAGE}
${REPLAY_USAGE}
${SIGN_IN_STATE_USAGE}
${REVOKE_DEVICES_USAGE}

  --users-table NAME --owners-table NAME   a deployed stage's tables (or USERS_TABLE_NAME, OWNERS_TABLE_NAME)
  --argon2 m=<KiB>,t=<n>,p=1               the argon2id setting create-owner, reset-owner-password and import-users
                                           hash a clear password with (or ARGON2_SETTING): required against a deployed
                                           stage, where it is the stack output Argon2Setting; locally npm start's default
  --help                                   this text

Prints one line of JSON (export-users: one line per user). Errors: one line on stderr; exit 2 for a command
line that cannot run (an unknown owner or key included), 1 for a failure.`;

/** `--argon2 <setting>` (or `--argon2=<setting>`), taken out of the command line: every command that hashes reads it. */
function takeArgon2Option(argv: string[]): string | undefined {
  const at = argv.findIndex((arg) => arg === '--argon2' || arg.startsWith('--argon2='));
  if (at < 0) return undefined;
  const [arg] = argv.splice(at, 1);
  if (arg !== '--argon2') return arg!.slice('--argon2='.length);
  const value = argv.splice(at, 1)[0];
  if (value === undefined || value.startsWith('--')) throw new UsageError('--argon2 needs a setting like m=7168,t=5,p=1; see --help');
  return value;
}

/** `--argon2`, once main() has taken it out of the command line. */
let argon2Option: string | undefined;

/**
 * The password settings a clear password is hashed with. Against a deployed stage's tables the
 * argon2id setting must be given (`--argon2` or ARGON2_SETTING, the stack output Argon2Setting):
 * a default there would silently hash at another cost than the stage's.
 */
function passwordSettings(deployed: boolean): () => PasswordSettings {
  return () => {
    const raw = argon2Option ?? process.env.ARGON2_SETTING;
    if (deployed && !raw) {
      throw new UsageError(
        "A deployed stage's tables need its argon2id setting: --argon2 <the stack output Argon2Setting> (or ARGON2_SETTING); see --help",
      );
    }
    const { passwordPolicy } = readPasswordSettings();
    try {
      return { passwordPolicy, argon2: parseArgon2Setting(raw, argon2Option !== undefined ? '--argon2' : 'ARGON2_SETTING') };
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  };
}

/**
 * The online password check when PWNED_PASSWORDS_URL turns it on, as on a stage with it: a failure
 * is said once on stderr (stdout carries the counts line) and the offline rules decide (fail-open).
 */
function breachCheckFromEnvironment(): TransferContext['breachCheck'] {
  const url = readPwnedPasswordsUrl();
  if (url === undefined) return undefined;
  let warned = false;
  return pwnedPasswordsCheck(url, undefined, (error) => {
    if (!warned)
      process.stderr.write(
        `The Pwned Passwords check at ${url} did not answer (${(error as Error).name}): the offline rules alone decide\n`,
      );
    warned = true;
  });
}

/** Stores on the tables the command names, or the local engine's, found as `npm start` finds it. */
function connect(tables: TableOptions): TransferContext & { owners: OwnerStore } {
  const usersTableName = tables.usersTable ?? process.env.USERS_TABLE_NAME;
  const ownersTableName = tables.ownersTable ?? process.env.OWNERS_TABLE_NAME;
  const endpoint = adminEndpoint(usersTableName !== undefined && ownersTableName !== undefined);
  const db = createDocumentClient({ endpoint });
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
    ownerPolicyOf: async (ownerId, ownerEmail) => (await owners.findOwnerAccount(ownerId, normalizeEmail(ownerEmail)))?.passwordPolicy,
    passwords: passwordSettings(endpoint === undefined),
    breachCheck: breachCheckFromEnvironment(),
  };
}

async function main(): Promise<void> {
  // `--help` anywhere: the usage on stdout and exit 0, as the contract says; after a command, that command's.
  if (process.argv.slice(2).includes('--help')) return void process.stdout.write(`${commandUsage(USAGE, process.argv[2]!) ?? USAGE}\n`);
  argon2Option = takeArgon2Option(process.argv);
  useNpmStartEngine(process.argv.slice(3));
  // Commands with options of their own; see admin/reapply-deletions.ts and admin/transfer-commands.ts.
  if (process.argv[2] === 'reapply-deletions') return void (await reapplyDeletionsCommand(process.argv.slice(3)));
  if (process.argv[2] === 'migrate-sign-in-state') return void (await migrateSignInStateCommand(process.argv.slice(3)));
  if (process.argv[2] === 'sign-in-state') return void (await signInStateCommand(process.argv.slice(3)));
  if (process.argv[2] === 'revoke-devices') return void (await revokeDevicesCommand(process.argv.slice(3)));
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

  const { owners, passwords } = connect({
    ...(values['users-table'] !== undefined && { usersTable: values['users-table'] }),
    ...(values['owners-table'] !== undefined && { ownersTable: values['owners-table'] }),
  });
  print(await runKeyCommand(owners, command, passwords));
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

/**
 * A DynamoDB that did not answer (nothing listening, a wrong host, a timeout): which endpoint was
 * tried and how to point the CLI elsewhere, instead of Node's bare `connect ECONNREFUSED`.
 */
function unreachable(error: unknown): string | undefined {
  const { code, name, address, port } = error as { code?: string; name?: string; address?: string; port?: number };
  const network = ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT'];
  if (!network.includes(code ?? '') && name !== 'TimeoutError') return undefined;
  const endpoint =
    process.env.DYNAMODB_ENDPOINT || process.env.DYNAMODB_PORT || address === '127.0.0.1'
      ? localEngine().endpoint
      : `${address ?? 'AWS'}${port ? `:${port}` : ''}`;
  const where = discoveredFrom ? `, the endpoint npm start wrote in ${discoveredFrom}` : '';
  return (
    `Cannot reach DynamoDB at ${endpoint} (${code ?? name}${where}). Point the admin CLI at the engine npm start uses with ` +
    'DYNAMODB_PORT=<its DYNAMODB_PORT> (or DYNAMODB_ENDPOINT=<url>); for a deployed stage, leave both unset and name its tables.'
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${unreachable(error) ?? oneLine(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
