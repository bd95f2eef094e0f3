/**
 * `npm run build:validators`: writes functions/shared/contract/generated/validators.ts from
 * codegen/validators.ts; `--check` exits 1 when the committed file
 * differs from what this would write.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { buildValidatorsModule, VALIDATORS_PATH } from '../codegen/validators';

const fresh = buildValidatorsModule();
if (process.argv.includes('--check')) {
  const current = readFileSync(VALIDATORS_PATH, 'utf8');
  if (current !== fresh) {
    console.error(`${VALIDATORS_PATH} is out of date: run npm run build:validators`);
    process.exit(1);
  }
} else {
  writeFileSync(VALIDATORS_PATH, fresh);
  console.error(`wrote ${VALIDATORS_PATH}`);
}
