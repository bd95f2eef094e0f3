/**
 * A user's trusted devices as its owner sees them (trusted-devices.ts): the list of devices whose cookie
 * still signs in (bound to the current password, unexpired, under its failure limit), and their revocation
 * ("sign out everywhere" when no device is named). The same answer, an empty list, for an e-mail no user has.
 */

import { normalizeEmail } from '@white-label-user-management/shared/domain/email';
import type { TrustedDevice } from '../types';
import type { SignInStore } from './sign-in';
import { passwordBinding, stillTrusted } from './trusted-devices';

// One trusted device, as listed: never its secret or digest (its first and last sign-in and its expiry, ISO instants);
// declared once, in the package's public types (../types.ts).
export type { TrustedDevice } from '../types';

/** The user's trusted devices, most recently used first. */
export async function listDevices(
  deps: { readonly store: SignInStore; readonly now?: () => number },
  input: { readonly ownerId: string; readonly email: string },
): Promise<readonly TrustedDevice[]> {
  const email = normalizeEmail(input.email);
  const [{ profile }, records] = await Promise.all([deps.store.read(input.ownerId, email), deps.store.devices(input.ownerId, email)]);
  const binding = profile && passwordBinding(profile.createdAt, profile.updatedAt);
  const now = (deps.now ?? Date.now)();
  return records
    .filter((record) => stillTrusted(record, binding, now))
    .sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt))
    .map((record) => ({
      deviceId: record.deviceId,
      firstSignedInAt: record.createdAt,
      lastSignedInAt: record.lastUsedAt,
      expiresAt: new Date(record.expiresAt * 1000).toISOString(),
    }));
}

/** Revokes one device of the user, or all of them: how many records were deleted. */
export async function revokeDevices(
  deps: { readonly store: SignInStore },
  input: { readonly ownerId: string; readonly email: string; readonly deviceId?: string },
): Promise<number> {
  return deps.store.revokeDevices(input.ownerId, normalizeEmail(input.email), input.deviceId);
}
