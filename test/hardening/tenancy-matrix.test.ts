/**
 * Tenancy as a matrix: every operation x every kind of target, called by owner A,
 * each cell answered with the contract's status and message, and owner B's items
 * byte-for-byte unchanged whatever A does.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  actsOnExistingUser,
  ALL_MESSAGES as MESSAGES,
  OPERATIONS,
  type OperationName,
  POLICY_FIELDS,
  validBodyFor,
} from '#contract/operations';
import { apiClient } from '../support/http-client';
import { startLocalServer, uniqueEmail } from '../support/local';
import { collection, ownerWithId, storedPasswordIs } from './support/world';

let server: Awaited<ReturnType<typeof startLocalServer>>;

beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => server.close());

type Target = 'own user' | "other owner's user" | "other owner's own account" | 'own account';
type Operation = OperationName;

/** A's side afterwards: the items under the target e-mail, and which of A's passwords it holds (null: neither). */
type ASide = [items: number, password: 'set by owner a' | 'chosen by owner a' | null];

const TARGETS: readonly Target[] = ['own user', "other owner's user", "other owner's own account", 'own account'];

/**
 * Each cell's answer and A's side afterwards, for the operations whose every outcome is known here.
 * An operation of the registry without a row still runs every cell: B's side and A's account must not
 * change, another owner's user must not exist to it (when it acts on an existing user), and no cell may
 * answer 5xx.
 */
const EXPECTED: Partial<Record<Operation, Record<Target, [number, object | 'created', ASide]>>> = {
  createUser: {
    'own user': [409, { message: MESSAGES.userExists }, [1, 'set by owner a']],
    "other owner's user": [200, 'created', [1, 'chosen by owner a']],
    "other owner's own account": [200, 'created', [1, 'chosen by owner a']],
    'own account': [409, { message: MESSAGES.userExists }, [1, null]],
  },
  resetUserPassword: {
    'own user': [200, { message: MESSAGES.passwordReset }, [1, 'chosen by owner a']],
    "other owner's user": [404, { message: MESSAGES.userNotFound }, [0, null]],
    "other owner's own account": [404, { message: MESSAGES.userNotFound }, [0, null]],
    'own account': [403, { message: MESSAGES.resetWhiteLabel }, [1, null]],
  },
  deleteUser: {
    'own user': [200, { message: MESSAGES.userDeleted }, [0, null]],
    "other owner's user": [404, { message: MESSAGES.userNotFound }, [0, null]],
    "other owner's own account": [404, { message: MESSAGES.userNotFound }, [0, null]],
    'own account': [403, { message: MESSAGES.deleteWhiteLabel }, [1, null]],
  },
};

const CELLS = OPERATIONS.flatMap((operation) =>
  TARGETS.map((target) => ({
    operation,
    target,
    expected: EXPECTED[operation]?.[target],
    answer: EXPECTED[operation]?.[target]?.[0] ?? 'no 5xx, no other tenant touched',
  })),
);

/** The operation's documented body about `email`, its password fields set to A's chosen password. */
const bodyFor = (operation: Operation, email: string) => ({
  ...validBodyFor(operation, email),
  ...Object.fromEntries(POLICY_FIELDS[operation].map((field) => [field, 'chosen by owner a'])),
});

describe('every operation x every target, as owner A', () => {
  it.each(CELLS)('$operation of $target -> $answer', async ({ operation, target, expected }) => {
    // Fresh owners per cell, so no cell sees another's leftovers.
    const [a, b] = await Promise.all([ownerWithId('tenant-a'), ownerWithId('tenant-b')]);
    const asA = apiClient(server.baseUrl, a.apiKey);
    const asB = apiClient(server.baseUrl, b.apiKey);
    // A fresh user on each side: the same address exists in both tools for the own-user case.
    const email = uniqueEmail('matrix');
    const setUp = [
      ...(target === 'own user' ? [await asA('/v1/createUser', { user_email: email, user_password: 'set by owner a' })] : []),
      await asB('/v1/createUser', { user_email: email, user_password: 'set by owner b' }),
    ];
    expect(setUp.map((response) => response.status)).toEqual(target === 'own user' ? [200, 200] : [200]);
    const targetEmail = {
      'own user': email,
      "other owner's user": email,
      "other owner's own account": b.ownerEmail,
      'own account': a.ownerEmail,
    }[target];
    const bItemsBefore = [await collection(b.ownerId, email), await collection(b.ownerId, b.ownerEmail)];
    const aAccountBefore = await collection(a.ownerId, a.ownerEmail);

    const response = await asA(`/v1/${operation}`, bodyFor(operation, targetEmail.toUpperCase()));

    if (expected) {
      const [status, body] = expected;
      expect([response.status, response.body]).toEqual([
        status,
        body === 'created' ? { user_email: targetEmail, user_password: 'chosen by owner a' } : body,
      ]);
    } else if (target.startsWith('other owner') && actsOnExistingUser(operation)) {
      expect([response.status, response.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
    } else {
      expect(response.status).toBeLessThan(500);
    }
    // Whatever A did, B's user and B's account are exactly as they were.
    expect([await collection(b.ownerId, email), await collection(b.ownerId, b.ownerEmail)]).toEqual(bItemsBefore);
    expect(await storedPasswordIs(b.ownerId, email, 'set by owner b')).toBe(true);
    // A's own account never changes either.
    expect(await collection(a.ownerId, a.ownerEmail)).toEqual(aAccountBefore);
    // And A's side holds what the answer says.
    const aItems = await collection(a.ownerId, targetEmail);
    const aPasswords = await Promise.all(
      (['set by owner a', 'chosen by owner a'] as const).map(async (password) =>
        (await storedPasswordIs(a.ownerId, targetEmail, password)) ? password : null,
      ),
    );
    if (expected) expect([aItems.length, aPasswords.find((password) => password !== null) ?? null]).toEqual(expected[2]);
  });
});
