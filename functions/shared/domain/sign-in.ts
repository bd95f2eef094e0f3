/**
 * The tool's sign-in, as plain rules over a port: the sign-in package (packages/sign-in/src/index.ts) runs them
 * in the tool's back end on the users table. NFC first, then the string as given; every accepted
 * hash format within the import's ceilings; an unknown e-mail costs what a known one does;
 * consecutive failures counted and refused past NIST's limit; a hash that is not argon2id at the
 * stage's setting replaced after a successful sign-in.
 */

import { randomUUID } from 'node:crypto';
import { type Argon2Setting, formatArgon2Setting } from '#platform/config';
import { normalizeEmail } from './email';
import { verifyHash } from './password-hashes';
import { hashPassword } from './passwords';

/**
 * NIST SP 800-63B (section 5.2.2 of revision 3): the verifier "SHALL limit consecutive failed
 * authentication attempts on a single account to no more than 100". Past it, a reset unlocks.
 */
export const MAX_FAILED_SIGN_INS = 100;

/** What a sign-in needs of a user's profile. */
export interface SignInProfile {
  readonly passwordHash: string;
  readonly shouldResetPassword: boolean;
}

/** An attempt, counted: the profile it was counted on, or why none was. */
export type AttemptStart = { readonly profile: SignInProfile } | { readonly refused: 'unknown' | 'locked' };

/** What a sign-in needs from storage (the port); functions/shared/store/sign-in-store.ts implements it on DynamoDB. */
export interface SignInStore {
  /**
   * Counts the attempt as a failure before anything is verified, so concurrent guesses cannot
   * outrun the limit, unless the account has already failed `limit` times in a row: `locked`.
   */
  startAttempt(ownerId: string, email: string, limit: number): Promise<AttemptStart>;
  /**
   * After a verified password: clears the count and, when `upgradedHash` is given, replaces the
   * hash, in one write on condition that the hash is still `verifiedHash`. False when it was not.
   */
  succeed(ownerId: string, email: string, verifiedHash: string, upgradedHash?: string): Promise<boolean>;
}

export type SignInResult =
  | { readonly outcome: 'ok' }
  | { readonly outcome: 'wrong' }
  | { readonly outcome: 'must-reset' }
  | { readonly outcome: 'locked' };

export interface SignInDeps {
  readonly store: SignInStore;
  /** The stage's argon2id setting: what upgraded hashes and the dummy hash use. */
  readonly setting: Argon2Setting;
  /** Verifies a password against a stored hash; tests wrap it to see which hashes were tried. */
  readonly verify?: (stored: string, password: string) => Promise<boolean>;
}

export interface SignInInput {
  readonly ownerId: string;
  readonly email: string;
  readonly password: string;
}

/** The forms of a password to try, in order: NFC (how the service hashes), then as given when it differs. */
export const passwordForms = (password: string): readonly string[] => {
  const nfc = password.normalize('NFC');
  return nfc === password ? [nfc] : [nfc, password];
};

/** Whether a stored hash is argon2id at `setting`: anything else is upgraded after a sign-in. */
export const isCurrentHash = (stored: string, setting: Argon2Setting) =>
  stored.startsWith(`$argon2id$v=19$${formatArgon2Setting(setting)}$`);

const dummies = new Map<string, Promise<string>>();
/**
 * A hash at the stage's setting of a password nobody knows, made once per setting and process;
 * the sign-in module starts it when it is built, so not even the first unknown e-mail waits for it.
 */
export function dummyHash(setting: Argon2Setting): Promise<string> {
  const key = formatArgon2Setting(setting);
  let dummy = dummies.get(key);
  if (!dummy) {
    dummy = hashPassword(randomUUID(), setting);
    dummies.set(key, dummy);
  }
  return dummy;
}

/** Signs a user of the owner's tool in: an outcome, never an error, for a wrong password or an unknown e-mail. */
export async function signIn(deps: SignInDeps, input: SignInInput): Promise<SignInResult> {
  const verify = deps.verify ?? verifyHash;
  const email = normalizeEmail(input.email);
  const forms = passwordForms(input.password);
  const start = await deps.store.startAttempt(input.ownerId, email, MAX_FAILED_SIGN_INS);
  if ('refused' in start) {
    // The work a known user's wrong password costs: each form against a hash at the stage's setting.
    const dummy = await dummyHash(deps.setting);
    for (const form of forms) await verify(dummy, form);
    return { outcome: start.refused === 'locked' ? 'locked' : 'wrong' };
  }
  const stored = start.profile.passwordHash;
  let matched: string | undefined;
  for (const form of forms) {
    if (await verify(stored, form)) {
      matched = form;
      break;
    }
  }
  if (matched === undefined) return { outcome: 'wrong' };
  // Upgraded: another format or setting, or a hash of the password before NFC (then one verify suffices next time).
  const upgrade = matched !== forms[0] || !isCurrentHash(stored, deps.setting);
  await deps.store.succeed(input.ownerId, email, stored, upgrade ? await hashPassword(forms[0]!, deps.setting) : undefined);
  return { outcome: start.profile.shouldResetPassword ? 'must-reset' : 'ok' };
}
