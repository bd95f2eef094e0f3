import type { MiddlewareObj } from '@middy/core';
import type { ErrorObject } from 'ajv';
import { COMPILED_FROM, ucs2length, validators } from '#contract/generated/validators';
import { messageFor, type OperationSchema, SHAPES } from '#contract/schemas';
import { ApiError } from '../errors';

// Fail at start-up, never mid-request, when the precompiled validators no longer match the schemas.
if (COMPILED_FROM !== JSON.stringify(SHAPES)) {
  throw new Error('functions/shared/contract/generated/validators.ts is out of date with schemas.ts: run `npm run build:validators`');
}

/**
 * JSON Schema validation of the parsed body; a failure is a 400 with the contract row's message.
 * The body's shape is checked by a validator precompiled from the operation's schema (no ajv
 * compile at cold start); the deployment's password policy is checked in the same step and its
 * failures join the same error list, so the contract's first-row-wins order is kept.
 */
export function validateBody({ operation, rows, policyFields, policy }: OperationSchema): MiddlewareObj<{ body: unknown }> {
  const validate = validators[operation];
  return {
    before: ({ event }) => {
      const valid = validate(event.body);
      const errors = [...(validate.errors ?? []), ...policyErrors(event.body, policyFields, policy)];
      if (!valid || errors.length > 0) throw new ApiError(400, messageFor(errors, rows));
    },
  };
}

/** minLength / maxLength failures of the policy's fields, shaped as ajv (with `verbose`) reports them. */
function policyErrors(body: unknown, fields: readonly string[], policy: OperationSchema['policy']): ErrorObject[] {
  if (typeof body !== 'object' || body === null || fields.length === 0) return [];
  const errors: ErrorObject[] = [];
  for (const field of fields) {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value !== 'string') continue;
    const length = ucs2length(value);
    const keyword = length > policy.maxLength ? 'maxLength' : length < policy.minLength ? 'minLength' : undefined;
    if (!keyword) continue;
    const limit = keyword === 'maxLength' ? policy.maxLength : policy.minLength;
    errors.push({
      instancePath: `/${field.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      schemaPath: `#/properties/${field}/${keyword}`,
      keyword,
      params: { limit },
      message: `must NOT have ${keyword === 'maxLength' ? 'more' : 'fewer'} than ${limit} characters`,
      schema: limit,
      data: value,
    });
  }
  return errors;
}
