/**
 * `npm run build:blocklist`: writes functions/shared/domain/generated/blocklist.ts from
 * codegen/blocklist.ts; `--check` exits 1 when the committed file differs from what this would write.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { BLOCKLIST_PATH, buildBlocklistModule } from '../codegen/blocklist';

const fresh = buildBlocklistModule();
if (process.argv.includes('--check')) {
  if (readFileSync(BLOCKLIST_PATH, 'utf8') !== fresh) {
    console.error(`${BLOCKLIST_PATH} is out of date: run npm run build:blocklist`);
    process.exit(1);
  }
} else {
  writeFileSync(BLOCKLIST_PATH, fresh);
  console.error(`wrote ${BLOCKLIST_PATH}`);
}
