/**
 * `npx tsx bench/package-footprint.ts [<tarball or package spec> ...]`: what a stranger's install
 * weighs. Each workspace package is packed as the repository ships it and installed alone into an
 * empty folder by npm on Node.js 20 (test/support/stranger.ts, the install tests' own steps), then
 * `@aws-sdk/client-dynamodb` alone at the service's version (the sign-in package's yardstick), then
 * any tarball or spec given (an older release, to compare). One line each: packages and bytes of
 * node_modules. Needs the npm registry and Debian's Node.js 20. ADR 19 quotes a run of it.
 */

import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { emptyFolder, installAlone, packWorkspace } from '../test/support/stranger';

const root = new URL('..', import.meta.url).pathname;
const consumer = JSON.stringify({ name: 'stranger', private: true, type: 'module' });
const dynamodbVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
  .dependencies['@aws-sdk/client-dynamodb'];

const packs = emptyFolder('footprint-packs');
try {
  const specs: [string, string][] = [];
  for (const name of ['client', 'sign-in']) specs.push([name, (await packWorkspace(name, packs)).tarball]);
  specs.push(['@aws-sdk/client-dynamodb alone', `@aws-sdk/client-dynamodb@${dynamodbVersion}`]);
  for (const extra of process.argv.slice(2)) specs.push([extra, extra]);
  for (const [label, spec] of specs) {
    const installed = installAlone('footprint', consumer, [spec]);
    console.log(`${label}: ${installed.packages.length} packages, ${installed.bytes} bytes`);
    rmSync(installed.dir, { recursive: true, force: true });
  }
} finally {
  rmSync(packs, { recursive: true, force: true });
}
