/**
 * checkSession's one read (packages/sign-in/src/domain/sessions.ts): one strongly consistent BatchGetItem of the
 * profile's creation and update times (users table, attributes the sign-in grant allows), the device's
 * record and, in a process that does not know it yet, the owner's device key (sign-in table). A warm
 * process reads two items, a cold one three: one call either way, and no write (an owner without a key has
 * issued no session, so its values are all `ended`).
 */

import type { DocumentClient } from '@white-label-user-management/shared/store/client';
import { deviceKey, ownerDeviceKeyKey, userKey } from '@white-label-user-management/shared/store/table-layout';
import type { SessionStore } from '../domain/sessions';
import { batchGetAll } from './batch-get';
import { DEVICE_KEY_ATTRIBUTE, type OwnerDeviceKeys } from './owner-device-keys';

export function createSessionReads(
  db: DocumentClient,
  tables: { readonly usersTable: string; readonly signInTable: string },
  keys: OwnerDeviceKeys,
): SessionStore {
  const { usersTable, signInTable } = tables;
  return {
    async readSession(ownerId, email, deviceId) {
      const known = keys.cached(ownerId);
      const device = deviceKey(ownerId, email, deviceId);
      const ownerKeyAt = ownerDeviceKeyKey(ownerId);
      const found = await batchGetAll(db, {
        [usersTable]: { Keys: [userKey(ownerId, email)], ConsistentRead: true, ProjectionExpression: 'pk, created_at, updated_at' },
        [signInTable]: {
          Keys: [device, ...(known ? [] : [ownerKeyAt])],
          ConsistentRead: true,
          ProjectionExpression: 'pk, sk, #key',
          ExpressionAttributeNames: { '#key': DEVICE_KEY_ATTRIBUTE },
        },
      });
      const profile = found[usersTable]![0];
      const items = found[signInTable]!;
      const keyItem = items.find((item) => item.pk === ownerKeyAt.pk && item.sk === ownerKeyAt.sk);
      const ownerKey = known ?? (keyItem && keys.learn(ownerId, keyItem[DEVICE_KEY_ATTRIBUTE]));
      return {
        ...(profile && {
          profile: {
            ...(typeof profile.created_at === 'string' && { createdAt: profile.created_at }),
            ...(typeof profile.updated_at === 'string' && { updatedAt: profile.updated_at }),
          },
        }),
        device: items.some((item) => item.pk === device.pk && item.sk === device.sk),
        ...(ownerKey && { ownerKey }),
      };
    },
  };
}
