/**
 * Every list of statuses docs/clients.md gives (three or more, comma-separated) is one the document
 * holds: an operation's refusals, or every refusal of any operation, as `openapi.json` lists them
 * (less 200 and what the client retries: 429, 500). A status added to the contract fails here until
 * the client's page says it.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';

const document = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
};
const RETRIED_OR_SUCCESS = new Set(['200', '429', '500']);
const refusals = Object.values(document.paths)
  .flatMap((methods) => Object.values(methods))
  .map((operation) => Object.keys(operation.responses).filter((status) => !RETRIED_OR_SUCCESS.has(status)));
const key = (statuses: readonly string[]) => [...new Set(statuses)].sort().join(', ');
const allowed = new Set([...refusals.map(key), key(refusals.flat())]);

describe('docs/clients.md', () => {
  const page = readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8');
  const lists = [...page.matchAll(/\b[1-5]\d\d(?:, [1-5]\d\d){2,}\b/g)].map((match) => match[0].split(', '));

  it('lists statuses somewhere (so the check below checks something)', () => {
    expect(lists.length).toBeGreaterThan(0);
  });

  it("lists only an operation's refusals or all of them, as openapi.json has them", () => {
    for (const list of lists)
      expect({ list: list.join(', '), allowed: allowed.has(key(list)) }).toEqual({ list: list.join(', '), allowed: true });
    expect([...allowed]).toContain(key(refusals.flat()));
  });
});
