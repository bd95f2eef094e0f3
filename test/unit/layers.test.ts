/**
 * The layer check that `npm run lint:ci` runs (dependency-cruiser, .dependency-cruiser.cjs): it
 * passes on the tree as committed, and fails, naming the rule, when a violation is injected into a
 * copy of the tree.
 */

import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ROOT } from '../support/processes';

const CRUISER = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const copies: string[] = [];

function cruise(cwd: string) {
  const result = spawnSync(
    process.execPath,
    [CRUISER, 'functions', 'packages', 'admin', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'],
    {
      cwd,
      encoding: 'utf8',
    },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A copy of what the check reads (functions/, packages/, admin/, local/ and codegen/, its config, package.json's aliases, tsconfig), sharing node_modules. */
function copyOfTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  copies.push(dir);
  for (const path of ['functions', 'packages', 'admin', 'local', 'codegen', '.dependency-cruiser.cjs', 'package.json', 'tsconfig.json']) {
    cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe('the layer check', () => {
  it('passes on the committed tree', () => {
    const { status, output } = cruise(ROOT);
    expect([status, output]).toEqual([0, expect.stringContaining('no dependency violations')]);
  });

  it.each([
    ['a domain file importing the AWS SDK', 'domain/email.ts', "import '@aws-sdk/client-dynamodb';", 'domain-is-plain'],
    ['a domain file importing a store', 'domain/users.ts', "import '#store/client';", 'domain-is-plain'],
    ['a store importing the HTTP layer', 'store/client.ts', "import '#http/errors';", 'store-below-http'],
    ['runtime code importing build-time code', 'http/pipeline.ts', "import '../../../codegen/openapi';", 'runtime-not-build-time-or-local'],
    ['runtime code importing a devDependency', 'domain/email.ts', "import 'fast-check';", 'runtime-no-dev-dependencies'],
    ['an import cycle', 'platform/logger.ts', "import './metrics';\n", 'no-circular'],
    [
      "a module the sign-in entry reaches importing the contract's validators",
      'store/sign-in-store.ts',
      "import '#contract/generated/validators/index';",
      'sign-in-is-not-the-pipeline',
    ],
    // Its messages (plain text) it may share: changePassword refuses in the API's words.
    [
      'a module the sign-in entry reaches importing the catalogue',
      'domain/sign-in.ts',
      "import '#contract/operations';",
      'sign-in-is-not-the-pipeline',
    ],
    ['a module the sign-in entry reaches importing middy', 'domain/sign-in.ts', "import '@middy/core';", 'sign-in-is-not-the-pipeline'],
    ['the admin CLI importing local-only code', '../../admin/replay-events.ts', "import '../local/free-port';", 'admin-not-local'],
    [
      'the sign-in package importing local-only code',
      '../../packages/sign-in/src/index.ts',
      "import '../../../local/free-port';",
      'runtime-not-build-time-or-local',
    ],
    [
      'the sign-in package importing the client package',
      '../../packages/sign-in/src/index.ts',
      "import '../../client/src/index';",
      'runtime-not-build-time-or-local',
    ],
    [
      'the sign-in package importing an npm package its package.json does not list',
      '../../packages/sign-in/src/index.ts',
      "import 'fast-check';",
      'package-imports-its-dependencies',
    ],
  ])('fails on %s, naming the rule', (_, file, line, rule) => {
    const dir = copyOfTree();
    appendFileSync(join(dir, 'functions/shared', file), `\n${line}\n`);
    if (rule === 'no-circular') appendFileSync(join(dir, 'functions/shared/platform/metrics.ts'), "\nimport './logger';\n");
    const { status, output } = cruise(dir);
    expect(status).not.toBe(0);
    expect(output).toContain(rule);
  });
});
