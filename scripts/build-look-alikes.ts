/**
 * `npm run build:look-alikes`: writes functions/shared/domain/generated/look-alikes.ts from
 * codegen/look-alikes.ts; `--check` exits 1 when the committed file differs from what this would write.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { buildLookAlikesModule, LOOK_ALIKES_PATH } from '../codegen/look-alikes';

const fresh = buildLookAlikesModule();
if (process.argv.includes('--check')) {
  if (readFileSync(LOOK_ALIKES_PATH, 'utf8') !== fresh) {
    console.error(`${LOOK_ALIKES_PATH} is out of date: run npm run build:look-alikes`);
    process.exit(1);
  }
} else {
  writeFileSync(LOOK_ALIKES_PATH, fresh);
  console.error(`wrote ${LOOK_ALIKES_PATH}`);
}
