/**
 * `npm run test:projects`: exit 1 when CONTRIBUTING's list of the heavy test files differs from
 * HEAVY in jest.config.js; `-- --write` rewrites the list from it.
 */

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { contributingPath, jestProjects, readContributing, withHeavyBlock } from '../codegen/test-projects';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { HEAVY } = await jestProjects(ROOT);
const current = readContributing(ROOT);
const wanted = withHeavyBlock(current, HEAVY);
if (process.argv.includes('--write')) {
  writeFileSync(contributingPath(ROOT), wanted);
  console.log(`wrote CONTRIBUTING.md's heavy files (${Object.keys(HEAVY).length})`);
} else if (wanted !== current) {
  console.error('CONTRIBUTING.md lists other heavy test files than HEAVY in jest.config.js: npm run test:projects -- --write');
  process.exitCode = 1;
}
