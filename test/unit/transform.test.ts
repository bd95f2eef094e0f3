/**
 * The jest transform (test/support/transform.js): native ESM with `import.meta.url` and top-level
 * await, and a stack trace that names the line of the .ts source, not of esbuild's output.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from '@jest/globals';

// Types the output must not keep: esbuild strips them, and the lines below must not move.
type Line = number;
const awaited: Line = await Promise.resolve(7);
const source = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');

it('runs as an ES module: import.meta.url is this .ts file, and top-level await has run', () => {
  expect(fileURLToPath(import.meta.url).endsWith('/test/unit/transform.test.ts')).toBe(true);
  expect(awaited).toBe(7);
});

it("a stack trace names this file's own line", () => {
  const stack = new Error('here').stack ?? ''; // the line the stack must name
  const line = Number(/transform\.test\.ts:(\d+):\d+/.exec(stack)?.[1]);
  expect(line).toBe(source.findIndex((text) => text.includes('// the line the stack must name')) + 1);
});
