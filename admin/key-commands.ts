/**
 * The admin CLI's owner and key commands: their arguments and options are checked here, in
 * full, before anything is read or written; the work itself is the domain's (owners.ts).
 */

import { validator as userEmailValidator } from '#contract/generated/validators/userEmail';
import { OPERATIONS, type OperationName } from '#contract/operations';
import * as owners from '#domain/owners';
import type { PasswordSettings } from '#platform/config';

/** A command line the CLI cannot run as given: exit status 2, the message on stderr. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The options the key commands take, for `util.parseArgs`. */
export const KEY_OPTIONS = {
  operations: { type: 'string' },
  'expires-in': { type: 'string' },
  'expires-at': { type: 'string' },
} as const;

export const KEY_USAGE = `  create-owner <email> [scope]  create an owner, its own (white-label) account and its first key
  issue-key <email> [scope]     issue another key for an owner (rotation, or a narrower key)
  list-keys <email>             list an owner's keys: operations, dates, last use (never a key)
  revoke-key <key-id>           revoke a key (warm functions stop accepting it within the key-cache TTL)
  reset-owner-password <email>  a new generated password for the owner's own account, shown once; ends a sign-in
                                lockout (the API cannot reset this account)
  show-owner <email>            an owner's id, the ownerId a tool's sign-in module is configured with:
                                {"owner_email","owner_id"} on one line

  scope (default: every operation, no expiry):
    --operations createUser,resetUserPassword,deleteUser   the operations the key may call
    --expires-in <N>d                                       the key is refused N days from now
    --expires-at <ISO-8601>                                 the key is refused from this instant
                                                            (2027-01-31, or 2027-01-31T12:00:00Z / +02:00)`;

export type KeyCommand =
  | { command: 'create-owner' | 'issue-key'; email: string; scope: owners.KeyScope }
  | { command: 'list-keys' | 'reset-owner-password' | 'show-owner'; email: string }
  | { command: 'revoke-key'; keyId: string };

const COMMANDS = ['create-owner', 'issue-key', 'list-keys', 'revoke-key', 'reset-owner-password', 'show-owner'] as const;
const isKeyCommand = (name: string): name is (typeof COMMANDS)[number] => (COMMANDS as readonly string[]).includes(name);

type KeyOptionValues = { [name in keyof typeof KEY_OPTIONS]?: string };

const KEY_ID = /^key_[0-9a-f]{16}$/;
const MAX_DAYS = 36_500;
/** Date, or date and time with seconds and fraction optional and a required offset. */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/** Checks a command line of a key command; throws a {@link UsageError} naming the first thing wrong. */
export function parseKeyCommand(positionals: readonly string[], options: KeyOptionValues, now = Date.now()): KeyCommand {
  const [command, argument, ...rest] = positionals;
  if (!command) throw new UsageError('No command given; see --help');
  if (!isKeyCommand(command)) throw new UsageError(`Unknown command ${JSON.stringify(command)}; see --help`);
  const what = command === 'revoke-key' ? '<key-id>' : '<email>';
  if (argument === undefined) throw new UsageError(`${command} needs ${what}; see --help`);
  if (rest.length > 0) throw new UsageError(`${command} takes one argument, ${what}; got also ${JSON.stringify(rest.join(' '))}`);

  const given = Object.keys(options).filter((name) => options[name as keyof KeyOptionValues] !== undefined);
  if (command === 'list-keys' || command === 'revoke-key' || command === 'reset-owner-password' || command === 'show-owner') {
    if (given.length > 0) throw new UsageError(`--${given[0]} applies only to create-owner and issue-key`);
    if (command === 'revoke-key') {
      if (!KEY_ID.test(argument)) throw new UsageError(`Invalid key id ${JSON.stringify(argument)}; a key id is key_ and 16 hex digits`);
      return { command, keyId: argument };
    }
    return { command, email: checkEmail(argument) };
  }
  return { command, email: checkEmail(argument), scope: parseScope(options, now) };
}

/** Runs a checked command; resolves with what the CLI prints as one line of JSON. */
export async function runKeyCommand(store: owners.OwnerStore, command: KeyCommand, passwords: () => PasswordSettings): Promise<unknown> {
  try {
    return await runChecked(store, command, passwords);
  } catch (error) {
    // An unknown owner or key is a command line that cannot run (exit 2), as in import-users.
    throw error instanceof owners.UnknownTargetError ? new UsageError(error.message) : error;
  }
}

async function runChecked(store: owners.OwnerStore, command: KeyCommand, passwords: () => PasswordSettings): Promise<unknown> {
  switch (command.command) {
    case 'create-owner':
      return owners.createOwner(store, command.email, passwords(), command.scope);
    case 'issue-key':
      return owners.issueKey(store, command.email, command.scope);
    case 'list-keys':
      return owners.listKeys(store, command.email);
    case 'reset-owner-password':
      return owners.resetOwnerPassword(store, command.email, passwords());
    case 'show-owner':
      return owners.showOwner(store, command.email);
    case 'revoke-key': {
      const key = await owners.revokeKey(store, command.keyId);
      return { key_id: key.keyId, owner_email: key.ownerEmail, revoked: true };
    }
  }
}

/** The API's own rule for an e-mail (the precompiled validator of user_email: trimmed, lower-cased, at most 254, RFC shape). */
export function checkEmail(text: string): string {
  if (!userEmailValidator({ user_email: text })) throw new UsageError(`Invalid e-mail address ${JSON.stringify(text)}`);
  return text;
}

function parseScope(options: KeyOptionValues, now: number): owners.KeyScope {
  const { operations, 'expires-in': expiresIn, 'expires-at': expiresAt } = options;
  if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('Give --expires-in or --expires-at, not both');
  const expiry = expiresIn !== undefined ? inDays(expiresIn, now) : expiresAt !== undefined ? instant(expiresAt) : undefined;
  if (expiry !== undefined && expiry <= now) {
    throw new UsageError(`--expires-at ${JSON.stringify(expiresAt)} is not in the future`);
  }
  return {
    ...(operations !== undefined && { operations: parseOperations(operations) }),
    ...(expiry !== undefined && { expiresAt: new Date(expiry).toISOString() }),
  };
}

function parseOperations(text: string): OperationName[] {
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!OPERATIONS.includes(name as OperationName)) {
      throw new UsageError(`Unknown operation ${JSON.stringify(name)} in --operations; operations are ${OPERATIONS.join(',')}`);
    }
  }
  return names as OperationName[];
}

function inDays(text: string, now: number): number {
  const match = /^(\d{1,5})d$/.exec(text);
  const days = match ? Number(match[1]) : Number.NaN;
  if (!(days >= 1 && days <= MAX_DAYS)) {
    throw new UsageError(`--expires-in must be a number of days from 1 to ${MAX_DAYS}, like 90d; got ${JSON.stringify(text)}`);
  }
  return now + days * 86_400_000;
}

function instant(text: string): number {
  const match = ISO_8601.exec(text);
  const invalid = () =>
    new UsageError(`--expires-at must be an ISO-8601 date, or date and time with Z or an offset; got ${JSON.stringify(text)}`);
  if (!match) throw invalid();
  const [, year, month, day, hour = '0', minute = '0', second = '0', offsetHour = '0', offsetMinute = '0'] = match;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const realDay = date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
  if (!realDay || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59 || Number(offsetHour) > 23 || Number(offsetMinute) > 59) {
    throw invalid();
  }
  const at = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(at)) throw invalid();
  return at;
}
