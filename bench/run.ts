/**
 * `npm run bench [-- --json] [-- --only NAME] [-- --small]`: a loop over bench/measurements/*.ts,
 * each file one measurement named by its file, its targets beside it (bench/kit.ts). Writes
 * bench/RESULTS.json and bench/RESULTS.md and prints the Markdown; `--json` prints every target with
 * `met` instead. `--only NAME` runs one measurement and rewrites nothing. `--small` is a dry run
 * (a few steps of each) that proves the bench end to end; it rewrites nothing either.
 */

import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatArgon2Setting } from '#platform/config';
import { markdownTable } from '../codegen/markdown-table';
import { createEnv } from './env';
import { type Measurement, round, type Target } from './kit';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIR = join(ROOT, 'bench', 'measurements');
/** A run is bounded: past this, every child is stopped and the bench fails. */
const DEADLINE_MS = 15 * 60_000;

async function main() {
  const argv = process.argv.slice(2);
  const json = argv.includes('--json');
  const small = argv.includes('--small');
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
  const names = readdirSync(DIR)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => basename(file, '.ts'))
    .sort();
  if (only !== undefined && !names.includes(only)) throw new Error(`--only takes one of: ${names.join(', ')}`);
  const env = createEnv(ROOT, small);
  setTimeout(() => {
    env.progress(`gave up after ${DEADLINE_MS / 1000} s`);
    void env.close().finally(() => process.exit(2));
  }, DEADLINE_MS).unref();
  const started = performance.now();
  const load = [loadavg()[0]!];
  const results: Record<string, Target[]> = {};
  try {
    for (const name of only ? [only] : names) {
      const { measurement } = (await import(join(DIR, `${name}.ts`))) as { measurement: Measurement };
      env.progress(`${name}: ${measurement.title}`);
      const began = performance.now();
      results[name] = await measurement.run(env);
      env.progress(`  ${name} took ${round((performance.now() - began) / 1000, 1)} s`);
    }
  } finally {
    await env.close();
  }
  load.push(loadavg()[0]!);
  const meta = {
    date: new Date().toISOString(),
    commit: git('rev-parse', 'HEAD'),
    dirty: git('status', '--porcelain', '--', '.', ':(exclude)bench/RESULTS.*') !== '',
    node: process.version,
    cpu: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    loadAverage: { before: round(load[0]!, 2), after: round(load[1]!, 2) },
    argon2Setting: formatArgon2Setting(env.setting),
    durationS: round((performance.now() - started) / 1000, 1),
    ...(small && { small }),
    ...(only && { only }),
  };
  const report = { meta, targets: results };
  const markdown = render(report);
  if (!only && !small) {
    writeFileSync(join(ROOT, 'bench', 'RESULTS.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), markdown);
  }
  await new Promise((resolve) => process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : markdown, resolve));
  env.progress(`done in ${meta.durationS} s${only || small ? '; bench/RESULTS.* left as they were' : ''}`);
}

function git(...args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** bench/RESULTS.md: the run, then one table of every target. */
function render(report: {
  meta: Record<string, unknown> & { loadAverage: { before: number; after: number } };
  targets: Record<string, Target[]>;
}): string {
  const { meta } = report;
  const rows = Object.entries(report.targets).flatMap(([name, targets]) =>
    targets.map((t) => {
      const range = t.range ? ` (${t.range[0]} to ${t.range[1]})` : '';
      const met = t.met === null ? '—' : t.met ? 'yes' : '**no**';
      return [name, t.target, `${t.value}${range} ${t.unit}`, String(t.limit ?? '—'), String(t.floor ?? ''), met];
    }),
  );
  return `# Bench results

\`npm run bench\` on ${meta.date} at ${String(meta.commit ?? 'unknown').slice(0, 12)}${meta.dirty ? ' (with uncommitted changes)' : ''}: Node ${meta.node}, ${meta.cpu}, argon2id ${meta.argon2Setting}, ${meta.durationS} s, load average ${meta.loadAverage.before} before and ${meta.loadAverage.after} after. bench/README.md says how to read it.

${markdownTable(['measurement', 'target', "measured (rounds' range)", 'limit', 'floor', 'met'], rows)}
`;
}

main().then(
  // Nothing may keep the process alive once the report is out (a client's sockets, a timer).
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`[bench] failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
