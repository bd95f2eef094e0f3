/**
 * `npm test`: jest on the projects jest.config.js lists. With no argument it runs the default
 * projects, named here; with any (a file, a folder, `--selectProjects`, an option) jest gets exactly
 * what was given, every project in reach, so `npm test -- test/processes/admin-cli.test.ts` runs
 * that file whatever project holds it. Plain Node (it strips the types itself): no import to resolve.
 */
import { spawnSync } from 'node:child_process';

/** The default `npm test`: the projects a change is checked with before a commit. CI runs every project. */
const DEFAULT_PROJECTS = ['unit', 'integration', 'http', 'hardening', 'infra'];

const given = process.argv.slice(2);
const args = given.length > 0 ? given : ['--selectProjects', ...DEFAULT_PROJECTS];
const jest = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', 'node_modules/jest/bin/jest.js', ...args],
  { stdio: 'inherit' },
);
process.exitCode = jest.status ?? 1;
