/**
 * The catalogue: one entry per operation, and the one place an operation's facts live. The
 * pipeline (failure message, metrics), the CDK stack (functions, grants, memory, timeouts, routes,
 * WAF paths), the local server (routes, Lambda deadlines) and the OpenAPI builder all read it;
 * test/unit/catalogue.test.ts fails when one of them misses an entry.
 */

import { MESSAGES } from './messages';

/** The version prefix of every path: `{base_url}/v1/<operation>`. */
export const API_VERSION = 'v1';

/** The DynamoDB actions a function may be granted on a table. */
export type DynamoDbAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query' | 'BatchWriteItem';

export interface OperationEntry {
  /** The contract's 500 message, answered for anything unexpected. */
  readonly failureMessage: string;
  /** The `outcome` metric dimension of a successful request. */
  readonly successOutcome: string;
  /**
   * The function's timeout. Under API Gateway's 29 s integration timeout, so the caller gets the
   * function's own answer (middy answers 500 ms before the limit); the local server's Lambda
   * context has the same deadline.
   */
  readonly timeoutSeconds: number;
  /** DynamoDB actions on the users table beyond the GetItem every operation needs (the function's grant). */
  readonly usersTableActions: readonly DynamoDbAction[];
  /** DynamoDB actions on the sign-in table (the sign-in module's state): deleteUser's erasure of the user's part, none else. */
  readonly signInTableActions: readonly DynamoDbAction[];
  /** Lambda memory (MB): CPU on Lambda. Chosen by the bench's memory model (bench/README.md). */
  readonly memoryMb: number;
  /** OpenAPI summary; also the function's description. */
  readonly summary: string;
  /** OpenAPI description. */
  readonly description: string;
}

/** The operations, in route order. */
export const CATALOGUE = {
  createUser: {
    failureMessage: MESSAGES.createFailed,
    successOutcome: 'created',
    timeoutSeconds: 10,
    usersTableActions: ['PutItem'],
    signInTableActions: [],
    memoryMb: 1769,
    summary: 'Create a user',
    description:
      "Creates a new user in the caller's white-label tool. No notification is sent to the new user. " +
      "When `user_password` is absent the service generates one (24 characters; as many as the policy's minimum when that is higher, never more than its maximum) and returns it: the only time the caller sees it.",
  },
  resetUserPassword: {
    failureMessage: MESSAGES.resetFailed,
    successOutcome: 'reset',
    timeoutSeconds: 10,
    usersTableActions: ['UpdateItem'],
    signInTableActions: [],
    memoryMb: 1769,
    summary: 'Reset a user password',
    description:
      'Sets a new password for the specified user. No notification is sent to the user. `should_reset_password` is left as it was.',
  },
  deleteUser: {
    failureMessage: MESSAGES.deleteFailed,
    successOutcome: 'deleted',
    // A large item collection takes several batch rounds.
    timeoutSeconds: 25,
    usersTableActions: ['Query', 'BatchWriteItem', 'DeleteItem'],
    // One Query of the user's partition, then BatchWriteItem of what it found.
    signInTableActions: ['Query', 'BatchWriteItem'],
    memoryMb: 1536,
    summary: 'Delete a user',
    description:
      "Deletes a user from the caller's white-label tool, together with all data associated with that user. No notification is sent to the user. " +
      'A delete that fails half way leaves the user in place, so a retry finishes the job.',
  },
} as const satisfies Record<string, OperationEntry>;

export type OperationName = keyof typeof CATALOGUE;

/** The operations' names, in route order. */
export const OPERATIONS = Object.keys(CATALOGUE) as readonly OperationName[];

/** `/v1/<operation>`: the path below the API's base URL. */
export const operationPath = (operation: OperationName): string => `/${API_VERSION}/${operation}`;

/** Whether `name` is one of the operations. */
export const isOperationName = (name: string): name is OperationName => Object.hasOwn(CATALOGUE, name);
