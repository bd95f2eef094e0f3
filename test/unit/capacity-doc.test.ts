/**
 * docs/capacity.md's generated blocks are what the model prints: the tables from the committed bench
 * run (or, while that run lacks a figure the model reads, the pending note), and the sources from
 * what the model reads. `npm run capacity -- --write-doc` rewrites both.
 */

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { awsFigures, readAwsLimits } from '../../capacity/aws';
import { blockOf, DOC_PATH, PENDING, sourcesBlock, withBlock } from '../../capacity/doc';
import { BenchKeyError, readBench } from '../../capacity/inputs';
import { docBlock, runModel } from '../../capacity/report';
import { memoryOf, stackSettings } from '../../capacity/stack';

const ROOT = new URL('../../', import.meta.url);
const doc = readFileSync(new URL(DOC_PATH, ROOT), 'utf8');
const RESULTS = new URL('bench/RESULTS.json', ROOT);
const file = readAwsLimits();

/** The tables block the committed run gives: the model's tables, or the pending note while a figure is missing. */
function expectedTables(): string {
  if (!existsSync(RESULTS)) return PENDING;
  let bench: ReturnType<typeof readBench>;
  try {
    bench = readBench(JSON.parse(readFileSync(RESULTS, 'utf8')));
  } catch (error) {
    if (error instanceof BenchKeyError) return PENDING;
    throw error;
  }
  return docBlock(runModel(bench, stackSettings('prod'), memoryOf, file, awsFigures(file)), bench.date, file);
}

describe('docs/capacity.md', () => {
  it('holds the tables the model prints from the committed bench run (npm run capacity -- --write-doc)', () => {
    expect(blockOf(doc, 'tables')).toBe(expectedTables().trim());
  });

  it('lists every bench key the model reads and every AWS figure with its page, day and words', () => {
    expect(blockOf(doc, 'sources')).toBe(sourcesBlock(file).trim());
  });

  it('a block is replaced whole, and only the block', () => {
    const changed = withBlock(doc, 'tables', 'new tables');
    expect(blockOf(changed, 'tables')).toBe('new tables');
    expect(blockOf(changed, 'sources')).toBe(blockOf(doc, 'sources'));
    expect(changed.replace('new tables', blockOf(doc, 'tables'))).toBe(doc);
    expect(() => blockOf('# no blocks', 'tables')).toThrow(`${DOC_PATH} has no`);
  });
});
