/**
 * What one operation module (`operations/<name>.ts`) holds: every fact about the operation that is
 * its own. The registry (`operations.ts`) builds the catalogue, the schemas and the documented
 * cases from these modules; a function's handler imports only its own module, so a function's
 * bundle carries only its own operation's code.
 */

import type { PasswordPolicy } from '#platform/config';
import type { BodyShape, Row } from './schemas';

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
  /**
   * DynamoDB actions on the sign-in table (the sign-in module's state and devices): deleteUser's
   * erasure of the user's part. None when absent.
   */
  readonly signInTableActions?: readonly DynamoDbAction[];
  /** Lambda memory (MB): CPU on Lambda. Chosen by the bench's memory model (bench/README.md). */
  readonly memoryMb: number;
  /** OpenAPI summary; also the function's description. */
  readonly summary: string;
  /** OpenAPI description. */
  readonly description: string;
}

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One documented case of an operation: what is sent, and what comes back (the OpenAPI examples are built from these). */
export interface Case {
  readonly name: string;
  readonly status: number;
  readonly summary: string;
  /** Says what the request example alone does not show (headers, state), when anything. */
  readonly given?: string;
  readonly request: Json;
  readonly response: JsonObject;
  /** The request body breaks the request schema (documented as `x-request-body`, not as a request example). */
  readonly invalidBody?: true;
}

/** What the OpenAPI document says of an operation beyond its catalogue entry and schema. */
export interface OperationDocs {
  /** A request that passes validation; the shared error cases start from it. */
  readonly validBody: JsonObject;
  /** The 200 case. */
  readonly success: Case;
  /** The operation's own refusals (403, 404, 409, ...), after validation and the idempotency look-up. */
  readonly refusals: readonly Case[];
  /** The 200 body's schema when it is not `{"message": "..."}`: its component name and JSON Schema. */
  readonly successSchema?: { readonly name: string; readonly schema: JsonObject };
}

/** One operation: everything that is its own, in one module. */
export interface OperationDefinition<Name extends string = string, Messages extends Record<string, string> = Record<string, string>> {
  readonly name: Name;
  readonly entry: OperationEntry;
  /** The body's shape without the password policy: what its generated validator is compiled from. */
  readonly shape: BodyShape;
  /** The fields held to the password policy. */
  readonly policyFields: readonly string[];
  /** The contract's validation rows for a deployment's policy, in the contract's order (the first row that applies wins). */
  readonly rows: (policy: PasswordPolicy) => Row[];
  /** The messages only this operation answers (its refusals, its success, its failure). */
  readonly messages: Messages;
  readonly docs: OperationDocs;
}

/** Declares an operation module, keeping its literal name and messages in the types. */
export const defineOperation = <const Name extends string, const Messages extends Record<string, string>>(
  definition: OperationDefinition<Name, Messages>,
): OperationDefinition<Name, Messages> => definition;

/** The user every example is about, and the caller's own (white-label) account. */
export const EXAMPLE_USER_EMAIL = 'jane@example.com';
export const EXAMPLE_OWNER_EMAIL = 'owner@example.com';

/** The documented `given` of a case about an existing user. */
export const GIVEN_USER_EXISTS = `\`${EXAMPLE_USER_EMAIL}\` is a user of the caller's tool.`;

/** The 403 of an operation that refuses a white-label target. */
export const whiteLabelCase = (message: string, request: JsonObject): Case => ({
  name: 'whiteLabelUser',
  status: 403,
  summary: "The target is a white-label user (such as the caller's own account)",
  given: `\`${EXAMPLE_OWNER_EMAIL}\` is the caller's own account.`,
  request,
  response: { message },
});

/** The documented `given` of a case about a user that is not there. */
export const GIVEN_NO_USER = `\`${EXAMPLE_USER_EMAIL}\` is not a user of the caller's tool.`;

/** The 404 of an operation on a user that is not there. */
export const notFoundCase = (message: string, request: JsonObject): Case => ({
  name: 'userNotFound',
  status: 404,
  summary: "No such user in the caller's tool (another owner's users do not exist to the caller)",
  given: GIVEN_NO_USER,
  request,
  response: { message },
});
