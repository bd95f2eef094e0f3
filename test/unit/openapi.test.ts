/** The OpenAPI document: committed and fresh agree, it is valid OpenAPI 3.1, and it is built from the pipeline's own schemas. */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { DEFAULT_PASSWORD_POLICY, readConfig } from '../../functions/shared/config';
import { buildOpenApiDocument, OPENAPI_PATH, serializeOpenApiDocument } from '../../functions/shared/openapi';
import { operationSchemas } from '../../functions/shared/schemas';

type Examples = Record<string, { value: unknown }>;
interface Operation {
  requestBody: { content: { 'application/json': { examples: Examples } } };
  responses: Record<string, { content: { 'application/json': { examples: Examples } } }>;
}

const fresh = serializeOpenApiDocument(buildOpenApiDocument());
const document = JSON.parse(fresh) as { paths: Record<string, { post: Operation }>; components: { schemas: Record<string, unknown> } };
const operations = Object.entries(document.paths).map(([path, item]) => [path, item.post] as const);

describe('openapi.json', () => {
  it('is what `npm run openapi` generates now (run it when this fails)', () => {
    expect(readFileSync(OPENAPI_PATH, 'utf8')).toBe(fresh);
  });

  it('is generated the same way twice', () => {
    expect(serializeOpenApiDocument(buildOpenApiDocument())).toBe(fresh);
  });

  it('uses the deployment default password policy of functions/shared/config.ts', () => {
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
    const successNames = new Set(operations.flatMap(([, op]) => Object.keys(op.responses['200']!.content['application/json'].examples)));
    const accepted = (ruleId: string, pointer: string) => {
      // Error examples show the invalid requests they answer, on purpose; a success example must conform.
      const requestExample = /\/requestBody\/content\/application~1json\/examples\/([^/]+)\/value/.exec(pointer)?.[1];
      if (ruleId === 'no-invalid-media-type-examples') return requestExample !== undefined && !successNames.has(requestExample);
      // 404 and 405 answer paths and methods outside every operation, so no operation refers to them.
      if (ruleId === 'no-unused-components') return /^#\/components\/responses\/(NotFound|MethodNotAllowed)$/.test(pointer);
      // A private service: there is no licence to state.
      return ruleId === 'info-license';
    };
    const unexpected = problems
      .map((p) => ({ ruleId: p.ruleId, message: p.message, pointer: p.location[0]?.pointer ?? '' }))
      .filter((p) => !accepted(p.ruleId, p.pointer));
    expect(unexpected).toEqual([]);
  });
});

describe('the document against the pipeline', () => {
  it("describes each operation's body with the schema the pipeline validates with (transform shown as x-transform)", () => {
    const strip = (schema: unknown): unknown => {
      if (Array.isArray(schema)) return schema.map(strip);
      if (typeof schema !== 'object' || schema === null) return schema;
      const entries = Object.entries(schema).flatMap(([key, value]): [string, unknown][] => {
        if (key === 'description') return [];
        if (key === 'x-transform') return [['transform', value]];
        return [[key, strip(value)]];
      });
      return Object.fromEntries(entries);
    };
    const pipeline = operationSchemas(DEFAULT_PASSWORD_POLICY);
    for (const [name, schemaName] of [
      ['createUser', 'CreateUserRequest'],
      ['resetUserPassword', 'ResetUserPasswordRequest'],
      ['deleteUser', 'DeleteUserRequest'],
    ] as const) {
      expect(strip(document.components.schemas[schemaName])).toEqual(JSON.parse(JSON.stringify(pipeline[name].schema)));
    }
  });

  it('pairs every response example with the request example of the same name, and the other way round', () => {
    for (const [path, op] of operations) {
      const requests = Object.keys(op.requestBody.content['application/json'].examples).sort();
      const responses = Object.values(op.responses)
        .flatMap((response) => Object.keys(response.content['application/json'].examples))
        .sort();
      expect([path, responses]).toEqual([path, requests]);
    }
  });

  it("gives one 400 example per contract row, in the rows' order, after the Idempotency-Key and body checks", () => {
    const schemas = operationSchemas(DEFAULT_PASSWORD_POLICY);
    for (const [name, rows] of Object.entries(schemas).map(([n, s]) => [n, s.rows] as const)) {
      const examples = document.paths[`/v1/${name}`]!.post.responses['400']!.content['application/json'].examples;
      const messages = Object.values(examples).map((e) => (e.value as { message: string }).message);
      expect(messages).toHaveLength(rows.length + 2);
      expect(messages.slice(0, 2)).toEqual(['Idempotency-Key is invalid.', 'Request body must be a JSON object.']);
      for (const [i, row] of rows.entries()) expect(messages[i + 2]).toBe(row.message(row.fields === '*' ? 'role' : row.fields[0]!));
    }
  });
});
