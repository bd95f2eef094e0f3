/**
 * `npx tsx bench/blocklist-lookup.ts`: what the blocklist's encoding costs a look-up and a cold
 * start, against the sorted 6-byte digests it replaced (built here from the same list, as the
 * generator built them). The look-up of a value already hashed, and the SHA-256 that makes the
 * value, as CPU per call: the lowest of 7 rounds over the same 300,000 random 16-character
 * passwords (a look-up is far below what the clock resolves around one call). Reading each file in
 * this warm process (median of 60, alternately), and the coded set's index check when it is opened.
 * Prints its figures, one a line, for a record (docs/measurements/, `npm run figures -- --record`).
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { comparisonForm } from '#domain/comparison-form';
import { BLOCKLIST_LAYOUT } from '#domain/generated/blocklist';
import { golombSetValue, openGolombSet } from '#domain/golomb-set';
import { BLOCKLIST_DATA_PATH, sourceEntries } from '../codegen/blocklist';
import { median, round } from './stats';

const ROUNDS = 7;
const PASSWORDS = 300_000;

/** Microseconds of CPU per call of `each` over `items`, the lowest of the rounds. */
function cpuMicros<T>(items: readonly T[], each: (item: T) => unknown): number {
  let lowest = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.cpuUsage();
    for (const item of items) each(item);
    const used = process.cpuUsage(start);
    lowest = Math.min(lowest, (used.user + used.system) / items.length);
  }
  return lowest;
}

// The replaced encoding: the first 6 bytes of SHA-256 of each comparison form, sorted, repeats dropped.
const forms = [...new Set(sourceEntries().map(comparisonForm))];
const digestValues = [...new Set(forms.map((form) => golombSetValue(form, 48)))].sort((a, b) => a - b);
const digests = Buffer.alloc(digestValues.length * 6);
for (const [i, value] of digestValues.entries()) digests.writeUIntBE(value, i * 6, 6);
const binarySearch = (wanted: number): boolean => {
  let low = 0;
  let high = digestValues.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = digests.readUIntBE(middle * 6, 6);
    if (found === wanted) return true;
    if (found < wanted) low = middle + 1;
    else high = middle - 1;
  }
  return false;
};

const coded = readFileSync(BLOCKLIST_DATA_PATH);
const openedAt = performance.now();
const has = openGolombSet(coded, BLOCKLIST_LAYOUT, 'blocklist.bin');
const firstOpenMs = performance.now() - openedAt;

const passwords = Array.from({ length: PASSWORDS }, () => randomBytes(12).toString('base64'));
const full = passwords.map((password) => golombSetValue(password, 48));
const prefixes = full.map((value) => Math.floor(value / 2 ** (48 - BLOCKLIST_LAYOUT.valueBits)));

const hashMicros = cpuMicros(passwords, (password) => golombSetValue(password, BLOCKLIST_LAYOUT.valueBits));
const codedMicros = cpuMicros(prefixes, has);
const digestMicros = cpuMicros(full, binarySearch);

const dir = mkdtempSync(join(tmpdir(), 'wlum-blocklist-'));
const reads = { coded: [] as number[], digests: [] as number[] };
const opens: number[] = [];
try {
  const digestFile = join(dir, 'digests.bin');
  writeFileSync(digestFile, digests);
  for (let i = 0; i < 60; i++) {
    for (const [name, file] of [
      ['coded', BLOCKLIST_DATA_PATH],
      ['digests', digestFile],
    ] as const) {
      const start = performance.now();
      readFileSync(file);
      reads[name].push(performance.now() - start);
    }
    const start = performance.now();
    openGolombSet(coded, BLOCKLIST_LAYOUT, 'blocklist.bin');
    opens.push(performance.now() - start);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const [one, five, fifteen] = loadavg().map((load) => round(load, 1));
console.log(`load average: ${one} ${five} ${fifteen}`);
console.log(`coded set: ${coded.length} bytes; look-up of a hashed value: ${round(codedMicros, 2)} µs CPU`);
console.log(`6-byte digests: ${digests.length} bytes; binary search of a hashed value: ${round(digestMicros, 2)} µs CPU`);
console.log(`SHA-256 of a 16-character form, to a value: ${round(hashMicros, 2)} µs CPU`);
console.log(
  `read in a warm process, median of 60: coded set ${round(median(reads.coded), 2)} ms, 6-byte digests ${round(median(reads.digests), 2)} ms`,
);
console.log(`index check on opening: first ${round(firstOpenMs, 2)} ms, then a median of ${round(median(opens), 3)} ms`);
