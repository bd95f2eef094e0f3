/**
 * `npm run build:blocklist`: writes functions/shared/domain/generated/blocklist.ts and blocklist.bin from
 * codegen/blocklist.ts; `--check` exits 1 when the committed file differs from what this would write.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { BLOCKLIST_DATA_PATH, BLOCKLIST_PATH, buildBlocklist } from '../codegen/blocklist';

const { module, data } = buildBlocklist();
if (process.argv.includes('--check')) {
  if (readFileSync(BLOCKLIST_PATH, 'utf8') !== module || !readFileSync(BLOCKLIST_DATA_PATH).equals(data)) {
    console.error(`${BLOCKLIST_PATH} or ${BLOCKLIST_DATA_PATH} is out of date: run npm run build:blocklist`);
    process.exit(1);
  }
} else {
  writeFileSync(BLOCKLIST_PATH, module);
  writeFileSync(BLOCKLIST_DATA_PATH, data);
  console.error(`wrote ${BLOCKLIST_PATH} and ${BLOCKLIST_DATA_PATH}`);
}
