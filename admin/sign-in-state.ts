/**
 * `npm run admin -- sign-in-state <owner-email> <user-email> [--users-table NAME --owners-table NAME --sign-in-table NAME]`:
 * one line of JSON, what the sign-in module would go by for this e-mail now: its consecutive failures
 * in force, the end of its wait (or null), whether it is locked (UNTRUSTED_FAILURE_LIMIT untrusted
 * failures), and its trusted devices as the domain lists them (listDevices: those whose cookie still signs
 * in; how many, and each one's id, first and last sign-in and expiry). The same line, in the same shape,
 * for an e-mail no user has: the count an attacker built up for it, and no devices. The owner's own users
 * only (the owner is looked up by e-mail).
 */

import { parseArgs } from 'node:util';
import { normalizeEmail } from '#domain/email';
import { hashTag, inForce, UNTRUSTED_FAILURE_LIMIT } from '#sign-in/domain/sign-in-attempts';
import { listDevices } from '#sign-in/domain/sign-in-devices';
import { UsageError } from './key-commands';
import { SIGN_IN_TABLE_OPTIONS, withOwnerSignIn } from './owner-sign-in';

export const SIGN_IN_STATE_USAGE =
  '  sign-in-state <owner-email> <user-email> [--sign-in-table NAME]   failures, wait, lock and trusted devices of one e-mail';

/** The line's shape: the same keys for every e-mail, known or not. */
export interface SignInStateLine {
  readonly owner_email: string;
  readonly user_email: string;
  readonly consecutive_failures: number;
  /** ISO 8601 end of the current wait; null when the next attempt is not refused for a wait. */
  readonly wait_until: string | null;
  readonly locked: boolean;
  /** The devices whose cookie still signs the user in: how many, and each one, most recently used first. */
  readonly trusted_devices: { readonly count: number; readonly devices: readonly TrustedDeviceLine[] };
}

/** One trusted device: its id (what `revoke-devices --device` takes) and ISO 8601 instants; never its secret. */
export interface TrustedDeviceLine {
  readonly device_id: string;
  readonly first_signed_in_at: string;
  readonly last_signed_in_at: string;
  readonly expires_at: string;
}

/** Runs the command with the arguments after its name; resolves with the line it printed. */
export async function signInStateCommand(args: string[], now = Date.now()): Promise<string> {
  const usage =
    'usage: npm run admin -- sign-in-state <owner-email> <user-email> [--users-table NAME --owners-table NAME --sign-in-table NAME]';
  const options = SIGN_IN_TABLE_OPTIONS;
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof options }>>;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options });
  } catch {
    throw new UsageError(usage);
  }
  const [ownerEmail, userEmail, ...extra] = parsed.positionals;
  if (ownerEmail === undefined || userEmail === undefined || extra.length > 0) throw new UsageError(usage);
  return withOwnerSignIn(parsed.values, usage, ownerEmail, async ({ ownerId, store }) => {
    const email = normalizeEmail(userEmail);
    const [{ profile, state }, devices] = await Promise.all([
      store.read(ownerId, email),
      listDevices({ store, now: () => now }, { ownerId, email }),
    ]);
    // As the module decides: a count made against another hash (before a reset) or expired is none.
    const current = inForce(state, hashTag(profile?.passwordHash), now);
    const line: SignInStateLine = {
      owner_email: normalizeEmail(ownerEmail),
      user_email: email,
      consecutive_failures: current.failures,
      wait_until: current.waitUntil > now ? new Date(current.waitUntil).toISOString() : null,
      locked: current.failures >= UNTRUSTED_FAILURE_LIMIT,
      // An unknown e-mail never has any: listDevices trusts no record without a profile to bind it to.
      trusted_devices: {
        count: devices.length,
        devices: devices.map((device) => ({
          device_id: device.deviceId,
          first_signed_in_at: device.firstSignedInAt,
          last_signed_in_at: device.lastSignedInAt,
          expires_at: device.expiresAt,
        })),
      },
    };
    const text = JSON.stringify(line);
    process.stdout.write(`${text}\n`);
    return text;
  });
}
