/** The verification an attempt makes: the dummy hash, the forms tried in turn, and the padding that hides a cheaper hash's time. */

import { randomUUID } from 'node:crypto';
import { verifyHash } from '@white-label-user-management/shared/domain/password-hashes';
import { hashPassword } from '@white-label-user-management/shared/domain/passwords';
import { type Argon2Setting, formatArgon2Setting } from '@white-label-user-management/shared/platform/config';
import { verificationCost } from './hash-cost';
import { isCurrentHash } from './sign-in-inputs';
import type { SignInDeps } from './sign-in-port';
import { looksLikeDeviceCookie, openDeviceCookie } from './trusted-devices';

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

/** The first form of the password that `stored` accepts, or undefined. */
export async function firstMatch(stored: string, forms: readonly string[], verify: (stored: string, password: string) => Promise<boolean>) {
  for (const form of forms) if (await verify(stored, form)) return form;
  return undefined;
}

/** Waits until `deadline` (performance.now() ms): a timer for most of it, then turns of the event loop, so it ends close to the deadline. */
async function waitUntil(deadline: number): Promise<void> {
  const coarse = deadline - performance.now() - 2;
  if (coarse > 0) await new Promise((resolve) => setTimeout(resolve, coarse));
  while (performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether a stored hash costs less to verify than one at the stage's setting (then a `wrong` is padded to the stage's time). */
export function isCheaper(stored: string, setting: Argon2Setting): boolean {
  const cost = verificationCost(stored);
  if (!cost || isCurrentHash(stored, setting)) return false;
  return cost.work < setting.memoryCost * setting.timeCost * setting.parallelism;
}

/**
 * The verification an attempt makes: `verify` itself for a costly hash (in its lane place) or one dearer than the
 * stage's; timed, for the memory, for a hash at the stage's setting; for a cheaper one, padded by waiting to a time drawn
 * among the recent stage verifications (and, before any are known, followed by a verification of the stage's dummy).
 */
export function timedVerify(deps: SignInDeps, verify: (stored: string, password: string) => Promise<boolean>) {
  const { memory } = deps;
  if (!memory) return verify;
  return async (stored: string, password: string): Promise<boolean> => {
    const start = performance.now();
    if (isCurrentHash(stored, deps.setting)) {
      const ok = await verify(stored, password);
      memory.recordStageVerification(performance.now() - start);
      return ok;
    }
    if (!isCheaper(stored, deps.setting)) return verify(stored, password);
    const target = memory.drawStageVerification();
    const ok = await verify(stored, password);
    if (target === undefined) await verifyHash(await dummyHash(deps.setting), password);
    else await waitUntil(start + target);
    return ok;
  };
}

/** The device a cookie names, when it carries this owner's seal for this e-mail (trusted-devices.ts); else undefined, as no cookie. */
export async function presentedDevice(deps: SignInDeps, ownerId: string, email: string, cookie: string | undefined) {
  if (!looksLikeDeviceCookie(cookie)) return undefined;
  return openDeviceCookie(await deps.store.ownerDeviceKey(ownerId), ownerId, email, cookie);
}
