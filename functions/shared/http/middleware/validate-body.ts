import type { MiddlewareObj } from '@middy/core';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { OperationDefinition } from '#contract/define-operation';
import { firstRow, messageFor, type Row } from '#contract/schemas';
import { type BreachCheck, checkPassword, codePoints, limitsFor } from '#domain/password-policy';
import type { Owner } from '#domain/users';
import type { PasswordPolicy } from '#platform/config';
import { ApiError } from '../errors';

/** An operation's generated validator module (generated/validators/<name>.ts). */
export interface CompiledValidator {
  readonly validator: ValidateFunction;
  /** The shape it was compiled from. */
  readonly COMPILED_FROM: string;
}

/**
 * JSON Schema validation of the parsed body; a failure is a 400 with the contract row's message.
 * The body's shape is checked by a validator precompiled from the operation's schema (no ajv
 * compile at cold start); the password policy (domain/password-policy.ts: the length as sent and
 * after NFC, the blocklist, the context words and their derivatives, the owner's minimum and blocked
 * words) is checked in the same step and its failures join the same error list, so the contract's
 * first-row-wins order is kept. The online check, when the stage has one, runs last and only when
 * its row could still be the first.
 */
export function validateBody(
  operation: Pick<OperationDefinition, 'name' | 'shape' | 'policyFields' | 'rows'>,
  compiled: CompiledValidator,
  policy: PasswordPolicy,
  options: { breachCheck?: BreachCheck } = {},
): MiddlewareObj<{ body: unknown }, unknown, Error, { owner?: Owner }> {
  // Fail at start-up, never mid-request, when the precompiled validator no longer matches the operation's shape.
  if (compiled.COMPILED_FROM !== JSON.stringify(operation.shape)) {
    throw new Error(
      `functions/shared/contract/generated/validators/${operation.name}.ts is out of date with its operation module: run \`npm run build:validators\``,
    );
  }
  const validate = compiled.validator;
  const { policyFields } = operation;
  const rows = operation.rows(policy);
  // The rows for an owner's own minimum (its length message names it), built once per minimum.
  const rowsByMinimum = new Map<number, readonly Row[]>([[policy.minLength, rows]]);
  const rowsFor = (limits: PasswordPolicy) => {
    const found = rowsByMinimum.get(limits.minLength) ?? operation.rows(limits);
    rowsByMinimum.set(limits.minLength, found);
    return found;
  };
  const breachedRow = rows.findIndex((row) => row.failures.includes('breached'));
  return {
    // Synchronous unless the online check runs: a request it does not concern waits for nothing.
    before: ({ event, context }) => {
      const owner = context?.owner;
      const limits = limitsFor(policy, owner?.passwordPolicy);
      const ownRows = rowsFor(limits);
      const body = event.body;
      const valid = validate(body);
      const offline = policyErrors(body, policyFields, limits, owner);
      const errors = [...(validate.errors ?? []), ...offline.errors];
      const first = firstRow(errors, ownRows);
      const refuse = () => {
        if (!valid || errors.length > 0) throw new ApiError(400, messageFor(errors, ownRows));
      };
      // Only a password the offline rules accept goes online, and only when its answer could matter.
      const { breachCheck } = options;
      if (!breachCheck || offline.accepted.length === 0 || (first !== undefined && first.index < breachedRow)) return refuse();
      return (async () => {
        for (const field of offline.accepted) {
          const password = (body as Record<string, string>)[field]!;
          if ((await breachCheck(password.normalize('NFC'))) === 'found') errors.push(policyError(field, 'breached', password));
        }
        refuse();
      })();
    },
  };
}

/** The policy's failures on the password fields, shaped as ajv (with `verbose`) reports them, and the fields it accepted. */
function policyErrors(body: unknown, fields: readonly string[], limits: PasswordPolicy, owner: Owner | undefined) {
  const errors: ErrorObject[] = [];
  const accepted: string[] = [];
  if (typeof body !== 'object' || body === null || fields.length === 0) return { errors, accepted };
  const record = body as Record<string, unknown>;
  const email = typeof record.user_email === 'string' ? record.user_email : undefined;
  for (const field of fields) {
    const value = record[field];
    if (typeof value !== 'string') continue;
    const verdict = checkPassword(value, { limits, email, blockedWords: owner?.passwordPolicy?.blockedWords });
    if (verdict === 'ok') accepted.push(field);
    else if (verdict === 'guessable') errors.push(policyError(field, 'guessable', value));
    else {
      const tooLong = Math.max(codePoints(value), codePoints(value.normalize('NFC'))) > limits.maxLength;
      errors.push(policyError(field, tooLong ? 'maxLength' : 'minLength', value, tooLong ? limits.maxLength : limits.minLength));
    }
  }
  return { errors, accepted };
}

const policyError = (field: string, keyword: string, data: string, limit?: number): ErrorObject => ({
  instancePath: `/${field.replace(/~/g, '~0').replace(/\//g, '~1')}`,
  schemaPath: `#/properties/${field}/${keyword}`,
  keyword,
  params: limit === undefined ? {} : { limit },
  message:
    limit === undefined
      ? `password policy: ${keyword}`
      : `must NOT have ${keyword === 'maxLength' ? 'more' : 'fewer'} than ${limit} characters`,
  schema: limit ?? true,
  data,
});
