/**
 * `npm run bench [-- --json] [-- --quick] [-- --only NAME[,NAME]]`: runs each measurement of
 * bench/measurements/ in turn (bench/measurement.ts says what one is) with the shared context it needs
 * (bench/context.ts), judges every target (ratios within the run, so a shared machine's speed cancels
 * out), writes the report as data to bench/RESULTS.json and rendered from that data to
 * bench/RESULTS.md, and prints the Markdown (or, with --json, the JSON; progress goes to stderr). The
 * run is bounded. `--only` runs the measurements named (their keys in the report) and prints their
 * report without rewriting bench/RESULTS.*, which stay the last whole run.
 */

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatArgon2Setting, parseArgon2Setting } from '#platform/config';
import { createContext } from './context';
import type { BenchReport, LoadAverage, RunMeta } from './measurement';
import { MEASUREMENTS } from './measurements/index';
import { type AnyMeasurement, assembleReport, renderReport, reportJson } from './report';
import { progress, round } from './stats';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The whole run is bounded: past this, children are stopped and the bench fails. */
const DEADLINE_MS = 420_000;

async function main() {
  if (Number(process.versions.node.split('.')[0]) < 24)
    throw new Error(`Node 24 expected (run it with npm run bench), got ${process.version}`);
  const json = process.argv.includes('--json');
  /** `--quick`: fewer requests of everything (about a third), for a machine too busy for the full run; figures are noisier. */
  const quick = process.argv.includes('--quick');
  /** The argon2id setting the service runs with: ARGON2_SETTING as the stack sets it, else the default. */
  const setting = parseArgon2Setting(process.env.ARGON2_SETTING, 'ARGON2_SETTING');
  const only = selected(process.argv);
  const measurements = only ? MEASUREMENTS.filter((measurement) => only.includes(measurement.name)) : MEASUREMENTS;
  const started = performance.now();
  const loadBefore = loadAverage();
  const context = createContext({ root: ROOT, quick, setting, deadlineMs: DEADLINE_MS, warmCycles: quick ? 500 : 1_500 });
  try {
    for (const [i, measurement] of measurements.entries()) {
      await context.provide(measurement.needs);
      progress(`${measurement.name}: ${measurement.title}`);
      const began = performance.now();
      context.results.set(measurement.name, await measurement.run(context));
      progress(`  ${measurement.name} took ${round((performance.now() - began) / 1000, 1)} s`);
      await context.release(measurements.slice(i + 1).flatMap((later) => later.needs));
    }
  } finally {
    await context.close();
  }
  const meta: RunMeta = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: availableParallelism(),
    quick,
    durationS: round((performance.now() - started) / 1000, 1),
    loadAverage: { before: loadBefore, after: loadAverage() },
    argon2Setting: formatArgon2Setting(setting),
    ...gitState(),
    ...(only && { only }),
  };
  const report = assembleReport(meta, measurements, context.results);
  const data = reportJson(report);
  // The Markdown is rendered from the data as written, so that RESULTS.json alone reproduces it.
  const markdown = renderReport(JSON.parse(data) as BenchReport, measurements);
  if (only) {
    await new Promise((resolve) => process.stdout.write(json ? data : markdown, resolve));
    return progress(`done in ${meta.durationS} s (${only.join(', ')} only; bench/RESULTS.* left as they were)`);
  }
  writeFileSync(join(ROOT, 'bench', 'RESULTS.json'), data);
  writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), markdown);
  await new Promise((resolve) => process.stdout.write(json ? data : markdown, resolve));
  progress(`done in ${meta.durationS} s; bench/RESULTS.json and bench/RESULTS.md rewritten`);
}

/** `--only NAME[,NAME]`: the measurements to run, each a key of the report; undefined for all of them. */
function selected(argv: readonly string[]): string[] | undefined {
  const at = argv.indexOf('--only');
  if (at < 0) return undefined;
  const names = (argv[at + 1] ?? '').split(',').filter((name) => name !== '');
  const known = MEASUREMENTS.map((measurement: AnyMeasurement) => measurement.name);
  const unknown = names.filter((name) => !known.includes(name));
  if (names.length === 0 || unknown.length > 0)
    throw new Error(`--only takes measurements by name (${known.join(', ')})${unknown.length ? `; not one: ${unknown.join(', ')}` : ''}`);
  return names;
}

function loadAverage(): LoadAverage {
  const [oneMinute, fiveMinutes, fifteenMinutes] = loadavg().map((load) => round(load, 2));
  return { oneMinute: oneMinute!, fiveMinutes: fiveMinutes!, fifteenMinutes: fifteenMinutes! };
}

/** The commit measured, and whether anything but the results differed from it (null outside a git checkout). */
function gitState(): Pick<RunMeta, 'gitCommit' | 'gitDirty'> {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const commit = git('rev-parse', 'HEAD');
    const changes = git('status', '--porcelain', '--', '.', ':(exclude)bench/RESULTS.md', ':(exclude)bench/RESULTS.json');
    return { gitCommit: commit, gitDirty: changes !== '' };
  } catch {
    return { gitCommit: null, gitDirty: null };
  }
}

main().then(
  // Nothing may keep the process alive once the report is out (a client's sockets, a timer).
  () => process.exit(0),
  (error: Error) => {
    progress(`failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
