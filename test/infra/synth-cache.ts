/**
 * The synthesis cache: dev, staging and prod exactly as `synthStage(stage)` builds them (no extra
 * context), synthesized once into `.cache/synth/<key>/<stage>.json`, the key a hash of every file
 * they are built from, and reused while none of those changes. The infra tests read the JSON
 * (template, logical ids by construct path, what cdk-nag and the stack report) and build no app;
 * a test that needs other context still calls `synthStage`.
 *
 * Nothing here imports the CDK: the synthesis runs in a child process (synth-cache-build.ts), once,
 * from the global setup of the projects that hold infra tests, or from the first reader.
 */

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StageConfig } from '../../lib/stage-config';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SYNTH_CACHE = join(ROOT, '.cache', 'synth');

/** What the stages are built from: the app, the functions it bundles, the packages it reads, the CDK's version, this cache. */
const INPUTS = [
  'bin',
  'lib',
  'functions',
  'codegen',
  'packages',
  'cdk.json',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'test/infra/synth.ts',
  'test/infra/synth-cache.ts',
  'test/infra/synth-cache-build.ts',
];
const SKIPPED = /(^|\/)(node_modules|dist)(\/|$)/;

/** One stage as the cache holds it. */
export interface CachedStageJson {
  readonly stackName: string;
  readonly terminationProtection: boolean;
  /** The stage's settings (lib/stage-config.ts) as the stack read them. */
  readonly config: StageConfig;
  readonly template: Record<string, unknown>;
  /** Every CloudFormation element's logical id, by construct path below the stack (`Tables/Users/Resource`). */
  readonly logicalIds: Record<string, string>;
  /** The stack's own `aws:cdk:warning` metadata. */
  readonly warnings: string[];
  /** Every cdk-nag acknowledgement in the stack: rule and reason. */
  readonly acknowledged: [string, string][];
  /** cdk-nag's findings that nothing acknowledges (`rule: construct paths`). */
  readonly nagViolations: string[];
  /** The logical ids of the alarms each part of the stack keeps, in its order. */
  readonly alarms: { monitoring: string[]; releaseWide: string[]; lifecycleEvents: string[]; versions: string[] };
  /** Each pre-traffic hook's logical id, by the name its release was added with. */
  readonly hooks: Record<string, string>;
}

const files = (input: string): string[] => {
  const path = join(ROOT, input);
  if (!existsSync(path)) return [];
  if (statSync(path).isFile()) return [input];
  return (readdirSync(path, { recursive: true }) as string[])
    .map((file) => `${input}/${file}`)
    .filter((file) => !SKIPPED.test(file) && statSync(join(ROOT, file)).isFile());
};

/** The hash of every input file's path and content. */
export function synthCacheKey(): string {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(files).sort())
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(ROOT, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 20);
}

let ready: string | undefined;

/** The folder of the current key's stages, synthesized first when the cache has none (older keys removed). */
export function synthCacheDir(): string {
  if (ready) return ready;
  const dir = join(SYNTH_CACHE, synthCacheKey());
  if (!existsSync(join(dir, 'complete'))) {
    const run = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'test/infra/synth-cache-build.ts'), dir],
      {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    if (run.status !== 0 || !existsSync(join(dir, 'complete'))) {
      throw new Error(`the synthesis cache's build stopped (exit ${run.status ?? run.signal}):\n${run.stderr || run.stdout}`);
    }
    const key = basename(dir);
    for (const old of readdirSync(SYNTH_CACHE)) if (!old.startsWith(key)) rmSync(join(SYNTH_CACHE, old), { recursive: true, force: true });
  }
  ready = dir;
  return dir;
}

/** One stage's record from the cache; throws what its synthesis threw, when it failed. */
export function readCachedStage(stage: string): CachedStageJson {
  const dir = synthCacheDir();
  if (existsSync(join(dir, `${stage}.error`))) {
    throw new Error(`UserManagement-${stage} failed to synthesize (.cache/synth):\n${readFileSync(join(dir, `${stage}.error`), 'utf8')}`);
  }
  return JSON.parse(readFileSync(join(dir, `${stage}.json`), 'utf8')) as CachedStageJson;
}
