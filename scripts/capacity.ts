/**
 * `npm run capacity [-- --stage prod] [-- --markdown | --write-doc] [-- --run bench/RESULTS.json]`: what
 * one stack serves per request kind, the first limit each meets, its latency and its cost per
 * million, and the hot keys, from the committed bench run and AWS's documented limits
 * (capacity/aws-limits.json). `--write-doc` rewrites the generated blocks of docs/capacity.md (the
 * tables stay pending while the run lacks a figure the model reads).
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type AwsLimitsFile, awsFigures, readAwsLimits } from '../capacity/aws';
import { DOC_PATH, PENDING, sourcesBlock, withBlock } from '../capacity/doc';
import { BenchKeyError, readBench } from '../capacity/inputs';
import { docBlock, type Model, renderMarkdown, renderText, runModel } from '../capacity/report';
import { memoryOf, stackSettings } from '../capacity/stack';
import { STAGES, type StageName } from '../lib/stage-config';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A mistake in the command line or the inputs: one line, no stack trace. */
class UsageError extends Error {}

/** The bench run at `path`, parsed; the model's inputs read from it. */
function benchRun(path: string, shown: string) {
  if (!existsSync(path)) throw new UsageError(`${shown} is missing: run npm run bench first (docs/capacity.md)`);
  let report: unknown;
  try {
    report = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new UsageError(`${shown} is not JSON: run npm run bench again`);
  }
  return readBench(report, shown);
}

const modelOf = (bench: ReturnType<typeof readBench>, stage: StageName, file: AwsLimitsFile): Model =>
  runModel(bench, stackSettings(stage), memoryOf, file, awsFigures(file));

function writeDoc(runPath: string, shown: string, stage: StageName, file: AwsLimitsFile): string {
  let tables = PENDING;
  let said: string;
  try {
    const bench = benchRun(runPath, shown);
    tables = docBlock(modelOf(bench, stage, file), bench.date, file);
    said = `the tables from ${shown} (${bench.date})`;
  } catch (error) {
    if (!(error instanceof BenchKeyError || error instanceof UsageError)) throw error;
    said = `the tables left pending (${error.message})`;
  }
  const doc = join(ROOT, DOC_PATH);
  writeFileSync(doc, withBlock(withBlock(readFileSync(doc, 'utf8'), 'tables', tables), 'sources', sourcesBlock(file)));
  return `${DOC_PATH}: ${said}; the sources from capacity/aws-limits.json\n`;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      stage: { type: 'string', default: 'prod' },
      run: { type: 'string', default: 'bench/RESULTS.json' },
      markdown: { type: 'boolean', default: false },
      'write-doc': { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!(STAGES as readonly string[]).includes(values.stage)) throw new UsageError(`--stage must be one of ${STAGES.join(', ')}`);
  const stage = values.stage as StageName;
  const file = readAwsLimits();
  const runPath = resolve(ROOT, values.run);
  if (values['write-doc']) {
    process.stdout.write(writeDoc(runPath, values.run, stage, file));
    return;
  }
  const model = modelOf(benchRun(runPath, values.run), stage, file);
  process.stdout.write(values.markdown ? `${renderMarkdown(model)}\n` : renderText(model, awsFigures(file).aws));
}

try {
  main();
} catch (error) {
  const known =
    error instanceof UsageError || error instanceof BenchKeyError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`capacity: ${known ? (error as Error).message : `failed: ${(error as Error).message}`}\n`);
  process.exit(known ? 2 : 1);
}
