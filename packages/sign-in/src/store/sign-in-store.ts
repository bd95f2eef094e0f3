import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { OwnerPasswordPolicy } from '@white-label-user-management/shared/domain/password-policy';
import type { DocumentClient } from '@white-label-user-management/shared/store/client';
import { PASSWORD_POLICY_ATTRIBUTE, toPasswordPolicy } from '@white-label-user-management/shared/store/owner-policy-item';
import {
  DEVICE_SK_PREFIX,
  deviceKey,
  LEGACY_FAILED_SIGN_INS_ATTRIBUTE,
  ownerPolicyKey,
  REHASHED_AT_ATTRIBUTE,
  signInStateKey,
  userKey,
  userPk,
} from '@white-label-user-management/shared/store/table-layout';
import type { SessionStore } from '../domain/sessions';
import type { SignInRead, SignInStore, Success, SuccessWrite } from '../domain/sign-in';
import { type DeviceRecord, MAX_DEVICES_PER_USER, ROTATION_GRACE_SECONDS } from '../domain/trusted-devices';
import { batchGetAll } from './batch-get';
import { createOwnerDeviceKeys } from './owner-device-keys';
import { createSessionReads } from './session-reads';
import { createSignInCounts } from './sign-in-counts';
import {
  anyConditionFailed,
  conditionFailed,
  DEVICE,
  DEVICE_NAMES,
  deviceOf,
  NAMES,
  retryingConflicts,
  stateOf,
  type TransactItem,
  withoutPrevious,
} from './sign-in-items';

/** Where the sign-in module works: the stage's users table (profiles, read and rehashed) and its sign-in table (the state). */
export interface SignInTables {
  readonly usersTable: string;
  readonly signInTable: string;
}

/**
 * The users and sign-in tables behind the domain's {@link SignInStore} port. An attempt reads the
 * profile (users table) and the state (sign-in table) in one BatchGetItem and counts with one
 * conditional UpdateItem on the state's item, for a known and an unknown e-mail alike; a success
 * settles in one TransactWriteItems (the hash checked, or replaced, and the state deleted). On the
 * users table it reads and writes only the attributes SIGN_IN_READ_ATTRIBUTES and
 * SIGN_IN_WRITE_ATTRIBUTES name, the only ones its grant allows; the sign-in table has no stream, so
 * no count reaches the lifecycle events.
 */
export function createSignInStore(db: DocumentClient, tables: SignInTables): SignInStore & SessionStore {
  const { usersTable, signInTable } = tables;
  /** Each owner's device key, read (or made) once per process, for sign-ins and checkSession (session-reads.ts) alike. */
  const deviceKeys = createOwnerDeviceKeys(db, signInTable);

  /** What a success writes in the sign-in table: the untrusted state deleted (untrusted), the device. */
  const afterSuccess = (ownerId: string, email: string, success: Success): TransactItem[] => {
    const items: TransactItem[] = [];
    if (success.clearsUntrusted) items.push({ Delete: { TableName: signInTable, Key: signInStateKey(ownerId, email) } });
    const { device } = success;
    if (device && 'clear' in device) {
      items.push({
        Update: {
          TableName: signInTable,
          Key: deviceKey(ownerId, email, device.clear.deviceId),
          UpdateExpression: 'SET #failures = :zero',
          ConditionExpression: '#digest = :digest',
          ExpressionAttributeNames: { '#failures': DEVICE.failures, '#digest': DEVICE.digest },
          ExpressionAttributeValues: { ':zero': 0, ':digest': device.clear.secretDigest },
        },
      });
    } else if (device) {
      const { issue, replaces } = device;
      items.push({
        Update: {
          TableName: signInTable,
          Key: deviceKey(ownerId, email, issue.deviceId),
          // A rotation keeps the cookie it replaces as the previous one, accepted once within the grace.
          UpdateExpression: `SET #digest = :digest, #binding = :binding, #failures = :zero, #expires = :expires, #used = :at, #created = if_not_exists(#created, :at)${replaces === undefined ? '' : ', #previous = :was, #previous_until = :grace'}`,
          ConditionExpression: replaces === undefined ? 'attribute_not_exists(pk)' : '#digest = :was',
          ExpressionAttributeNames: replaces === undefined ? withoutPrevious : DEVICE_NAMES,
          ExpressionAttributeValues: {
            ':digest': issue.secretDigest,
            ':binding': issue.binding,
            ':zero': 0,
            ':expires': issue.expiresAt,
            ':at': issue.at,
            ...(replaces !== undefined && { ':was': replaces, ':grace': Date.parse(issue.at) + ROTATION_GRACE_SECONDS * 1000 }),
          },
        },
      });
    }
    return items;
  };

  /** One TransactWriteItems whose first item is the profile's: `hash` when its condition failed, `device` when another's did. */
  const transact = async (items: TransactItem[]): Promise<SuccessWrite> => {
    try {
      await retryingConflicts(() => db.send(new TransactWriteCommand({ TransactItems: items })));
      return 'done';
    } catch (error) {
      if (conditionFailed(error)) return 'hash';
      if (anyConditionFailed(error)) return 'device';
      throw error;
    }
  };

  /**
   * After a success that made a new record: one consistent Query of the user's device items, then a DeleteItem
   * of each past MAX_DEVICES_PER_USER, least recently used first (never the one just made). Parallel successes
   * each query after their own write, so the last to query sees every record and leaves at most the cap.
   */
  const evictPastCap = async (ownerId: string, email: string, kept: string): Promise<void> => {
    const records = await devices(ownerId, email);
    if (records.length <= MAX_DEVICES_PER_USER) return;
    const others = records
      .filter((record) => record.deviceId !== kept)
      .sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt) || a.deviceId.localeCompare(b.deviceId));
    for (const record of others.slice(MAX_DEVICES_PER_USER - 1))
      await db.send(new DeleteCommand({ TableName: signInTable, Key: deviceKey(ownerId, email, record.deviceId) }));
  };

  /** A success's transaction, then the cap when it made a new device record. */
  const settle = async (ownerId: string, email: string, items: TransactItem[], success: Pick<Success, 'device'>) => {
    const written = await transact(items);
    const { device } = success;
    if (written === 'done' && device && 'issue' in device && device.replaces === undefined)
      await evictPastCap(ownerId, email, device.issue.deviceId);
    return written;
  };

  /** One consistent Query of the user's device items (its partition, DEVICE_SK_PREFIX), page by page. */
  const devices = async (ownerId: string, email: string): Promise<DeviceRecord[]> => {
    const records: DeviceRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(
        new QueryCommand({
          TableName: signInTable,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': userPk(ownerId, email), ':prefix': DEVICE_SK_PREFIX },
          ConsistentRead: true,
          ...(start && { ExclusiveStartKey: start }),
        }),
      );
      for (const item of page.Items ?? []) {
        const record = deviceOf(item);
        if (record) records.push(record);
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return records;
  };

  return {
    async read(ownerId: string, email: string, deviceId?: string): Promise<SignInRead> {
      const found = await batchGetAll(db, {
        [usersTable]: {
          Keys: [userKey(ownerId, email)],
          ConsistentRead: true,
          ProjectionExpression: 'password_hash, should_reset_password, created_at, updated_at',
        },
        [signInTable]: {
          Keys: [signInStateKey(ownerId, email), ...(deviceId === undefined ? [] : [deviceKey(ownerId, email, deviceId)])],
          ConsistentRead: true,
          ProjectionExpression: 'sk, #failures, #wait, #tag, #expires, #digest, #binding, #created, #used, #previous, #previous_until',
          ExpressionAttributeNames: { ...NAMES, ...DEVICE_NAMES },
        },
      });
      const profile = found[usersTable]![0];
      const items = found[signInTable]!;
      const state = stateOf(items.find((item) => item.sk === signInStateKey(ownerId, email).sk));
      const device = items.map(deviceOf).find((record) => record !== undefined);
      return {
        ...(profile &&
          typeof profile.password_hash === 'string' && {
            profile: {
              passwordHash: profile.password_hash,
              shouldResetPassword: profile.should_reset_password === true,
              ...(typeof profile.created_at === 'string' && { createdAt: profile.created_at }),
              ...(typeof profile.updated_at === 'string' && { updatedAt: profile.updated_at }),
            },
          }),
        ...(state && { state }),
        ...(device && { device }),
      };
    },

    ...createSignInCounts(db, signInTable),

    /**
     * One TransactWriteItems: the profile's hash checked to be the verified one (or, for an upgrade,
     * replaced on that condition and marked as a sign-in's rehash), the trusted budget deleted, the
     * untrusted state deleted for an untrusted success, and the device written.
     */
    async succeed(ownerId, email, verifiedHash, success) {
      const profile = { TableName: usersTable, Key: userKey(ownerId, email), ConditionExpression: 'password_hash = :verified' };
      const { upgradedHash } = success;
      return settle(
        ownerId,
        email,
        [
          upgradedHash === undefined
            ? { ConditionCheck: { ...profile, ExpressionAttributeValues: { ':verified': verifiedHash } } }
            : {
                Update: {
                  ...profile,
                  UpdateExpression: 'SET password_hash = :new, #rehashed = :at',
                  ExpressionAttributeNames: { '#rehashed': REHASHED_AT_ATTRIBUTE },
                  ExpressionAttributeValues: { ':verified': verifiedHash, ':new': upgradedHash, ':at': new Date().toISOString() },
                },
              },
          ...afterSuccess(ownerId, email, success),
        ],
        success,
      );
    },

    /** One TransactWriteItems: the new hash, the flag cleared, no rehash mark (so the stream emits UserPasswordReset), the state and budget deleted, the device written. */
    async changePassword(ownerId, email, verifiedHash, newHash, at, success) {
      return settle(
        ownerId,
        email,
        [
          {
            Update: {
              TableName: usersTable,
              Key: userKey(ownerId, email),
              UpdateExpression: `SET password_hash = :new, should_reset_password = :no, updated_at = :at REMOVE #rehashed, ${LEGACY_FAILED_SIGN_INS_ATTRIBUTE}`,
              ConditionExpression: 'password_hash = :verified',
              ExpressionAttributeNames: { '#rehashed': REHASHED_AT_ATTRIBUTE },
              ExpressionAttributeValues: { ':verified': verifiedHash, ':new': newHash, ':no': false, ':at': at },
            },
          },
          ...afterSuccess(ownerId, email, { ...success, clearsUntrusted: true }),
        ],
        success,
      );
    },

    /** The owner's device key: one UpdateItem that makes it when absent and returns it, once per owner and process. */
    ownerDeviceKey: (ownerId) => deviceKeys.get(ownerId),

    devices,

    /** Deletes the device items (one DeleteItem each; "sign out everywhere" when no `deviceId`). */
    async revokeDevices(ownerId, email, deviceId) {
      const ids = deviceId === undefined ? (await devices(ownerId, email)).map((record) => record.deviceId) : [deviceId];
      let revoked = 0;
      for (const id of ids) {
        const { Attributes } = await db.send(
          new DeleteCommand({ TableName: signInTable, Key: deviceKey(ownerId, email, id), ReturnValues: 'ALL_OLD' }),
        );
        if (Attributes) revoked++;
      }
      return revoked;
    },

    /** One GetItem of the policy's copy beside the owner's users (ownerPolicyKey), its policy attribute only. */
    async ownerPolicy(ownerId: string): Promise<OwnerPasswordPolicy | undefined> {
      const { Item } = await db.send(
        new GetCommand({
          TableName: usersTable,
          Key: ownerPolicyKey(ownerId),
          ProjectionExpression: '#policy',
          ExpressionAttributeNames: { '#policy': PASSWORD_POLICY_ATTRIBUTE },
        }),
      );
      return toPasswordPolicy(Item?.[PASSWORD_POLICY_ATTRIBUTE]);
    },

    ...createSessionReads(db, tables, deviceKeys),
  };
}
