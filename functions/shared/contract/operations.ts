/**
 * The registry: the operations, one module each (operations/<name>.ts), and everything that is
 * per operation built from them. The CDK stack (functions, grants, memory, timeouts, routes, WAF
 * paths), the local server (routes, Lambda deadlines), the OpenAPI builder, the admin CLI, the
 * bench, the capacity model and the tests read it; a function's handler imports only its own
 * module. Adding an operation: its module, one line below (CONTRIBUTING.md, "Adding an operation").
 */

import type { PasswordPolicy } from '#platform/config';
import {
  API_VERSION,
  EXAMPLE_USER_EMAIL,
  GIVEN_USER_EXISTS,
  type JsonObject,
  type OperationDefinition,
  type OperationEntry,
} from './define-operation';
import { MESSAGES as SHARED_MESSAGES } from './messages';
import { createUser } from './operations/createUser';
import { deleteUser } from './operations/deleteUser';
import { resetUserPassword } from './operations/resetUserPassword';
import { type OperationSchema, operationSchema } from './schemas';

export { API_VERSION, type DynamoDbAction, type OperationEntry } from './define-operation';

/** Every operation's module, in route order. */
export const DEFINITIONS = { createUser, resetUserPassword, deleteUser } as const;

export type OperationName = keyof typeof DEFINITIONS;

/** The operations' names, in route order. */
export const OPERATIONS = Object.keys(DEFINITIONS) as readonly OperationName[];

/** A record with one value per operation, in route order. */
const perOperation = <T>(value: (definition: (typeof DEFINITIONS)[OperationName]) => T): Record<OperationName, T> =>
  Object.fromEntries(OPERATIONS.map((name) => [name, value(DEFINITIONS[name])])) as Record<OperationName, T>;

/** The catalogue: each operation's entry (failure message, outcome, timeout, grants, memory, texts). */
export const CATALOGUE: Record<OperationName, OperationEntry> = perOperation((definition) => definition.entry);

/** Each operation's body without the password policy: what its generated validator was compiled from. */
export const SHAPES = perOperation((definition) => definition.shape);

/** The fields each operation holds to the password policy. */
export const POLICY_FIELDS: Record<OperationName, readonly string[]> = perOperation((definition) => definition.policyFields);

/** Every operation's schema and contract rows for a deployment's password policy. */
export const operationSchemas = (policy: PasswordPolicy): Record<OperationName, OperationSchema> =>
  perOperation((definition) => operationSchema(definition, policy));

/**
 * Every message the API can answer: the shared ones (messages.ts) and each operation's own, byte
 * for byte as docs/api-contract.md lists them (for the tests and the document's checks).
 */
export const ALL_MESSAGES = Object.assign(
  {},
  SHARED_MESSAGES,
  ...OPERATIONS.map((name) => DEFINITIONS[name].messages),
) as typeof SHARED_MESSAGES & UnionToIntersection<(typeof DEFINITIONS)[OperationName]['messages']>;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** `/v1/<operation>`: the path below the API's base URL. */
export const operationPath = (operation: OperationName): string => `/${API_VERSION}/${operation}`;

/** Whether `name` is one of the operations. */
export const isOperationName = (name: string): name is OperationName => Object.hasOwn(DEFINITIONS, name);

/**
 * A valid body of `operation` about the user `email`: its module's documented one (`docs.validBody`)
 * with that e-mail in it. The bench and the tests that call every operation take their bodies here.
 */
export const validBodyFor = (operation: OperationName, email: string): JsonObject =>
  JSON.parse(JSON.stringify(DEFINITIONS[operation].docs.validBody).replaceAll(JSON.stringify(EXAMPLE_USER_EMAIL), JSON.stringify(email)));

/** Whether `operation` acts on a user that exists already (its documented success is given one). */
export const actsOnExistingUser = (operation: OperationName): boolean => DEFINITIONS[operation].docs.success.given === GIVEN_USER_EXISTS;

/** Any operation's module, for code that serves whichever it is given. */
export type AnyOperation = OperationDefinition<OperationName>;
