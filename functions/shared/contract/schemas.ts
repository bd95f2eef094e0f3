/**
 * One JSON Schema per operation, and the contract's rows for its validation
 * errors, in the contract's order: where several rows apply, the first wins.
 * The shape of each body (SHAPES) is precompiled into generated/validators.ts
 * (`npm run build:validators`); the password policy is deployment config and is
 * checked beside it, in the same validation step.
 */

import type { ErrorObject } from 'ajv';
import type { PasswordPolicy } from '#platform/config';
import { MESSAGES, passwordBreached, passwordGuessable, passwordOutOfPolicy, unknownParameter } from './messages';
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
export const POLICY_FIELDS: Record<OperationName, readonly string[]> = {
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

/**
 * What made a field fail: absent/null/empty, not a listed field, any other failure of its shape or
 * length; for a password, too easy to guess or found by the online check (the password policy).
 */
export type Failure = 'missing' | 'unknown' | 'invalid' | 'guessable' | 'breached';

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
      row(['user_password'], ['guessable'], passwordGuessable),
      row(['user_password'], ['breached'], passwordBreached),
      row(['should_reset_password'], ['missing', 'invalid'], MESSAGES.shouldResetInvalid),
    ]),
    resetUserPassword: operationSchema('resetUserPassword', policy, [
      row(['user_email', 'new_password'], ['missing'], MESSAGES.missingParameters),
      unknownRow,
      row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
      row(['new_password'], ['invalid'], passwordOutOfPolicy('new_password', policy)),
      row(['new_password'], ['guessable'], passwordGuessable),
      row(['new_password'], ['breached'], passwordBreached),
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
  if (error.keyword === 'guessable' || error.keyword === 'breached') return { field, failure: error.keyword };
  const empty = error.instancePath.split('/').length === 2 && (error.data === null || error.data === '');
  return { field, failure: empty ? 'missing' : 'invalid' };
}

/** The first contract row that any of the errors falls under (its index, and the field), or undefined when none does. */
export function firstRow(errors: readonly ErrorObject[], rows: readonly Row[]): { index: number; field: string } | undefined {
  const failures = errors.map(classify);
  for (const [index, { fields, failures: covered }] of rows.entries()) {
    const hit = failures.find((f) => covered.includes(f.failure) && (fields === '*' || fields.includes(f.field)));
    if (hit) return { index, field: hit.field };
  }
  return undefined;
}

/** The message of the first contract row that any of the errors falls under. */
export function messageFor(errors: readonly ErrorObject[], rows: readonly Row[]): string {
  const first = firstRow(errors, rows);
  if (first) return rows[first.index]!.message(first.field);
  // Unreachable while every schema keyword has a row; a 400 is still the honest answer.
  return rows[0]!.message(errors.map(classify)[0]?.field ?? '');
}

const decodePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');
