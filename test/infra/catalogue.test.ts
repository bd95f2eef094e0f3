/**
 * The catalogue (functions/shared/contract/operations.ts) is the one list of operations: every
 * entry reaches the stack (its function, memory, timeout, grants and route), the WAF's path rule,
 * the local server's routes, the metrics' outcomes and the OpenAPI document, and nothing else does.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { API_VERSION, CATALOGUE, DEFINITIONS, OPERATIONS, operationPath } from '#contract/operations';
import { outcomeOf } from '#http/middleware/request-metrics';
import { buildOpenApiDocument, OPENAPI_PATH } from '../../codegen/openapi';
import { LOCAL_OPERATION_PATHS } from '../../local/server';
import { baseStage, resourcesOf, statementsOfRole } from './templates';

const prod = baseStage('prod');
const resources = resourcesOf(prod.template);
/** A construct's name below the stack: `CreateUser` for createUser. */
const upperFirst = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** Every RegexString the web ACL matches against the URI path. */
function uriPathRegexes(): RegExp[] {
  const found: RegExp[] = [];
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    const record = node as Record<string, unknown>;
    const field = record.FieldToMatch as Record<string, unknown> | undefined;
    if (typeof record.RegexString === 'string' && field && 'UriPath' in field) found.push(new RegExp(record.RegexString));
    for (const value of Object.values(record)) walk(value);
  };
  walk(Object.values(resources).filter((resource) => resource.Type === 'AWS::WAFv2::WebACL'));
  return found;
}

describe('the catalogue', () => {
  it('registers every operation module (operations/<name>.ts) under the name it declares, and nothing else', () => {
    const modules = readdirSync(new URL('../../functions/shared/contract/operations/', import.meta.url)).map((file) =>
      file.replace(/\.ts$/, ''),
    );
    expect([...OPERATIONS].sort()).toEqual(modules.sort());
    for (const name of OPERATIONS) expect(DEFINITIONS[name].name).toBe(name);
  });

  it('has a function folder for each operation and no other API function', () => {
    const folders = readdirSync(new URL('../../functions/', import.meta.url)).filter((name) =>
      existsSync(new URL(`../../functions/${name}/handler.ts`, import.meta.url)),
    );
    expect(folders.filter((name) => !OPERATIONS.includes(name as never)).sort()).toEqual(['publishLifecycleEvents']);
  });

  it('has no operation the stack, the local server or the OpenAPI document adds on its own', () => {
    // The stack's functions: one construct per operation at its top level (the stream consumer's and the hooks' are deeper).
    const functions = Object.keys(prod.logicalIds).flatMap((path) => /^(\w+)\/Function\/Resource$/.exec(path)?.[1] ?? []);
    expect(functions).toEqual(OPERATIONS.map(upperFirst));
    expect([...LOCAL_OPERATION_PATHS].sort()).toEqual(OPERATIONS.map(operationPath).sort());
    expect(Object.keys(buildOpenApiDocument().paths as object).sort()).toEqual(OPERATIONS.map(operationPath).sort());
    const below = new RegExp(`^Api/Api/Default/${API_VERSION}/([^/]+)/Resource$`);
    const routes = Object.entries(prod.logicalIds).flatMap(([path, id]) =>
      resources[id]?.Type === 'AWS::ApiGateway::Resource' ? (below.exec(path)?.[1] ?? []) : [],
    );
    expect(routes).toEqual([...OPERATIONS]);
  });

  describe.each(OPERATIONS)('%s', (operation) => {
    const entry = CATALOGUE[operation];

    it('has a handler module: functions/<operation>/handler.ts', () => {
      expect(existsSync(new URL(`../../functions/${operation}/handler.ts`, import.meta.url))).toBe(true);
    });

    it("is a function of the stack with the catalogue's memory, timeout and users-table grant", () => {
      const fn = prod.id(`${upperFirst(operation)}/Function`);
      expect(resources[fn]?.Type).toBe('AWS::Lambda::Function');
      const props = resources[fn]?.Properties;
      expect([props?.MemorySize, props?.Timeout]).toEqual([entry.memoryMb, entry.timeoutSeconds]);
      const role = (props!.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      expect(role).toBe(prod.id(`${upperFirst(operation)}/Role`));
      const actions = statementsOfRole(prod.template, role).flatMap((statement) => statement.Action as string[]);
      for (const action of ['GetItem', ...entry.usersTableActions]) expect(actions).toContain(`dynamodb:${action}`);
    });

    it('is routed: POST /v1/<operation> to its function', () => {
      const resource = prod.id(`Api/Api/Default/${API_VERSION}/${operation}`);
      expect(resources[resource]?.Type).toBe('AWS::ApiGateway::Resource');
      prod.template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: 'POST',
        ResourceId: { Ref: resource },
        Integration: { Type: 'AWS_PROXY' },
      });
    });

    it("is in the WAF's path rule", () => {
      const regexes = uriPathRegexes();
      expect(regexes.length).toBeGreaterThan(0);
      expect(regexes.some((regex) => regex.test(`/prod${operationPath(operation)}`))).toBe(true);
    });

    it('is a route of the local server', () => {
      expect(LOCAL_OPERATION_PATHS).toContain(operationPath(operation));
    });

    it("is in the OpenAPI document, built and committed, with the catalogue's summary", () => {
      const committed = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as { paths: Record<string, { post?: { summary?: string } }> };
      for (const document of [buildOpenApiDocument() as typeof committed, committed]) {
        expect(document.paths[operationPath(operation)]?.post?.summary).toBe(entry.summary);
      }
    });

    it("counts its successes with the catalogue's outcome", () => {
      expect(outcomeOf(DEFINITIONS[operation], { statusCode: 200, body: '{}' })).toBe(entry.successOutcome);
    });
  });
});
