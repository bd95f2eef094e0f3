/**
 * scripts/doc-values.ts: an inline value a document states is the code's, and `--check` (run by
 * `npm run generate -- --check`) fails on one that is stale or names no value.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_API_KEY_CACHE_TTL_SECONDS } from '#platform/config';
import { userDocuments, VALUES, withValues } from '../../scripts/doc-values';
import { ROOT } from '../support/processes';

describe('the values the documents state inline', () => {
  it('are current in every user document', () => {
    const problems = userDocuments().flatMap((file) => withValues(readFileSync(join(ROOT, file), 'utf8'), file).problems);
    expect(problems).toEqual([]);
  });

  it("the revocation delay is the code's default", () => {
    expect(VALUES.apiKeyCacheTtl).toBe(`${DEFAULT_API_KEY_CACHE_TTL_SECONDS} s`);
  });

  it('a stale value is named and rewritten; an unknown name is named and left', () => {
    const text = 'within <!-- value:apiKeyCacheTtl -->31 s<!-- /value -->\nand <!-- value:nope -->1<!-- /value -->';
    const result = withValues(text, 'x.md');
    expect(result.problems).toEqual([
      `x.md:1: apiKeyCacheTtl is ${VALUES.apiKeyCacheTtl}, the document says 31 s`,
      'x.md:2: no value named nope',
    ]);
    expect(result.text).toBe(
      `within <!-- value:apiKeyCacheTtl -->${VALUES.apiKeyCacheTtl}<!-- /value -->\nand <!-- value:nope -->1<!-- /value -->`,
    );
  });
});
