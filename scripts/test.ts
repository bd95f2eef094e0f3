/**
 * `npm test`: jest on the projects jest.config.js lists. With no argument it runs the default
 * projects, named here; with any (a file, a folder, `--selectProjects`, an option) jest gets exactly
 * what was given, every project in reach, so `npm test -- test/processes/admin-cli.test.ts` runs
 * that file whatever project holds it. Plain Node (it strips the types itself): no import to resolve.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The default `npm test`: the projects a change is checked with before a commit. CI runs every project. */
const DEFAULT_PROJECTS = ['unit', 'integration', 'http', 'hardening', 'infra'];

const given = process.argv.slice(2);
const args = given.length > 0 ? given : ['--selectProjects', ...DEFAULT_PROJECTS];
// Node's compile cache for jest and every Node process the tests start (the admin CLI, npm start,
// tsc, npm): each one then skips compiling the code it loaded before. A value already set is kept.
const env = { NODE_COMPILE_CACHE: join(import.meta.dirname, '../node_modules/.cache/node-compile-cache'), ...process.env };
const jest = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', 'node_modules/jest/bin/jest.js', ...args],
  { stdio: 'inherit', env },
);
process.exitCode = jest.status ?? 1;
