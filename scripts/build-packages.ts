/** `npm run build:packages` (and `prepare`): builds the entries of package.json `exports` into dist/ (codegen/packages.ts). */

import { fileURLToPath } from 'node:url';
import { buildPackages } from '../codegen/packages';

try {
  for (const file of await buildPackages(fileURLToPath(new URL('..', import.meta.url)))) console.error(`wrote ${file}`);
} catch (error) {
  // A type error or a declaration that does not stand alone: its text, without a stack.
  console.error(`build:packages failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
