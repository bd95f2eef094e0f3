/**
 * `tsx scripts/build-packages.ts [name...]`: builds the named packages (all without a name) into
 * their dist/ folders (codegen/packages.ts). Each workspace's `npm run build` runs it for itself;
 * the root's `npm run build:packages` (and `prepare`, so `npm install`) runs every workspace's build.
 */

import { fileURLToPath } from 'node:url';
import { buildPackage, PACKAGES, packageNamed } from '../codegen/packages';

const root = fileURLToPath(new URL('..', import.meta.url));
try {
  const names = process.argv.slice(2);
  for (const spec of names.length > 0 ? names.map(packageNamed) : PACKAGES) {
    for (const file of await buildPackage(root, spec)) console.error(`wrote ${spec.dir}/${file}`);
  }
} catch (error) {
  // A type error or a declaration that does not stand alone: its text, without a stack.
  console.error(`build-packages failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
