/**
 * openapi.json, and the document the local server and the stack serve, are I-JSON (RFC 7493):
 * every JSON tool reads them, jq 1.6 included. Inputs that are not Unicode (a lone surrogate, a
 * byte that is not UTF-8) are described in words in the document, never written into it.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { buildOpenApiDocument, OPENAPI_PATH, serializeOpenApiDocument } from '../../codegen/openapi';
import { iJsonProblems } from '../support/i-json';

describe('the strict I-JSON check', () => {
  it.each([
    ['a lone high surrogate escape', '{"user_email": "jane\\ud800@example.com"}', /lone surrogate/],
    ['a lone low surrogate escape', '["\\udc00"]', /lone surrogate/],
    ['a pair in the wrong order', '["\\udc00\\ud800"]', /lone surrogate/],
    ['a lone surrogate escape in a name', '{"\\ud800": 1}', /lone surrogate/],
    ['a noncharacter', '["\\uffff"]', /noncharacter/],
    ['a noncharacter of another plane', '["\\ud83f\\udffe"]', /noncharacter/],
    ['a name twice in one object', '{"a": {"b": 1, "b": 2}}', /"b" twice/],
    ['an integer beyond double precision', '[9007199254740993]', /double precision/],
    ['text that is not JSON', '{"a": 1,}', /not JSON/],
  ])('refuses %s', (_, text, problem) => {
    expect(iJsonProblems(text)).toEqual([expect.stringMatching(problem)]);
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(iJsonProblems(Buffer.from([0x5b, 0x22, 0xe9, 0x22, 0x5d]))).toEqual(['not UTF-8']);
  });

  it('accepts a surrogate pair, an escaped backslash before "u", U+FFFD, the same name in two objects', () => {
    expect(iJsonProblems('{"a": ["\\ud83d\\ude00", "\\\\ud800", "\uFFFD", {"a": 1.5e300}], "b": {"a": -0}}')).toEqual([]);
  });
});

describe('the OpenAPI document is I-JSON', () => {
  it('openapi.json, as committed (its bytes)', () => {
    expect(iJsonProblems(readFileSync(OPENAPI_PATH))).toEqual([]);
  });

  it('as the local server and a stage with its own password policy serve it', () => {
    const served = serializeOpenApiDocument(buildOpenApiDocument({ minLength: 12, maxLength: 64 }));
    expect(iJsonProblems(served)).toEqual([]);
  });
});
