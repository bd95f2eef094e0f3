/**
 * `admin set-password-policy <owner-email> [--min-length N] [--blocked-words a,b,c]` and
 * `admin show-password-policy <owner-email>`: an owner's own password policy, stored on its account
 * and in force within the functions' key-cache TTL. The command line is checked in full before
 * anything is read; the rules and the bounds are the domain's (domain/password-policy.ts).
 */

import { parseArgs } from 'node:util';
import { validator as userEmailValidator } from '#contract/generated/validators/userEmail';
import { normalizeEmail } from '#domain/email';
import { type OwnerStore, setPasswordPolicy, showPasswordPolicy } from '#domain/owners';
import { checkOwnerPolicy } from '#domain/password-policy';
import type { PasswordSettings } from '#platform/config';
import { UsageError } from './key-commands';
import type { TableOptions } from './transfer-commands';

export const POLICY_USAGE = `  set-password-policy <email> [--min-length N] [--blocked-words a,b,c]
                                an owner's password policy: its minimum length (8 to 64; NIST SP 800-63B-4 asks 15
                                where the password is the only factor) and up to 100 blocked words of 4 to 64 characters
                                (the brand, the tool's name), refused whole and in any case; --blocked-words "" clears them
  show-password-policy <email>  the policy in force for an owner's users (one JSON line)`;

export const POLICY_COMMANDS = ['set-password-policy', 'show-password-policy'] as const;

type Connect = (tables: TableOptions) => { owners: OwnerStore; passwords: () => PasswordSettings };

/** Runs one of the two commands from its argument list (after the command's name); resolves with what to print. */
export async function passwordPolicyCommand(command: (typeof POLICY_COMMANDS)[number], args: string[], connect: Connect): Promise<unknown> {
  const { positionals, values } = parse(args);
  const [email, ...rest] = positionals;
  if (email === undefined) throw new UsageError(`${command} needs <email>; see --help`);
  if (rest.length > 0) throw new UsageError(`${command} takes one argument, <email>; got also ${JSON.stringify(rest.join(' '))}`);
  if (!userEmailValidator({ user_email: email })) throw new UsageError(`Invalid e-mail address ${JSON.stringify(email)}`);
  const change = command === 'set-password-policy' ? parseChange(values) : undefined;
  if (command === 'show-password-policy' && (values['min-length'] !== undefined || values['blocked-words'] !== undefined)) {
    throw new UsageError('show-password-policy takes no options but the tables; see --help');
  }
  const { owners, passwords } = connect({
    ...(values['users-table'] !== undefined && { usersTable: values['users-table'] }),
    ...(values['owners-table'] !== undefined && { ownersTable: values['owners-table'] }),
  });
  if (!(await owners.findOwner(normalizeEmail(email)))) throw new UsageError(`No owner ${normalizeEmail(email)}`);
  return change ? setPasswordPolicy(owners, email, change, passwords()) : showPasswordPolicy(owners, email, passwords());
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        'min-length': { type: 'string' },
        'blocked-words': { type: 'string' },
        'users-table': { type: 'string' },
        'owners-table': { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('. ')[0]!.replace(/\.$/, '')}; see --help`);
  }
}

function parseChange(values: { 'min-length'?: string; 'blocked-words'?: string }) {
  const { 'min-length': minText, 'blocked-words': wordsText } = values;
  if (minText === undefined && wordsText === undefined)
    throw new UsageError('set-password-policy needs --min-length or --blocked-words; see --help');
  const change = {
    ...(minText !== undefined && { minLength: /^\d{1,3}$/.test(minText) ? Number(minText) : Number.NaN }),
    ...(wordsText !== undefined && { blockedWords: wordsText === '' ? [] : wordsText.split(',').map((word) => word.trim()) }),
  };
  try {
    checkOwnerPolicy(change);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return change;
}
