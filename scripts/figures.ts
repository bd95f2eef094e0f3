/**
 * `npm run figures`: every figure of the docs against its source (docs/figures.json, ADR 21); exit 1
 * naming each one that does not hold.
 * `npm run figures -- --write`: rewrite the docs' figures (and the registry's copies) from their
 * sources, e.g. after a new committed bench run, then check.
 * `npm run figures -- --list`: the figures the registry does not know yet, each with a context to
 * paste into a new entry.
 * `npm run figures -- --record <name> -- <command...>`: run a command and keep its output as a
 * dated record, docs/measurements/<today>-<name>.json (add its `values` by hand).
 */

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkFigures,
  figureDocuments,
  figuresIn,
  locate,
  MEASUREMENTS,
  type MeasurementRecord,
  REGISTRY,
  readRegistry,
  rewriteFigures,
  suggestContext,
} from '../codegen/figures';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function check(): number {
  const { claims, problems } = checkFigures(ROOT);
  for (const problem of problems) console.error(problem);
  console.log(`${claims} figures and record values checked, ${problems.length} problems`);
  return problems.length === 0 ? 0 : 1;
}

function write(): number {
  const { documents, registry, changed } = rewriteFigures(ROOT);
  for (const [file, text] of Object.entries(documents)) {
    if (readFileSync(join(ROOT, file), 'utf8') !== text) writeFileSync(join(ROOT, file), text);
  }
  writeFileSync(join(ROOT, REGISTRY), `${JSON.stringify(registry, null, 2)}\n`);
  for (const line of changed) console.log(line);
  console.log(`${changed.length} figures rewritten`);
  return check();
}

function list(): number {
  const registry = readRegistry(ROOT);
  let unknown = 0;
  for (const file of figureDocuments(ROOT)) {
    const markdown = readFileSync(join(ROOT, file), 'utf8');
    const known = new Set(
      (registry[file] ?? []).flatMap((entry) => {
        const place = locate(markdown, entry);
        return 'error' in place ? [] : [place.index];
      }),
    );
    for (const found of figuresIn(markdown).filter((figure) => !known.has(figure.index))) {
      unknown++;
      const entry = { figure: found.text.replace(/\s+/g, ' '), context: suggestContext(markdown, found), source: null };
      console.log(`${file}:${found.line}: ${JSON.stringify(entry)}`);
    }
  }
  console.log(`${unknown} figures without an entry`);
  return 0;
}

function record(name: string | undefined, command: string[]): number {
  if (!name || !/^[a-z0-9-]+$/.test(name) || command.length === 0) {
    console.error('usage: npm run figures -- --record <name> -- <command...>');
    return 2;
  }
  const date = new Date().toISOString();
  const file = join(MEASUREMENTS, `${date.slice(0, 10)}-${name}.json`);
  if (existsSync(join(ROOT, file))) {
    console.error(`${file} exists: records are not overwritten`);
    return 1;
  }
  const run = spawnSync(command[0]!, command.slice(1), { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) {
    console.error(`${command.join(' ')} exited ${run.status ?? run.signal}: nothing recorded`);
    return 1;
  }
  const kept: MeasurementRecord = { command: command.join(' '), date, conditions: '', raw: run.stdout, values: {} };
  writeFileSync(join(ROOT, file), `${JSON.stringify(kept, null, 2)}\n`);
  console.log(`${file}: add its conditions, and a pattern per value the docs quote`);
  return 0;
}

const args = process.argv.slice(2);
const at = args.indexOf('--record');
process.exitCode =
  at >= 0
    ? record(args[at + 1], args.slice(args.indexOf('--') + 1))
    : args.includes('--write')
      ? write()
      : args.includes('--list')
        ? list()
        : check();
