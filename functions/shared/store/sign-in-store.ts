import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { OwnerPasswordPolicy } from '#domain/password-policy';
import type { SignInRead, SignInStore } from '#domain/sign-in';
import type { AttemptState } from '#domain/sign-in-attempts';
import type { DocumentClient } from './client';
import { PASSWORD_POLICY_ATTRIBUTE, toPasswordPolicy } from './owner-policy-item';
import {
  LEGACY_FAILED_SIGN_INS_ATTRIBUTE,
  ownerPolicyKey,
  REHASHED_AT_ATTRIBUTE,
  SIGN_IN_TABLE,
  signInStateKey,
  userKey,
} from './table-layout';

/** The attempt state's attributes on its item (SIGN_IN_SK); the TTL attribute is the sign-in table's. */
const STATE = { failures: 'failures', waitUntil: 'wait_until', tag: 'hash_tag', expiresAt: SIGN_IN_TABLE.timeToLiveAttribute! } as const;
const NAMES = { '#failures': STATE.failures, '#wait': STATE.waitUntil, '#tag': STATE.tag, '#expires': STATE.expiresAt };

/** The state an item holds, or undefined when it holds none (absent, or not a state). */
function stateOf(item: Record<string, unknown> | undefined): AttemptState | undefined {
  if (!item || typeof item[STATE.failures] !== 'number' || typeof item[STATE.tag] !== 'string') return undefined;
  return {
    failures: item[STATE.failures] as number,
    waitUntil: typeof item[STATE.waitUntil] === 'number' ? (item[STATE.waitUntil] as number) : 0,
    tag: item[STATE.tag] as string,
    ...(typeof item[STATE.expiresAt] === 'number' && { expiresAt: item[STATE.expiresAt] as number }),
  };
}

/** Whether a transaction was cancelled because the first item's condition failed (the hash is no longer the verified one). */
const conditionFailed = (error: unknown) =>
  error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';

/** Whether a write lost to a concurrent transaction on the same item: tried again, as DynamoDB advises. */
const conflicted = (error: unknown) =>
  (error as { name?: string } | undefined)?.name === 'TransactionConflictException' ||
  (error instanceof TransactionCanceledException &&
    (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict'));

async function retryingConflicts<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!conflicted(error) || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

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
export function createSignInStore(db: DocumentClient, tables: SignInTables): SignInStore {
  const { usersTable, signInTable } = tables;
  return {
    async read(ownerId: string, email: string): Promise<SignInRead> {
      let request: Record<string, { Keys: Record<string, unknown>[] } & Record<string, unknown>> = {
        [usersTable]: {
          Keys: [userKey(ownerId, email)],
          ConsistentRead: true,
          ProjectionExpression: 'password_hash, should_reset_password',
        },
        [signInTable]: {
          Keys: [signInStateKey(ownerId, email)],
          ConsistentRead: true,
          ProjectionExpression: '#failures, #wait, #tag, #expires',
          ExpressionAttributeNames: NAMES,
        },
      };
      const found: Record<string, Record<string, unknown>[]> = { [usersTable]: [], [signInTable]: [] };
      for (let attempt = 0; Object.keys(request).length > 0; attempt++) {
        if (attempt > 8) throw new Error('BatchGetItem left keys unprocessed after 8 retries');
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** Math.min(attempt, 6)));
        const { Responses, UnprocessedKeys } = await db.send(new BatchGetCommand({ RequestItems: request }));
        for (const table of [usersTable, signInTable]) found[table]!.push(...(Responses?.[table] ?? []));
        request = Object.fromEntries(
          Object.entries(UnprocessedKeys ?? {}).filter(([, left]) => (left?.Keys?.length ?? 0) > 0),
        ) as typeof request;
      }
      const profile = found[usersTable]![0];
      const state = stateOf(found[signInTable]![0]);
      return {
        ...(profile &&
          typeof profile.password_hash === 'string' && {
            profile: { passwordHash: profile.password_hash, shouldResetPassword: profile.should_reset_password === true },
          }),
        ...(state && { state }),
      };
    },

    /**
     * One UpdateItem on the state's item, on condition that it holds exactly the state read: the
     * upsert is the same for a known and an unknown e-mail (only the TTL differs: set for the one, removed
     * for the other). On refusal the item found comes back with the error (ALL_OLD): no second read.
     */
    async count(ownerId, email, expected, next) {
      try {
        await retryingConflicts(() =>
          db.send(
            new UpdateCommand({
              TableName: signInTable,
              Key: signInStateKey(ownerId, email),
              UpdateExpression:
                next.expiresAt === undefined
                  ? 'SET #failures = :failures, #wait = :wait, #tag = :tag REMOVE #expires'
                  : 'SET #failures = :failures, #wait = :wait, #tag = :tag, #expires = :expires',
              ConditionExpression:
                expected === undefined ? 'attribute_not_exists(pk)' : '#failures = :was_failures AND #wait = :was_wait AND #tag = :was_tag',
              ExpressionAttributeNames: NAMES,
              ExpressionAttributeValues: {
                ':failures': next.failures,
                ':wait': next.waitUntil,
                ':tag': next.tag,
                ...(next.expiresAt !== undefined && { ':expires': next.expiresAt }),
                ...(expected !== undefined && {
                  ':was_failures': expected.failures,
                  ':was_wait': expected.waitUntil,
                  ':was_tag': expected.tag,
                }),
              },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          ),
        );
        return { counted: true };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        return { counted: false, found: stateOf(error.Item ? unmarshall(error.Item as never) : undefined) };
      }
    },

    /**
     * One TransactWriteItems: the profile's hash checked to be the verified one (or, for an upgrade,
     * replaced on that condition and marked as a sign-in's rehash), and the state's item deleted.
     */
    async succeed(ownerId, email, verifiedHash, upgradedHash) {
      const profile = { TableName: usersTable, Key: userKey(ownerId, email), ConditionExpression: 'password_hash = :verified' };
      try {
        await retryingConflicts(() =>
          db.send(
            new TransactWriteCommand({
              TransactItems: [
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
                { Delete: { TableName: signInTable, Key: signInStateKey(ownerId, email) } },
              ],
            }),
          ),
        );
        return true;
      } catch (error) {
        if (conditionFailed(error)) return false;
        throw error;
      }
    },

    /** One TransactWriteItems: the new hash, the flag cleared, no rehash mark (so the stream emits UserPasswordReset), the state deleted. */
    async changePassword(ownerId, email, verifiedHash, newHash) {
      try {
        await retryingConflicts(() =>
          db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Update: {
                    TableName: usersTable,
                    Key: userKey(ownerId, email),
                    UpdateExpression: `SET password_hash = :new, should_reset_password = :no, updated_at = :at REMOVE #rehashed, ${LEGACY_FAILED_SIGN_INS_ATTRIBUTE}`,
                    ConditionExpression: 'password_hash = :verified',
                    ExpressionAttributeNames: { '#rehashed': REHASHED_AT_ATTRIBUTE },
                    ExpressionAttributeValues: {
                      ':verified': verifiedHash,
                      ':new': newHash,
                      ':no': false,
                      ':at': new Date().toISOString(),
                    },
                  },
                },
                { Delete: { TableName: signInTable, Key: signInStateKey(ownerId, email) } },
              ],
            }),
          ),
        );
        return true;
      } catch (error) {
        if (conditionFailed(error)) return false;
        throw error;
      }
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
  };
}
