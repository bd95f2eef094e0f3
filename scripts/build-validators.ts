/**
 * `npm run build:validators`: writes functions/shared/contract/generated/validators/ (one module per
 * operation, the e-mail check, an index) from codegen/validators.ts; `--check` exits 1 when a
 * committed file differs from what this would write, is missing, or is left over.
 */

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildValidatorModules, VALIDATORS_DIR } from '../codegen/validators';

const fresh = buildValidatorModules();
mkdirSync(VALIDATORS_DIR, { recursive: true });
const present = readdirSync(VALIDATORS_DIR).filter((name) => name.endsWith('.ts'));
if (process.argv.includes('--check')) {
  const stale = [
    ...Object.entries(fresh)
      .filter(([name, text]) => !present.includes(name) || readFileSync(join(VALIDATORS_DIR, name), 'utf8') !== text)
      .map(([name]) => name),
    ...present.filter((name) => !(name in fresh)),
  ];
  if (stale.length > 0) {
    console.error(`${VALIDATORS_DIR} is out of date (${stale.join(', ')}): run npm run build:validators`);
    process.exit(1);
  }
} else {
  for (const name of present) if (!(name in fresh)) rmSync(join(VALIDATORS_DIR, name));
  for (const [name, text] of Object.entries(fresh)) writeFileSync(join(VALIDATORS_DIR, name), text);
  console.error(`wrote ${VALIDATORS_DIR}`);
}
