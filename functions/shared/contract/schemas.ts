/**
 * One JSON Schema per operation, and the contract's rows for its validation
 * errors, in the contract's order: where several rows apply, the first wins.
 * The shape of each body (SHAPES) is precompiled into generated/validators.ts
 * (`npm run build:validators`); the password policy is deployment config and is
 * checked beside it, in the same validation step.
 */

import type { ErrorObject } from 'ajv';
import type { PasswordPolicy } from '#platform/config';
import { MESSAGES, passwordOutOfPolicy, unknownParameter } from './messages';
import type { OperationName } from './operations';

/** An e-mail address, trimmed and lower-cased before it is checked (and stored). */
const email = {
  type: 'string',
  transform: ['trim', 'toLowerCase'],
  minLength: 1,
  maxLength: 254,
  format: 'email',
} as const;

/** A password's shape; its lengths come from the deployment's policy (see {@link operationSchemas}). */
const password = { type: 'string' } as const;

const body = (properties: Record<string, object>, required: string[]) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** Each operation's body without the password policy: what generated/validators.ts was compiled from. */
export const SHAPES = {
  createUser: body(
    {
      user_email: email,
      user_password: password,
      should_reset_password: { enum: ['true', 'false', true, false] },
    },
    ['user_email'],
  ),
  resetUserPassword: body({ user_email: email, new_password: password }, ['user_email', 'new_password']),
  deleteUser: body({ user_email: email }, ['user_email']),
} satisfies Record<OperationName, ReturnType<typeof body>>;

/** The fields each operation holds to the password policy. */
const POLICY_FIELDS: Record<OperationName, readonly string[]> = {
  createUser: ['user_password'],
  resetUserPassword: ['new_password'],
  deleteUser: [],
};

/** The shape with the policy's lengths on its password fields: the body's full JSON Schema. */
function withPolicy(shape: ReturnType<typeof body>, fields: readonly string[], policy: PasswordPolicy) {
  const properties = Object.fromEntries(
    Object.entries(shape.properties).map(([name, schema]) => [
      name,
      fields.includes(name) ? { ...schema, minLength: policy.minLength, maxLength: policy.maxLength } : schema,
    ]),
  );
  return { ...shape, properties };
}

/** What made a field fail: absent/null/empty, not a listed field, or any other failure. */
type Failure = 'missing' | 'unknown' | 'invalid';

/** A contract row: which field failures it covers, and its message. */
export interface Row {
  readonly fields: readonly string[] | '*';
  readonly failures: readonly Failure[];
  readonly message: (field: string) => string;
}

export interface OperationSchema {
  /** The body's JSON Schema under the deployment's password policy (what the API documents). */
  readonly schema: object;
  readonly rows: readonly Row[];
  /** Which precompiled validator checks the body's shape. */
  readonly operation: OperationName;
  /** The fields held to `policy`, checked in the same step as the shape. */
  readonly policyFields: readonly string[];
  readonly policy: PasswordPolicy;
}

const row = (fields: Row['fields'], failures: Failure[], message: string | ((field: string) => string)): Row => ({
  fields,
  failures,
  message: typeof message === 'string' ? () => message : message,
});

const unknownRow = row('*', ['unknown'], unknownParameter);

const operationSchema = (operation: OperationName, policy: PasswordPolicy, rows: Row[]): OperationSchema => ({
  schema: withPolicy(SHAPES[operation], POLICY_FIELDS[operation], policy),
  rows,
  operation,
  policyFields: POLICY_FIELDS[operation],
  policy,
});

/** The three operations' schemas for a deployment's password policy. */
export function operationSchemas(policy: PasswordPolicy) {
  return {
    createUser: operationSchema('createUser', policy, [
      row(['user_email'], ['missing'], MESSAGES.userEmailMissing),
      unknownRow,
      row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
      row(['user_password'], ['missing', 'invalid'], passwordOutOfPolicy('user_password', policy)),
      row(['should_reset_password'], ['missing', 'invalid'], MESSAGES.shouldResetInvalid),
    ]),
    resetUserPassword: operationSchema('resetUserPassword', policy, [
      row(['user_email', 'new_password'], ['missing'], MESSAGES.missingParameters),
      unknownRow,
      row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
      row(['new_password'], ['invalid'], passwordOutOfPolicy('new_password', policy)),
    ]),
    deleteUser: operationSchema('deleteUser', policy, [
      row(['user_email'], ['missing'], MESSAGES.missingParameters),
      unknownRow,
      row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
    ]),
  } satisfies Record<OperationName, OperationSchema>;
}

/** Which field an ajv error is about, and how it failed (ajv must run with `verbose` for `data`). */
export function classify(error: ErrorObject): { field: string; failure: Failure } {
  if (error.keyword === 'required') return { field: error.params.missingProperty, failure: 'missing' };
  if (error.keyword === 'additionalProperties') return { field: error.params.additionalProperty, failure: 'unknown' };
  const field = decodePointer(error.instancePath.split('/')[1] ?? '');
  const empty = error.instancePath.split('/').length === 2 && (error.data === null || error.data === '');
  return { field, failure: empty ? 'missing' : 'invalid' };
}

/** The message of the first contract row that any of the errors falls under. */
export function messageFor(errors: readonly ErrorObject[], rows: readonly Row[]): string {
  const failures = errors.map(classify);
  for (const { fields, failures: covered, message } of rows) {
    const hit = failures.find((f) => covered.includes(f.failure) && (fields === '*' || fields.includes(f.field)));
    if (hit) return message(hit.field);
  }
  // Unreachable while every schema keyword has a row; a 400 is still the honest answer.
  return rows[0]!.message(failures[0]?.field ?? '');
}

const decodePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');
