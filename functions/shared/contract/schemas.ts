/**
 * What every operation's JSON Schema and contract rows are made of (each operation module,
 * `operations/<name>.ts`, writes its own from these), and how an ajv error finds its row: in the
 * contract's order, where several rows apply, the first wins. Each body's shape is precompiled
 * into generated/validators/<name>.ts (`npm run build:validators`); the password policy is
 * deployment config and is checked beside it, in the same validation step.
 */

import type { ErrorObject } from 'ajv';
import type { PasswordPolicy } from '#platform/config';
import { passwordBreached, passwordGuessable, passwordOutOfPolicy, unknownParameter } from './messages';

/** An e-mail address, trimmed and lower-cased before it is checked (and stored). */
export const email = {
  type: 'string',
  transform: ['trim', 'toLowerCase'],
  minLength: 1,
  maxLength: 254,
  format: 'email',
} as const;

/** A password's shape; its lengths come from the deployment's policy (see {@link withPolicy}). */
export const password = { type: 'string' } as const;

/** A JSON object body: these members, these required, no other. */
export const body = (properties: Record<string, object>, required: string[]) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** A body's shape without the password policy: what a generated validator is compiled from. */
export type BodyShape = ReturnType<typeof body>;

/** The body that names one user and nothing else: what the admin CLI and the import check an e-mail with. */
export const USER_EMAIL_BODY = body({ user_email: email }, ['user_email']);

/** The shape with the policy's lengths on its password fields: the body's full JSON Schema. */
export function withPolicy(shape: BodyShape, fields: readonly string[], policy: PasswordPolicy) {
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
  /** The operation whose precompiled validator checks the body's shape. */
  readonly operation: string;
  /** The fields held to `policy`, checked in the same step as the shape. */
  readonly policyFields: readonly string[];
  readonly policy: PasswordPolicy;
}

export const row = (fields: Row['fields'], failures: Failure[], message: string | ((field: string) => string)): Row => ({
  fields,
  failures,
  message: typeof message === 'string' ? () => message : message,
});

/** The row every operation has, second: a member the body may not have. */
export const unknownRow = row('*', ['unknown'], unknownParameter);

/** The rows of a password field under the policy: out of its lengths (or absent, when `missing`), guessable, breached. */
export const passwordRows = (field: string, policy: PasswordPolicy, failures: Failure[] = ['invalid']): Row[] => [
  row([field], failures, passwordOutOfPolicy(field, policy)),
  row([field], ['guessable'], passwordGuessable),
  row([field], ['breached'], passwordBreached),
];

/** An operation's schema for a deployment's policy: its shape with the policy, and its rows. */
export const operationSchema = (
  operation: { name: string; shape: BodyShape; policyFields: readonly string[]; rows: (policy: PasswordPolicy) => Row[] },
  policy: PasswordPolicy,
): OperationSchema => ({
  schema: withPolicy(operation.shape, operation.policyFields, policy),
  rows: operation.rows(policy),
  operation: operation.name,
  policyFields: operation.policyFields,
  policy,
});

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
