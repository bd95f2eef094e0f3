import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import transform from 'ajv-keywords/dist/keywords/transform.js';
import type { MiddlewareObj } from '@middy/core';
import { ApiError } from '../errors';
import { type OperationSchema, messageFor } from '../schemas';

// No type coercion: `12345678` is not a password. `verbose` puts the failing value on each error.
const ajv = new Ajv2020({ allErrors: true, coerceTypes: false, useDefaults: false, verbose: true, strict: true });
addFormats(ajv, ['email']);
transform(ajv);

/** JSON Schema validation of the parsed body; a failure is a 400 with the contract row's message. */
export function validateBody({ schema, rows }: OperationSchema): MiddlewareObj<{ body: unknown }> {
  const validate = ajv.compile(schema);
  return {
    before: ({ event }) => {
      if (!validate(event.body)) throw new ApiError(400, messageFor(validate.errors ?? [], rows));
    },
  };
}
