/**
 * `npm run build:case-folding`: writes functions/shared/domain/generated/case-folding.ts from
 * codegen/case-folding.ts; `--check` exits 1 when the committed file differs from what this would write.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { buildCaseFoldingModule, CASE_FOLDING_PATH } from '../codegen/case-folding';

const fresh = buildCaseFoldingModule();
if (process.argv.includes('--check')) {
  if (readFileSync(CASE_FOLDING_PATH, 'utf8') !== fresh) {
    console.error(`${CASE_FOLDING_PATH} is out of date: run npm run build:case-folding`);
    process.exit(1);
  }
} else {
  writeFileSync(CASE_FOLDING_PATH, fresh);
  console.error(`wrote ${CASE_FOLDING_PATH}`);
}
