/**
 * The precompiled validators (generated/validators.ts) plus the run-time password policy must
 * answer exactly as ajv compiling each operation's full JSON Schema would, on any body.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import transform from 'ajv-keywords/dist/keywords/transform.js';
import fc from 'fast-check';
import { OPERATIONS, operationSchemas, POLICY_FIELDS } from '#contract/operations';
import { messageFor } from '#contract/schemas';
import { codePoints } from '#domain/password-policy';
import { buildValidatorModules, VALIDATORS_DIR } from '../../codegen/validators';
import { refusedByLists } from '../support/password-lists';
import { validationStep } from '../support/validation';

/** The reference: the full schema compiled live, with the options the pipeline always used. */
function reference(schema: object) {
  const ajv = new Ajv2020({ allErrors: true, coerceTypes: false, useDefaults: false, verbose: true, strict: true });
  addFormats(ajv, ['email']);
  transform(ajv);
  return ajv.compile(schema);
}

const fields = ['user_email', 'user_password', 'new_password', 'should_reset_password', 'other', '__proto__'];
const value = fc.oneof(
  fc.constantFrom('a@example.com', ' Bob@Example.COM ', '', '   ', 'not-an-email', 'true', 'false', 'TRUE', null, true, false, 0, 12345678),
  fc.string({ maxLength: 40 }),
  fc.string({ minLength: 1000, maxLength: 1100 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.emailAddress(),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);
const bodies = fc
  .dictionary(fc.constantFrom(...fields), value, { maxKeys: 4 })
  .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);

/** Whether a policy field of the body is a string that NFC makes longer or shorter in code points. */
function nfcChangesLength(fields: readonly string[], body: Record<string, unknown>): boolean {
  return fields.some((field) => {
    const value = body[field];
    return typeof value === 'string' && codePoints(value) !== codePoints(value.normalize('NFC'));
  });
}

const POLICIES = [
  { minLength: 8, maxLength: 1024 },
  { minLength: 12, maxLength: 64 },
  { minLength: 1, maxLength: 8 },
];

describe('precompiled validators', () => {
  it('are what npm run build:validators writes from the operation modules: one module per operation, none left over', () => {
    const fresh = buildValidatorModules();
    const committed = Object.fromEntries(
      readdirSync(VALIDATORS_DIR).map((name) => [name, readFileSync(join(VALIDATORS_DIR, name), 'utf8')]),
    );
    expect(committed).toEqual(fresh);
    for (const name of OPERATIONS) expect(Object.keys(fresh)).toContain(`${name}.ts`);
  });

  it("each operation's module holds its own validator and no other operation's", () => {
    const fresh = buildValidatorModules();
    for (const name of OPERATIONS) {
      const others = OPERATIONS.filter((other) => other !== name);
      const text = fresh[`${name}.ts`]!;
      expect(text).toContain(`from functions/shared/contract/operations/${name}.ts`);
      for (const other of others) expect(text).not.toContain(other);
    }
  });

  for (const policy of POLICIES) {
    const schemas = operationSchemas(policy);
    for (const name of OPERATIONS) {
      it(`${name}, policy ${policy.minLength}-${policy.maxLength}: same verdict, message and normalised body as the full schema`, () => {
        const { schema, rows } = schemas[name];
        const full = reference(schema);
        const middleware = validationStep(name, policy);
        fc.assert(
          fc.property(bodies, (body) => {
            fc.pre(!refusedByLists(POLICY_FIELDS[name], body));
            // No JSON Schema counts code points after NFC: a password whose length NFC changes is held to both lengths by
            // the service alone (password-policy.test.ts, withinLimits), so the schema is no reference for it.
            fc.pre(!nfcChangesLength(POLICY_FIELDS[name], body));
            const expectedBody = structuredClone(body);
            const expected = full(expectedBody) ? { ok: expectedBody } : { message: messageFor(full.errors ?? [], rows) };
            const event = { body: structuredClone(body) };
            let actual: { ok: unknown } | { message: string };
            try {
              (middleware.before as (r: unknown) => void)({ event });
              actual = { ok: event.body };
            } catch (error) {
              actual = { message: (error as Error).message };
            }
            expect(actual).toEqual(expected);
          }),
          { numRuns: 400 },
        );
      });
    }
  }
});
