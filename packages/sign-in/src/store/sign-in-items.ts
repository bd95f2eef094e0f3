/** The sign-in table's items as the sign-in store reads and writes them: the attempt state's, a device record's, and how a write lost. */

import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { DEVICE_SK_PREFIX, SIGN_IN_TABLE } from '@white-label-user-management/shared/store/table-layout';
import type { AttemptState } from '../domain/sign-in-attempts';
import type { DeviceRecord } from '../domain/trusted-devices';

/** The attempt state's attributes on its item (SIGN_IN_SK); the TTL attribute is the sign-in table's. */
export const STATE = {
  failures: 'failures',
  waitUntil: 'wait_until',
  tag: 'hash_tag',
  expiresAt: SIGN_IN_TABLE.timeToLiveAttribute!,
} as const;
export const NAMES = { '#failures': STATE.failures, '#wait': STATE.waitUntil, '#tag': STATE.tag, '#expires': STATE.expiresAt };

/** The state an item holds, or undefined when it holds none (absent, or not a state). */
export function stateOf(item: Record<string, unknown> | undefined): AttemptState | undefined {
  if (!item || typeof item[STATE.failures] !== 'number' || typeof item[STATE.tag] !== 'string') return undefined;
  return {
    failures: item[STATE.failures] as number,
    waitUntil: typeof item[STATE.waitUntil] === 'number' ? (item[STATE.waitUntil] as number) : 0,
    tag: item[STATE.tag] as string,
    ...(typeof item[STATE.expiresAt] === 'number' && { expiresAt: item[STATE.expiresAt] as number }),
  };
}

/** Whether a transaction was cancelled because the first item's condition failed (the hash is no longer the verified one). */
export const conditionFailed = (error: unknown) =>
  error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';

/** Whether a transaction was cancelled because any item's condition failed. */
export const anyConditionFailed = (error: unknown) =>
  error instanceof TransactionCanceledException &&
  (error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed');

/** A device record's attributes (trusted-devices.ts); the TTL attribute is the sign-in table's. */
export const DEVICE = {
  digest: 'secret_digest',
  binding: 'device_binding',
  failures: 'failures',
  expiresAt: SIGN_IN_TABLE.timeToLiveAttribute!,
  createdAt: 'created_at',
  lastUsedAt: 'last_used_at',
  previousDigest: 'previous_digest',
  previousUntil: 'previous_until',
} as const;
export const DEVICE_NAMES = {
  '#digest': DEVICE.digest,
  '#binding': DEVICE.binding,
  '#failures': DEVICE.failures,
  '#expires': DEVICE.expiresAt,
  '#created': DEVICE.createdAt,
  '#used': DEVICE.lastUsedAt,
  '#previous': DEVICE.previousDigest,
  '#previous_until': DEVICE.previousUntil,
};
export const { '#previous': _previous, '#previous_until': _until, ...withoutPrevious } = DEVICE_NAMES;

/** The record an item holds, or undefined when it holds none. */
export function deviceOf(item: Record<string, unknown> | undefined): DeviceRecord | undefined {
  if (!item || typeof item.sk !== 'string' || !item.sk.startsWith(DEVICE_SK_PREFIX) || typeof item[DEVICE.digest] !== 'string')
    return undefined;
  return {
    deviceId: item.sk.slice(DEVICE_SK_PREFIX.length),
    secretDigest: item[DEVICE.digest] as string,
    binding: String(item[DEVICE.binding] ?? ''),
    failures: typeof item[DEVICE.failures] === 'number' ? (item[DEVICE.failures] as number) : 0,
    expiresAt: typeof item[DEVICE.expiresAt] === 'number' ? (item[DEVICE.expiresAt] as number) : 0,
    createdAt: String(item[DEVICE.createdAt] ?? ''),
    lastUsedAt: String(item[DEVICE.lastUsedAt] ?? ''),
    ...(typeof item[DEVICE.previousDigest] === 'string' && { previousDigest: item[DEVICE.previousDigest] as string }),
    ...(typeof item[DEVICE.previousUntil] === 'number' && { previousUntil: item[DEVICE.previousUntil] as number }),
  };
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Whether a write lost to a concurrent transaction on the same item: tried again, as DynamoDB advises. */
const conflicted = (error: unknown) =>
  (error as { name?: string } | undefined)?.name === 'TransactionConflictException' ||
  (error instanceof TransactionCanceledException &&
    (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict'));

export async function retryingConflicts<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!conflicted(error) || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
