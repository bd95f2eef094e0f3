/**
 * A copy of the tree dependency-cruiser reads (the runtime, the packages, the CLI, the local server,
 * the build's code, its config, package.json's aliases, tsconfig), for tests that inject a violation
 * into the copy. node_modules is shared, but for the workspaces' links, which point into the copy:
 * the sign-in package imports functions/shared by name, and the check reads each workspace's manifest.
 */

import { cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './processes';

const PATHS = ['functions', 'packages', 'admin', 'local', 'codegen', 'lib', '.dependency-cruiser.cjs', 'package.json', 'tsconfig.json'];
const WORKSPACES = [
  ['shared', 'functions/shared'],
  ['sign-in', 'packages/sign-in'],
  ['client', 'packages/client'],
] as const;

/** A fresh copy under the system's temporary folder, named `<tag>XXXXXX`; the caller removes it. */
export function copyOfTree(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), tag));
  for (const path of PATHS) cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  linkNodeModules(dir);
  return dir;
}

/** `dir/node_modules`: the project's packages linked, its workspaces linked to their copies in `dir`. */
export function linkNodeModules(dir: string): void {
  mkdirSync(join(dir, 'node_modules/@white-label-user-management'), { recursive: true });
  for (const entry of readdirSync(join(ROOT, 'node_modules')))
    if (entry !== '@white-label-user-management') symlinkSync(join(ROOT, 'node_modules', entry), join(dir, 'node_modules', entry));
  for (const [name, path] of WORKSPACES) symlinkSync(join(dir, path), join(dir, 'node_modules/@white-label-user-management', name));
}
