/**
 * Two of the checks `npm run lint:ci` runs, checked themselves: Biome reads its configuration
 * without a deprecation, and the Markdown link check (remark-validate-links, offline: local
 * files and #headings) passes on the tree as committed and fails, naming the link, when a
 * broken one is injected into a copy of the tree.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ROOT } from '../support/processes';

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** Every file git would commit (tracked, or new and not ignored) in a fresh folder, sharing node_modules. */
function copyOfTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'links-'));
  copies.push(dir);
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  // A tracked file deleted in the work tree is not part of the tree the check reads.
  for (const file of files.split('\0').filter((path) => path && existsSync(join(ROOT, path)))) {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** `npm run lint:links` as CI runs it, in `cwd`. */
function checkLinks(cwd: string) {
  const result = spawnSync('npm', ['run', '-s', 'lint:links', '--', '--no-color'], { cwd, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the Markdown link check', () => {
  const tree = copyOfTree();

  it('passes on the tree as committed', () => {
    expect(checkLinks(tree)).toEqual({ status: 0, output: '' });
  }, 60_000);

  it('fails on a link to a missing file and on one to a missing heading, naming each', () => {
    appendFileSync(join(tree, 'docs/local.md'), '\nSee [the document](openapi.json).\n');
    appendFileSync(join(tree, 'docs/adr/README.md'), '\nSee [the limits](../operations.md#no-such-section).\n');
    const { status, output } = checkLinks(tree);
    expect(status).toBe(1);
    expect(output).toMatch(/docs\/local\.md\n.*Cannot find file `openapi\.json`/);
    expect(output).toMatch(/docs\/adr\/README\.md\n.*Cannot find heading for `#no-such-section` in `\.\.\/operations\.md`/);
  }, 60_000);
});

describe('Biome', () => {
  it('reads its configuration without a deprecation (biome.json as `biome migrate` writes it)', () => {
    const result = spawnSync(join(ROOT, 'node_modules/.bin/biome'), ['check', 'package.json'], { cwd: ROOT, encoding: 'utf8' });
    expect({ status: result.status, deprecated: /deprecat/i.test(`${result.stdout}${result.stderr}`) }).toEqual({
      status: 0,
      deprecated: false,
    });
  });
});
