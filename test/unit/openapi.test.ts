/** The OpenAPI document: committed and fresh agree, it is valid OpenAPI 3.1, and it is built from the pipeline's own schemas. */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { OPERATIONS, type OperationName, operationSchemas, POLICY_FIELDS, SHAPES } from '#contract/operations';
import { DEFAULT_PASSWORD_POLICY, type PasswordPolicy, readConfig } from '#platform/config';
import { buildOpenApiDocument, EMAIL_PATTERN, OPENAPI_PATH, serializeOpenApiDocument } from '../../codegen/openapi';
import { refusedByLists } from '../support/password-lists';
import { validationStep } from '../support/validation';

type Examples = Record<string, { value: unknown; 'x-request-body'?: unknown }>;
interface Operation {
  requestBody: { content: { 'application/json': { examples: Examples } } };
  responses: Record<string, { content: { 'application/json': { examples: Examples } } }>;
}

const fresh = serializeOpenApiDocument(buildOpenApiDocument());
const document = JSON.parse(fresh) as { paths: Record<string, { post: Operation }>; components: { schemas: Record<string, unknown> } };
const SCHEMA_NAMES = [
  ['createUser', 'CreateUserRequest'],
  ['resetUserPassword', 'ResetUserPasswordRequest'],
  ['deleteUser', 'DeleteUserRequest'],
] as const;
const operations = Object.entries(document.paths).map(([path, item]) => [path, item.post] as const);

describe('openapi.json', () => {
  it('is what `npm run openapi` generates now (run it when this fails)', () => {
    expect(readFileSync(OPENAPI_PATH, 'utf8')).toBe(fresh);
  });

  it('is generated the same way twice', () => {
    expect(serializeOpenApiDocument(buildOpenApiDocument())).toBe(fresh);
  });

  it('uses the deployment default password policy of functions/shared/platform/config.ts', () => {
    const saved = { min: process.env.PASSWORD_MIN_LENGTH, max: process.env.PASSWORD_MAX_LENGTH };
    delete process.env.PASSWORD_MIN_LENGTH;
    delete process.env.PASSWORD_MAX_LENGTH;
    try {
      expect(readConfig().passwordPolicy).toEqual(DEFAULT_PASSWORD_POLICY);
    } finally {
      if (saved.min !== undefined) process.env.PASSWORD_MIN_LENGTH = saved.min;
      if (saved.max !== undefined) process.env.PASSWORD_MAX_LENGTH = saved.max;
    }
  });
});

describe('validation with @redocly/openapi-core', () => {
  const lint = async (ruleset: string) =>
    lintFromString({ source: fresh, absoluteRef: OPENAPI_PATH, config: await createConfig({ extends: [ruleset] }) });

  it('passes the OpenAPI 3.1 specification rules without a single problem', async () => {
    expect(await lint('spec')).toEqual([]);
  });

  it('passes the recommended rules with no error, and only the warnings the design accepts', async () => {
    const problems = await lint('recommended');
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    // A private service: there is no licence to state.
    const accepted = (ruleId: string) => ruleId === 'info-license';
    const unexpected = problems
      .map((p) => ({ ruleId: p.ruleId, message: p.message, pointer: p.location[0]?.pointer ?? '' }))
      .filter((p) => !accepted(p.ruleId));
    expect(unexpected).toEqual([]);
  });
});

describe('the document against the pipeline', () => {
  it("describes each operation's body with the pipeline's schema, its e-mail field as sent (a pattern, the transform in words and as x-transform)", () => {
    const strip = (schema: unknown): unknown => {
      if (Array.isArray(schema)) return schema.map(strip);
      if (typeof schema !== 'object' || schema === null) return schema;
      return Object.fromEntries(Object.entries(schema).flatMap(([key, value]) => (key === 'description' ? [] : [[key, strip(value)]])));
    };
    const pipeline = operationSchemas(DEFAULT_PASSWORD_POLICY);
    for (const [name, schemaName] of SCHEMA_NAMES) {
      const documented = strip(document.components.schemas[schemaName]) as { properties: Record<string, unknown> };
      const expected = JSON.parse(JSON.stringify(pipeline[name].schema)) as { properties: Record<string, unknown> };
      expect(documented.properties.user_email).toEqual({ type: 'string', pattern: EMAIL_PATTERN, 'x-transform': ['trim', 'toLowerCase'] });
      expect({ ...documented, properties: { ...documented.properties, user_email: expected.properties.user_email } }).toEqual(expected);
    }
  });

  it('pairs every response example with one request: the request example of the same name, or its own x-request-body', () => {
    for (const [path, op] of operations) {
      const requests = Object.keys(op.requestBody.content['application/json'].examples).sort();
      const responses = Object.values(op.responses).flatMap((response) => Object.entries(response.content['application/json'].examples));
      const carried = responses.filter(([, e]) => e['x-request-body'] !== undefined).map(([name]) => name);
      const paired = responses.filter(([, e]) => e['x-request-body'] === undefined).map(([name]) => name);
      expect([path, paired.sort()]).toEqual([path, requests]);
      expect(carried.filter((name) => requests.includes(name))).toEqual([]);
    }
  });

  it("carries the request on the response example exactly when the service's validation refuses it", () => {
    for (const [path, op] of operations) {
      const name = path.replace('/v1/', '') as OperationName;
      const accepts = serviceAccepts(name, DEFAULT_PASSWORD_POLICY);
      const requests = Object.values(op.requestBody.content['application/json'].examples).map((e) => e.value);
      // The duplicate-name example sends its first member twice, which it says in words: the object it carries has it once.
      const carried = Object.values(op.responses).flatMap((r) =>
        Object.entries(r.content['application/json'].examples).flatMap(([example, e]) =>
          e['x-request-body'] === undefined || example === 'bodyDuplicateName' ? [] : [e['x-request-body']],
        ),
      );
      expect([path, requests.filter((body) => !accepts(body))]).toEqual([path, []]);
      expect([path, carried.filter((body) => accepts(body))]).toEqual([path, []]);
    }
  });

  it("gives one 400 example per contract row, in the rows' order, after HTTP itself, the Idempotency-Key and the body checks", () => {
    const schemas = operationSchemas(DEFAULT_PASSWORD_POLICY);
    for (const [name, rows] of Object.entries(schemas).map(([n, s]) => [n, s.rows] as const)) {
      const examples = document.paths[`/v1/${name}`]!.post.responses['400']!.content['application/json'].examples;
      const messages = Object.values(examples).map((e) => (e.value as { message: string }).message);
      const before = [
        'Bad Request',
        'Idempotency-Key is invalid.',
        'Request body must be valid UTF-8 JSON.',
        'Request body must be a JSON object.',
        'Duplicate parameter: user_email.',
      ];
      expect(messages).toHaveLength(rows.length + before.length);
      expect(messages.slice(0, before.length)).toEqual(before);
      for (const [i, row] of rows.entries()) {
        expect(messages[i + before.length]).toBe(row.message(row.fields === '*' ? 'role' : row.fields[0]!));
      }
    }
  });
});

describe('a standard JSON Schema validator reading the document agrees with the service', () => {
  // Everything String.prototype.trim removes, and two characters it keeps (U+200B, U+0085).
  const space = fc.constantFrom(
    '',
    ' ',
    '\t',
    '\n',
    '\r',
    '\v',
    '\f',
    '\u00a0',
    '\u1680',
    '\u2003',
    '\u2028',
    '\u2029',
    '\u3000',
    '\ufeff',
    '\u200b',
    '\u0085',
  );
  const address = fc.oneof(
    fc.emailAddress(),
    fc.emailAddress().map((e) => e.toUpperCase()),
    fc.constantFrom(
      'Jane@Example.COM',
      'jane@\u212Aexample.com',
      '\u0130@example.com',
      'jane@ex\u00e4mple.com',
      'jane@',
      '@example.com',
      'a b@c.de',
    ),
    // Around the 254-character limit, which applies after trimming.
    fc.integer({ min: 252, max: 256 }).map((n) => `${'a'.repeat(n - 12)}@example.com`),
    fc.string({ maxLength: 30 }),
  );
  const email = fc.oneof(
    { weight: 9, arbitrary: fc.tuple(space, space, address, space).map(([a, b, c, d]) => a + b + c + d) },
    { weight: 1, arbitrary: fc.constantFrom(null, '', '   ', 7, true, ['jane@example.com']) },
  );
  const password = fc.oneof(
    fc.string({ minLength: 6, maxLength: 70 }),
    fc.string({ minLength: 1020, maxLength: 1030 }),
    fc.constantFrom(null, '', 12345678),
  );
  const absentMostly = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 2 });
  /** Bodies close to valid for each operation, so that one field at a time decides the verdict. */
  const tailored: Partial<Record<OperationName, fc.Arbitrary<unknown>>> = {
    createUser: fc.record({
      user_email: email,
      user_password: fc.option(password, { nil: undefined }),
      should_reset_password: fc.option(fc.constantFrom('true', 'false', true, false, 'TRUE', 'yes', null, 1), { nil: undefined }),
      new_password: absentMostly(fc.constant('a long enough password')),
    }),
    resetUserPassword: fc.record({ user_email: email, new_password: password, role: absentMostly(fc.constant('admin')) }),
    deleteUser: fc.record({ user_email: email, user_password: absentMostly(fc.constant('a long enough password')) }),
  };
  /** Any other operation: its own fields (an e-mail, a password, or any JSON value), each absent now and then, and a field it does not list. */
  const derived = (name: OperationName) =>
    fc.record({
      ...Object.fromEntries(
        Object.keys(SHAPES[name].properties).map((field) => [
          field,
          absentMostly(field === 'user_email' ? email : field.endsWith('password') ? password : fc.jsonValue()),
        ]),
      ),
      role: absentMostly(fc.constant('admin')),
    });
  const bodies = Object.fromEntries(OPERATIONS.map((name) => [name, tailored[name] ?? derived(name)])) as Record<
    OperationName,
    fc.Arbitrary<unknown>
  >;

  for (const policy of [DEFAULT_PASSWORD_POLICY, { minLength: 12, maxLength: 64 }]) {
    const published = buildOpenApiDocument(policy) as unknown as typeof document;
    // A validator that knows nothing of ajv-keywords, and asserts formats (stricter than OpenAPI's default of annotating them).
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const [name, schemaName] of SCHEMA_NAMES) {
      it(`${name}, policy ${policy.minLength}-${policy.maxLength}: same verdict on any body`, () => {
        const standard = ajv.compile(published.components.schemas[schemaName] as object);
        const accepts = serviceAccepts(name, policy);
        fc.assert(
          fc.property(bodies[name], (generated) => {
            const body = JSON.parse(JSON.stringify(generated)) as unknown;
            fc.pre(!refusedByLists(POLICY_FIELDS[name], body));
            expect([body, standard(structuredClone(body))]).toEqual([body, accepts(body)]);
          }),
          { numRuns: 1500 },
        );
      });
    }
  }
});

describe('passwords in other normal forms: the service is never more lenient than the document', () => {
  // Characters whose NFC is longer (U+1D160: three code points) or shorter (e + U+0301: one) than as sent.
  const unit = fc.constantFrom('a', 'Z', '7', ' ', '\u00e9', 'e\u0301', '\u{1D160}', '\u{1D15F}\u{1D16E}', '\u0344', '\u{1F600}', '\u2126');
  const password = fc.oneof(
    fc.array(unit, { minLength: 1, maxLength: 14 }).map((units) => units.join('')),
    fc.integer({ min: 1015, max: 1030 }).map((n) => 'e\u0301'.repeat(Math.floor(n / 2)) + 'x'.repeat(n % 2)),
  );

  for (const policy of [DEFAULT_PASSWORD_POLICY, { minLength: 12, maxLength: 64 }]) {
    const published = buildOpenApiDocument(policy) as unknown as typeof document;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const [name, schemaName, field] of [
      ['createUser', 'CreateUserRequest', 'user_password'],
      ['resetUserPassword', 'ResetUserPasswordRequest', 'new_password'],
    ] as const) {
      it(`${name}, policy ${policy.minLength}-${policy.maxLength}: a password the service takes, the schema takes`, () => {
        const standard = ajv.compile(published.components.schemas[schemaName] as object);
        const accepts = serviceAccepts(name, policy);
        fc.assert(
          fc.property(password, (value) => {
            const body = { user_email: 'jane@example.com', [field]: value };
            if (accepts(body)) expect([value, standard(structuredClone(body))]).toEqual([value, true]);
          }),
          { numRuns: 1000 },
        );
        expect(accepts({ user_email: 'jane@example.com', [field]: '\u{1D160}'.repeat(3) })).toBe(false);
        expect(accepts({ user_email: 'jane@example.com', [field]: 'e\u0301'.repeat(515) })).toBe(false);
      });
    }
  }

  it('says in words that NFC can also shorten a password below the minimum', () => {
    const properties = (schema: string) =>
      (document.components.schemas[schema] as { properties: Record<string, { description: string }> }).properties;
    for (const description of [
      properties('CreateUserRequest').user_password!.description,
      properties('ResetUserPasswordRequest').new_password!.description,
    ]) {
      expect(description).toContain('as sent');
      expect(description).toContain('after NFC');
      expect(description).toContain('shorten it below the minimum');
    }
  });
});

/** Whether the service's validation step (precompiled validators plus the password policy) lets the body through. */
function serviceAccepts(name: OperationName, policy: PasswordPolicy): (body: unknown) => boolean {
  const before = validationStep(name, policy).before as (request: { event: { body: unknown } }) => void;
  return (body) => {
    try {
      before({ event: { body: structuredClone(body) } });
      return true;
    } catch {
      return false;
    }
  };
}
