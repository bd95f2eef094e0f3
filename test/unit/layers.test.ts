/**
 * The layer check that `npm run lint:ci` runs (dependency-cruiser, .dependency-cruiser.cjs): it
 * passes on the tree as committed, and fails on a copy of the tree into which violations are
 * injected, reporting each one under its rule: the injected import itself (a dependency or a
 * cycle), or a path from the sign-in entry that ends in it (a reachability rule). Every injection
 * goes into one copy and one run: each finding is matched by the injected file and the module it
 * imports, so one injection cannot stand in for another.
 */

import { spawnSync } from 'node:child_process';
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROOT } from '../support/processes';
import { copyOfTree } from '../support/tree-copy';

const CRUISER = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

function cruise(cwd: string, outputType: 'err' | 'json') {
  const result = spawnSync(
    process.execPath,
    [CRUISER, 'functions', 'packages', 'admin', '--config', '.dependency-cruiser.cjs', '--output-type', outputType],
    { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return { status: result.status, stdout: result.stdout, output: `${result.stdout}${result.stderr}` };
}

/**
 * A finding of dependency-cruiser's JSON report: `via` is the path of a reachability finding, ending
 * in `to`. One of severity `error` is what makes `lint:ci` (the same run, reported as text) exit non-zero.
 */
type Violation = { type: string; from: string; to: string; rule: { name: string; severity: string }; via?: { name: string }[] };

/** [what is injected, the file under functions/shared it is appended to, the import line, the rule that must report it] */
const INJECTED: [string, string, string, string][] = [
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
];

/** The module an injected import names, as a fragment of the path it resolves to. */
const target = (line: string) =>
  /'([^']+)'/
    .exec(line)![1]!
    .replace(/^(#|(\.\.?\/)+)/, '')
    .replace(/^@white-label-user-management\/shared\//, '');

/** Whether `violation` is the injected import of `file` (relative to the root) on `fragment`, or a path that ends in it. */
function reports(violation: Violation, file: string, fragment: string): boolean {
  if (violation.type !== 'reachability') return violation.from === file && violation.to.includes(fragment);
  const path = [violation.from, ...(violation.via ?? []).map((step) => step.name)];
  return path.length >= 2 && path.at(-2) === file && path.at(-1)!.includes(fragment) && violation.to === path.at(-1);
}

let copy: string;
let violations: Violation[];
beforeAll(() => {
  copy = copyOfTree('layers-');
  for (const [, file, line] of INJECTED) appendFileSync(join(copy, 'functions/shared', file), `\n${line}\n`);
  // The other half of the cycle.
  appendFileSync(join(copy, 'functions/shared/platform/metrics.ts'), "\nimport './logger';\n");
  violations = (JSON.parse(cruise(copy, 'json').stdout) as { summary: { violations: Violation[] } }).summary.violations;
});
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('the layer check', () => {
  it('passes on the committed tree', () => {
    const { status, output } = cruise(ROOT, 'err');
    expect([status, output]).toEqual([0, expect.stringContaining('no dependency violations')]);
  });

  it.each(INJECTED)('fails on %s, naming the rule', (_, file, line, rule) => {
    const from = join('functions/shared', file);
    const found = violations.some(
      (violation) => violation.rule.name === rule && violation.rule.severity === 'error' && reports(violation, from, target(line)),
    );
    expect({ rule, from, target: target(line), found }).toEqual({ rule, from, target: target(line), found: true });
  });
});
