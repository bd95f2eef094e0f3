/**
 * The layer check that `npm run lint:ci` runs (dependency-cruiser, .dependency-cruiser.cjs): it
 * passes on the tree as committed, and fails, naming the rule, when a violation is injected into a
 * copy of the tree.
 */

import { spawnSync } from 'node:child_process';
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ROOT } from '../support/processes';
import { copyOfTree as treeCopy } from '../support/tree-copy';

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

/** A copy of what the check reads, removed after the file's tests. */
function copyOfTree(): string {
  const dir = treeCopy('layers-');
  copies.push(dir);
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
      '../../packages/sign-in/src/store/sign-in-store.ts',
      "import '@white-label-user-management/shared/contract/generated/validators/index';",
      'sign-in-is-not-the-pipeline',
    ],
    // Its messages (plain text) it may share: changePassword refuses in the API's words.
    [
      'a module the sign-in entry reaches importing the catalogue',
      '../../packages/sign-in/src/domain/sign-in.ts',
      "import '@white-label-user-management/shared/contract/operations';",
      'sign-in-is-not-the-pipeline',
    ],
    [
      'a module the sign-in entry reaches importing middy',
      '../../packages/sign-in/src/domain/sign-in.ts',
      "import '@middy/core';",
      'sign-in-is-not-the-pipeline',
    ],
    [
      'a module the sign-in entry reaches, in the shared workspace, importing the HTTP layer',
      'domain/email.ts',
      "import '#http/errors';",
      'sign-in-is-not-the-pipeline',
    ],
    [
      'a sign-in domain file importing the AWS SDK',
      '../../packages/sign-in/src/domain/sessions.ts',
      "import '@aws-sdk/client-dynamodb';",
      'domain-is-plain',
    ],
    [
      'a sign-in domain file importing its store',
      '../../packages/sign-in/src/domain/sign-in.ts',
      "import '../store/batch-get';",
      'domain-is-plain',
    ],
    [
      'a Lambda function importing the sign-in package',
      'domain/users.ts',
      "import '../../../packages/sign-in/src/domain/sessions';",
      'functions-not-sign-in',
    ],
    [
      'the sign-in package importing functions/ by a relative path',
      '../../packages/sign-in/src/index.ts',
      "import '../../../functions/shared/domain/email';",
      'sign-in-imports-shared-by-name',
    ],
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
