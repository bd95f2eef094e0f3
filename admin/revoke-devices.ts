/**
 * `npm run admin -- revoke-devices <owner-email> <user-email> [--device ID] [--users-table NAME --owners-table NAME --sign-in-table NAME]`:
 * "sign out everywhere" for an owner's operator. Deletes the user's trusted devices (each a record in
 * the sign-in table, under the user's partition), or only the one `--device` names (an id as
 * `sign-in-state` lists it), through the domain's revokeDevices. A browser whose device is revoked
 * keeps its cookie, but the cookie no longer makes its attempts trusted: they share the account's waits
 * and limit like a stranger's; and the sessions the device's sign-ins started end (checkSession answers `ended`). Prints one line, `{"revoked":N}`: how many records were deleted, those
 * sign-in-state lists and any it no longer lists (expired, voided, distrusted); 0 for an e-mail no user
 * has, or a device id it does not have.
 */

import { parseArgs } from 'node:util';
import { revokeDevices } from '#sign-in/domain/sign-in-devices';
import { checkEmail, UsageError } from './key-commands';
import { SIGN_IN_TABLE_OPTIONS, withOwnerSignIn } from './owner-sign-in';

export const REVOKE_DEVICES_USAGE =
  '  revoke-devices <owner-email> <user-email> [--device ID] [--sign-in-table NAME]\n' +
  "                                sign out everywhere: end the trust of the user's devices (or of the one --device names)";

/** A device id as sign-in-state lists it: base64url, one to 64 characters. Anything else cannot name a device. */
const DEVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Runs the command with the arguments after its name; resolves with how many devices it revoked. */
export async function revokeDevicesCommand(args: string[]): Promise<number> {
  const usage =
    'usage: npm run admin -- revoke-devices <owner-email> <user-email> [--device ID] [--users-table NAME --owners-table NAME --sign-in-table NAME]';
  const options = { ...SIGN_IN_TABLE_OPTIONS, device: { type: 'string' } } as const;
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof options }>>;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options });
  } catch {
    throw new UsageError(usage);
  }
  const [ownerEmail, userEmail, ...extra] = parsed.positionals;
  if (ownerEmail === undefined || userEmail === undefined || extra.length > 0) throw new UsageError(usage);
  // Users are made only with valid addresses: anything else names none, and is said so.
  checkEmail(userEmail);
  const deviceId = parsed.values.device;
  if (deviceId !== undefined && !DEVICE_ID.test(deviceId))
    throw new UsageError('--device takes a device id as sign-in-state lists it (letters, digits, - and _)');
  return withOwnerSignIn(parsed.values, usage, ownerEmail, async ({ ownerId, store }) => {
    const revoked = await revokeDevices({ store }, { ownerId, email: userEmail, ...(deviceId !== undefined && { deviceId }) });
    process.stdout.write(`${JSON.stringify({ revoked })}\n`);
    return revoked;
  });
}
