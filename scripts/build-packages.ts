/** `npm run build:packages` (and `prepare`): builds the entries of package.json `exports` into dist/ (codegen/packages.ts). */

import { fileURLToPath } from 'node:url';
import { buildPackages } from '../codegen/packages';

for (const file of await buildPackages(fileURLToPath(new URL('..', import.meta.url)))) console.error(`wrote ${file}`);
