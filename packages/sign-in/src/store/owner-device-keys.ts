/**
 * Each owner's device key (trusted-devices.ts, sessions.ts), kept in the sign-in table under the owner's
 * partition (ownerDeviceKeyKey) and cached for the process once read: one per owner, never expiring.
 */

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DocumentClient } from '@white-label-user-management/shared/store/client';
import { ownerDeviceKeyKey } from '@white-label-user-management/shared/store/table-layout';
import { newOwnerDeviceKey } from '../domain/trusted-devices';

/** The key's attribute on its item. */
export const DEVICE_KEY_ATTRIBUTE = 'device_key';

export interface OwnerDeviceKeys {
  /** The owner's key, made on first use (one UpdateItem, once per owner and process). */
  get(ownerId: string): Promise<Buffer>;
  /** The owner's key when this process already has it. */
  cached(ownerId: string): Buffer | undefined;
  /** Caches a key item's attribute as read elsewhere (checkSession's read); the key, or undefined when the item held none. */
  learn(ownerId: string, stored: unknown): Buffer | undefined;
}

export function createOwnerDeviceKeys(db: DocumentClient, signInTable: string): OwnerDeviceKeys {
  const pending = new Map<string, Promise<Buffer>>();
  const known = new Map<string, Buffer>();
  const learn = (ownerId: string, stored: unknown) => {
    if (typeof stored !== 'string' || stored === '') return undefined;
    const key = Buffer.from(stored, 'base64url');
    known.set(ownerId, key);
    if (!pending.has(ownerId)) pending.set(ownerId, Promise.resolve(key));
    return key;
  };
  return {
    get(ownerId) {
      let key = pending.get(ownerId);
      if (!key) {
        key = db
          .send(
            new UpdateCommand({
              TableName: signInTable,
              Key: ownerDeviceKeyKey(ownerId),
              UpdateExpression: 'SET #key = if_not_exists(#key, :new)',
              ExpressionAttributeNames: { '#key': DEVICE_KEY_ATTRIBUTE },
              ExpressionAttributeValues: { ':new': newOwnerDeviceKey() },
              ReturnValues: 'ALL_NEW',
            }),
          )
          .then(({ Attributes }) => {
            const made = learn(ownerId, Attributes?.[DEVICE_KEY_ATTRIBUTE]);
            if (!made) throw new Error('the owner device key item holds no key');
            return made;
          });
        key.catch(() => pending.delete(ownerId));
        pending.set(ownerId, key);
      }
      return key;
    },
    cached: (ownerId) => known.get(ownerId),
    learn,
  };
}
