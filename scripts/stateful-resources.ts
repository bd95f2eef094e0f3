/**
 * `npm run stateful-resources`: synthesizes every stage and compares its stateful resources (tables,
 * keys, topics, log groups, queues, secrets, the roles other accounts assume) with the record in lib/stateful-resources/<stage>.json;
 * exit 1, one line per resource that a deploy would replace, rename or remove (or that is new).
 * `-- --write`: writes the record from the stages as they are now. Do that only on purpose, for a
 * change you mean (a new table, say), and say so in the commit: CONTRIBUTING.md, "Stateful resources".
 */

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAGES } from '../lib/stage-config';
import { compareStateful, RECORD_DIR, readRecord, recordPath, synthesizeForRecord } from '../lib/stateful-resources';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const write = process.argv.includes('--write');
let problems = 0;
mkdirSync(RECORD_DIR, { recursive: true });
for (const stage of STAGES) {
  const { record } = synthesizeForRecord(stage);
  const path = recordPath(stage);
  if (write) {
    writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
    console.log(`wrote ${relative(ROOT, path)} (${Object.keys(record.resources).length} stateful resources)`);
    continue;
  }
  for (const line of compareStateful(readRecord(stage), record)) {
    console.error(line);
    problems += 1;
  }
}
if (write) {
  // As the repository's formatter writes JSON, so that npm run lint:ci stays clean after a rewrite.
  const biome = spawnSync(`${ROOT}node_modules/.bin/biome`, ['format', '--write', ...STAGES.map(recordPath)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (biome.status !== 0) {
    console.error(`biome format failed on the record: ${biome.stderr.split('\n')[0]}`);
    process.exitCode = 1;
  }
}
if (!write) {
  console.log(problems === 0 ? 'every stateful resource of every stage is kept' : `${problems} finding(s)`);
  process.exitCode = problems === 0 ? 0 : 1;
}
