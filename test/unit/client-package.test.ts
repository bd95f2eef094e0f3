/**
 * The client package (packages/client) as its build writes it: the bundle and its declarations where
 * its package.json `exports` points; the bundle imports openapi-fetch and nothing else (pinned in
 * `dependencies`); and the layer check keeps packages/client apart from the service.
 */

import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { buildPackage, packageNamed } from '../../codegen/packages';
import { ROOT } from '../support/processes';
import { copyOfTree } from '../support/tree-copy';

const copies: string[] = [];
const scratch = (tag: string) => {
  const dir = mkdtempSync(join(tmpdir(), tag));
  copies.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

const pkg = JSON.parse(readFileSync(join(ROOT, 'packages/client/package.json'), 'utf8')) as {
  exports: Record<string, Record<string, string>>;
  dependencies: Record<string, string>;
  files: string[];
};

describe('the client package', () => {
  it('is built where its package.json points, and its bundle imports openapi-fetch only', async () => {
    const out = scratch('packages-');
    await buildPackage(ROOT, packageNamed('client'), out);
    const entry = pkg.exports['.']!;
    for (const target of [entry.types!, entry.import!]) expect(existsSync(join(out, target))).toBe(true);
    const bundle = readFileSync(join(out, entry.import!), 'utf8');
    const imports = [...bundle.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm)].map(
      (m) => m[1] ?? m[2],
    );
    expect(imports).toEqual(['openapi-fetch']);
    expect(bundle).not.toMatch(/\brequire\(/);
    // The declarations carry the generated contract types with them.
    expect(readFileSync(join(out, entry.types!), 'utf8')).toContain("from './generated/openapi.js'");
    expect(existsSync(join(out, 'dist/generated/openapi.d.ts'))).toBe(true);
  }, 120_000);

  it('depends on an exact openapi-fetch, and packs dist/ although git ignores it', () => {
    expect(pkg.dependencies['openapi-fetch']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.files).toContain('dist');
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8').split('\n')).toContain('dist/');
  });
});

describe('the layer check on packages/client', () => {
  const cruise = (cwd: string) => {
    const cruiser = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
    const result = spawnSync(process.execPath, [cruiser, 'packages', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {
      cwd,
      encoding: 'utf8',
    });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  };

  it('passes on the committed tree', () => {
    const { status, output } = cruise(ROOT);
    expect([status, output]).toEqual([0, expect.stringContaining('no dependency violations')]);
  });

  it.each([
    ['the service', "import '../../../functions/shared/contract/messages';", 'client-stands-alone'],
    ['the CDK app', "import '../../../lib/stage-config';", 'client-stands-alone'],
    ['the sign-in package', "import '../../sign-in/src/index';", 'client-stands-alone'],
    ['middy', "import '@middy/core';", 'client-only-openapi-fetch'],
  ])('fails when packages/client imports %s, naming the rule', (_, line, rule) => {
    const dir = copyOfTree('client-layers-');
    copies.push(dir);
    appendFileSync(join(dir, 'packages/client/src/index.ts'), `\n${line}\n`);
    const { status, output } = cruise(dir);
    expect(status).not.toBe(0);
    expect(output).toContain(rule);
  });
});
