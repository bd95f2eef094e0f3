/**
 * One JSON Schema per operation, and the contract's rows for its validation
 * errors, in the contract's order: where several rows apply, the first wins.
 */

import type { ErrorObject } from 'ajv';
import type { PasswordPolicy } from './config';
import { MESSAGES, passwordOutOfPolicy, unknownParameter } from './messages';

/** An e-mail address, trimmed and lower-cased before it is checked (and stored). */
const email = {
  type: 'string',
  transform: ['trim', 'toLowerCase'],
  minLength: 1,
  maxLength: 254,
  format: 'email',
} as const;

const password = (policy: PasswordPolicy) => ({ type: 'string', minLength: policy.minLength, maxLength: policy.maxLength }) as const;

const body = (properties: Record<string, object>, required: string[]) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** What made a field fail: absent/null/empty, not a listed field, or any other failure. */
type Failure = 'missing' | 'unknown' | 'invalid';

/** A contract row: which field failures it covers, and its message. */
export interface Row {
  readonly fields: readonly string[] | '*';
  readonly failures: readonly Failure[];
  readonly message: (field: string) => string;
}

export interface OperationSchema {
  readonly schema: object;
  readonly rows: readonly Row[];
}

const row = (fields: Row['fields'], failures: Failure[], message: string | ((field: string) => string)): Row => ({
  fields,
  failures,
  message: typeof message === 'string' ? () => message : message,
});

const unknownRow = row('*', ['unknown'], unknownParameter);

/** The three operations' schemas for a deployment's password policy. */
export function operationSchemas(policy: PasswordPolicy) {
  return {
    createUser: {
      schema: body(
        {
          user_email: email,
          user_password: password(policy),
          should_reset_password: { enum: ['true', 'false', true, false] },
        },
        ['user_email'],
      ),
      rows: [
        row(['user_email'], ['missing'], MESSAGES.userEmailMissing),
        unknownRow,
        row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
        row(['user_password'], ['missing', 'invalid'], passwordOutOfPolicy('user_password', policy)),
        row(['should_reset_password'], ['missing', 'invalid'], MESSAGES.shouldResetInvalid),
      ],
    },
    resetUserPassword: {
      schema: body({ user_email: email, new_password: password(policy) }, ['user_email', 'new_password']),
      rows: [
        row(['user_email', 'new_password'], ['missing'], MESSAGES.missingParameters),
        unknownRow,
        row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
        row(['new_password'], ['invalid'], passwordOutOfPolicy('new_password', policy)),
      ],
    },
    deleteUser: {
      schema: body({ user_email: email }, ['user_email']),
      rows: [
        row(['user_email'], ['missing'], MESSAGES.missingParameters),
        unknownRow,
        row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
      ],
    },
  } satisfies Record<string, OperationSchema>;
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
