/**
 * A package as a stranger gets it: packed from its workspace, installed alone into an empty folder
 * outside the repository by npm on Node.js 20, measured (bytes and packages in node_modules), then
 * used with the Node.js and TypeScript versions the docs name. Nothing here falls back: a missing
 * Node.js 20 fails the test that asked for it.
 */

import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildPackage, packageNamed } from '../../codegen/packages';
import { ROOT } from './processes';

/** The folder {@link ensureNode22} installs the registry's Node.js 22 into (npm's `node` package, as the repository pins 24). */
const NODE22_DIR = join(ROOT, 'node_modules/.cache/stranger-node22');

/** Debian's Node.js 20 (the oldest the packages promise, past its end of life), the registry's 22, and the repository's pinned 24. */
export const NODE_BINARIES = {
  20: '/usr/bin/node',
  22: join(NODE22_DIR, 'node_modules/node/bin/node'),
  24: join(ROOT, 'node_modules/node/bin/node'),
} as const;
export type NodeMajor = keyof typeof NODE_BINARIES;

/** Installs Node.js 22 from the registry (`npm install node@22`, about 8 s) unless it is there. */
export function ensureNode22(): void {
  if (existsSync(NODE_BINARIES[22])) return;
  mkdirSync(NODE22_DIR, { recursive: true });
  writeFileSync(join(NODE22_DIR, 'package.json'), '{"private":true}\n');
  npm(NODE22_DIR, ['install', '--no-audit', '--no-fund', 'node@22']);
}

/** The TypeScript versions docs/clients.md and the packages' READMEs name; 5.9.3 is the repository's own. */
export const TYPESCRIPT_VERSIONS = ['5.9.3', '7.0.2'] as const;
/** The @types/node the docs install (`@types/node@20`, for the oldest Node.js the packages promise). */
export const TYPES_NODE = '@types/node@20';

/** The path of Node.js `major`, after checking that it is there and is that major; throws otherwise. */
export function nodeBinary(major: NodeMajor): string {
  const path = NODE_BINARIES[major];
  if (!existsSync(path)) throw new Error(`Node.js ${major} is expected at ${path}, and there is nothing there`);
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!version.startsWith(`v${major}.`)) throw new Error(`Node.js ${major} is expected at ${path}, which is ${version || 'not runnable'}`);
  return path;
}

/**
 * The environment a stranger's shell would have: no npm_* variables from the `npm test` that runs
 * us, no node_modules/.bin of this repository on PATH, and `node` (so npm's) being Node.js `major`.
 */
export function strangerEnv(major: NodeMajor, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name) && name !== 'INIT_CWD') env[name] = value;
  const path = (process.env.PATH ?? '').split(':').filter((dir) => dir !== '' && !dir.includes('node_modules'));
  return { ...env, PATH: [dirname(nodeBinary(major)), ...path].join(':'), ...extra };
}

/** A new empty folder outside the repository. */
export const emptyFolder = (tag: string) => mkdtempSync(join(tmpdir(), `stranger-${tag}-`));

/** Throws with the command's output when it failed. */
function succeeded(what: string, run: SpawnSyncReturns<string>): SpawnSyncReturns<string> {
  if (run.status !== 0) throw new Error(`${what} exited ${run.status ?? run.signal}:\n${run.stdout}\n${run.stderr}`);
  return run;
}

/** Runs npm in `cwd` as a stranger would, on Node.js 20. */
export function npm(cwd: string, args: readonly string[], timeout = 180_000) {
  return succeeded(`npm ${args.join(' ')}`, spawnSync('npm', args, { cwd, env: strangerEnv(20), encoding: 'utf8', timeout }));
}

/**
 * Packs the workspace `name` as the repository ships it: its package.json, README.md and
 * CHANGELOG.md copied to a folder of its own, its dist/ built there by the same build its workspace
 * script runs (so a concurrent build of the workspace's own dist/ cannot race this), then `npm pack`.
 */
export async function packWorkspace(name: string, destination: string): Promise<{ tarball: string; files: string[] }> {
  const spec = packageNamed(name);
  const stage = emptyFolder(`pack-${name}`);
  for (const file of ['package.json', 'README.md', 'CHANGELOG.md']) cpSync(join(ROOT, spec.dir, file), join(stage, file));
  try {
    await buildPackage(ROOT, spec, stage);
    const packed = npm(stage, ['pack', '--json', '--pack-destination', destination]);
    const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
    return { tarball: join(destination, filename), files: files.map((f) => f.path).sort() };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** What an install left in `dir`: bytes of every file under node_modules, and the packages npm installed (its hidden lockfile). */
export function footprint(dir: string) {
  let bytes = 0;
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) bytes += statSync(path).size;
    }
  };
  walk(join(dir, 'node_modules'));
  const lock = JSON.parse(readFileSync(join(dir, 'node_modules/.package-lock.json'), 'utf8')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  const packages = Object.entries(lock.packages).filter(([path]) => path !== '');
  return {
    bytes,
    packages: packages.map(([path]) => path.replace(/^node_modules\//, '')).sort(),
    withInstallScripts: packages.filter(([, p]) => p.hasInstallScript).map(([path]) => path),
  };
}

/**
 * A new folder outside the repository holding only `packageJson` (the docs' consumer file), into
 * which npm on Node.js 20 installs `specs` and nothing else; returns the folder, npm's output and
 * what the install left.
 */
export function installAlone(tag: string, packageJson: string, specs: readonly string[]) {
  const dir = emptyFolder(tag);
  writeFileSync(join(dir, 'package.json'), packageJson);
  const run = npm(dir, ['install', '--no-audit', '--no-fund', ...specs]);
  return { dir, output: `${run.stdout}${run.stderr}`, ...footprint(dir) };
}

/** The fenced block right after `<!-- marker -->` in a Markdown text; throws when there is none. */
export function markedBlock(markdown: string, marker: string): string {
  const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = new RegExp(`<!-- ${escaped} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\``).exec(markdown)?.[1];
  if (found === undefined) throw new Error(`no fenced block after <!-- ${marker} -->`);
  return found;
}

/**
 * Runs TypeScript `version` on `project` in `dir`: the repository's own compiler when it is that
 * version, else the one installed in `dir` (checked to be that version).
 */
export function tsc(dir: string, version: string, project: string) {
  const versionOf = (folder: string) => (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string }).version;
  const own = join(ROOT, 'node_modules/typescript');
  const installed = join(dir, 'node_modules/typescript');
  const folder = versionOf(own) === version ? own : installed;
  if (!existsSync(join(folder, 'package.json')) || versionOf(folder) !== version)
    throw new Error(`TypeScript ${version} is neither the repository's nor installed in ${dir}`);
  return spawnSync(nodeBinary(24), [join(folder, 'bin/tsc'), '-p', project], { cwd: dir, encoding: 'utf8', timeout: 240_000 });
}

/** The clone and the folder the packages' READMEs pack into, in their install blocks. */
export const DOCUMENTED_CLONE = '/path/to/white-label-user-management';
export const DOCUMENTED_PACKS = '/tmp/wlum';

/**
 * A README's install block as the lines a reader pastes, in order, as written but for two paths:
 * the clone (this repository) and the pack folder (`packs`, the test's own). Its pack line must be
 * there: the block is followed from an empty folder, so nothing else makes the tarball.
 */
export function installLines(block: string, packs: string): string[] {
  const lines = block.trim().split('\n');
  if (!lines.some((line) => line.includes(`cd ${DOCUMENTED_CLONE} && `) && line.includes(`npm pack -w packages/`)))
    throw new Error(`the install block packs nothing in ${DOCUMENTED_CLONE}:\n${block}`);
  const root = ROOT.replace(/\/$/, '');
  return lines.map((line) => line.replaceAll(DOCUMENTED_CLONE, root).replaceAll(DOCUMENTED_PACKS, packs));
}

/** A command's stderr less npm's notices (npm pack lists the tarball's files there) and EBADENGINE warnings. */
export const npmErrors = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => !line.startsWith('npm notice'))
    .join('\n')
    .replace(/npm warn EBADENGINE[\s\S]*$/, '')
    .trim();
