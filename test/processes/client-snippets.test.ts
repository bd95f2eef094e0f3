/**
 * docs/clients.md followed in the order written, as a stranger would: every fenced block of the page,
 * in its order, copied byte for byte into a new folder outside the repository (its package.json, the
 * install lines with the tarball packed from the workspace in place of the documented clone, the
 * TypeScript install, its tsconfig.json, each example file, each run line against a fresh
 * `npm start`, twice), each printed output compared with the page's. On Node.js 20, 22 and 24. A
 * block the walk does not know fails it, so a snippet added to the page is a snippet run. Then the
 * one-line errors the page documents, printed by the example itself.
 */

import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { freePort } from '../../local/free-port';
import { killStartedScripts, ROOT, startScript } from '../support/processes';
import { emptyFolder, ensureNode22, type NodeMajor, nodeBinary, packWorkspace, strangerEnv } from '../support/stranger';

jest.setTimeout(900_000);
const doc = readFileSync(join(ROOT, 'docs/clients.md'), 'utf8');
const DOCUMENTED_CLONE_STEP =
  'cd /path/to/white-label-user-management && npm install && npm pack -w packages/client --pack-destination /tmp';
const DOCUMENTED_TARBALL = '/tmp/white-label-user-management-client-1.0.0.tgz';
const DOCUMENTED_PROJECT = '/path/to/your-project';
const DOCUMENTED_BASE_URL = 'http://127.0.0.1:3000';
const DOCUMENTED_KEY = 'wlk_...';
/** The file each example block is saved as: the page names it. */
const SAVED_AS: Record<string, string> = { 'client example': 'example.ts', 'client calls': 'calls.ts' };

const service = emptyFolder('client-snippets-service');
const folders: string[] = [service];
let tarball: string;
let apiKey: string;
let baseUrl: string;

/** Every fenced block of a Markdown text, in order, with the `<!-- marker -->` right above it (if any). */
function fencedBlocks(markdown: string): { marker: string | undefined; body: string }[] {
  return [...markdown.matchAll(/(?:<!-- (.+?) -->\n)?```[a-z]*\n([\s\S]*?)```/g)].map((m) => ({ marker: m[1], body: m[2]! }));
}

/** The page's prose with its line breaks and indentation folded, to find a documented line in it. */
const prose = doc.replace(/\s+/g, ' ');

/** An output with its per-run parts (a random e-mail's suffix, a generated password) replaced by placeholders. */
const generic = (output: string) =>
  output
    .replace(/-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@/g, '-<uuid>@')
    .replace(/(with password )[A-Za-z0-9_-]{24}\n/g, '$1<password>\n');

beforeAll(async () => {
  ensureNode22();
  const { DYNAMODB_ENDPOINT: _endpoint, EVENTS_FILE: _events, ...inherited } = process.env;
  const env = {
    ...inherited,
    PORT: String(await freePort()),
    DYNAMODB_PORT: String(await freePort()),
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  const started = startScript('local/start.ts', env, service);
  ({ tarball } = await packWorkspace('client', service));
  apiKey = (await started.waitFor(/export API_KEY=(wlk_\S+)/, 180_000))[1]!;
  await started.waitFor(/Listening on/, 180_000);
  baseUrl = `http://127.0.0.1:${env.PORT}`;
}, 600_000);

afterAll(() => {
  killStartedScripts();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** Runs one documented command line in `dir` with bash, as a reader pasting it. */
function shell(dir: string, major: NodeMajor, line: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync('bash', ['-c', line], { cwd: dir, env: strangerEnv(major, env), encoding: 'utf8', timeout: 300_000 });
}

/** The documented run line with the test's server and key in place of the page's. */
const withStage = (line: string) => line.replace(DOCUMENTED_BASE_URL, baseUrl).replace(DOCUMENTED_KEY, apiKey);

describe('docs/clients.md, every snippet in the order written', () => {
  it('names the file each example is saved as', () => {
    for (const file of Object.values(SAVED_AS)) expect(doc).toContain(`\`${file}\``);
  });

  it.each([20, 22, 24] as NodeMajor[])(
    'on Node.js %i: installs, compiles, runs each example twice and prints the documented lines',
    (major) => {
      const dir = emptyFolder(`client-snippets-${major}`);
      folders.push(dir);
      const done: string[] = [];
      let runs: SpawnSyncReturns<string>[] = [];
      let bundlerConfig: string | undefined;
      for (const { marker, body } of fencedBlocks(doc)) {
        switch (marker) {
          case 'consumer package.json':
            writeFileSync(join(dir, 'package.json'), body);
            break;
          case 'client install': {
            const [cloneStep, install, ...rest] = body.trim().split('\n');
            expect([cloneStep, rest]).toEqual([DOCUMENTED_CLONE_STEP, []]);
            // The clone's step is the workspace's pack (packWorkspace): it makes the file the page names.
            expect(basename(tarball)).toBe(basename(DOCUMENTED_TARBALL));
            expect(install).toContain(`cd ${DOCUMENTED_PROJECT} && `);
            const run = shell(dir, major, install!.replace(DOCUMENTED_PROJECT, dir).replace(DOCUMENTED_TARBALL, tarball));
            expect([install, run.status, run.stderr]).toEqual([install, 0, '']);
            break;
          }
          case 'typescript install':
            for (const line of body.trim().split('\n')) {
              const run = shell(dir, major, line);
              expect([line, run.status, run.stderr]).toEqual([line, 0, '']);
              // The bug this page had: a package.json written after the installs, and npm then removing the client.
              expect(run.stdout).not.toMatch(/removed \d+ package/);
            }
            break;
          case 'consumer tsconfig.json':
            writeFileSync(join(dir, 'tsconfig.json'), body);
            break;
          case 'consumer tsconfig.json for a bundler':
            // An alternative to the one above, not a step: checked once the example files are there.
            bundlerConfig = body;
            break;
          case 'client example':
          case 'client calls':
            writeFileSync(join(dir, SAVED_AS[marker]!), body);
            break;
          case 'client example run':
          case 'client calls run': {
            const [compile, runLine, ...rest] = body.trim().split('\n');
            expect([compile, rest]).toEqual(['npx tsc', []]);
            const compiled = shell(dir, major, compile!);
            expect([compiled.status, compiled.stdout, compiled.stderr]).toEqual([0, '', '']);
            expect(runLine).toContain(DOCUMENTED_BASE_URL);
            expect(runLine).toContain(DOCUMENTED_KEY);
            runs = [1, 2].map(() => shell(dir, major, withStage(runLine!)));
            break;
          }
          case 'client example output':
          case 'client calls output':
            expect(runs).toHaveLength(2);
            for (const [round, run] of runs.entries())
              expect({ major, marker, round, status: run.status, stdout: generic(run.stdout), stderr: run.stderr }).toEqual({
                major,
                marker,
                round,
                status: 0,
                stdout: generic(body),
                stderr: '',
              });
            // Both runs succeeded; where the output names the run's user, the second run's is another one.
            if (generic(body) !== body) expect(runs[0]!.stdout).not.toBe(runs[1]!.stdout);
            runs = [];
            break;
          default:
            throw new Error(`a snippet this test does not know how to follow: <!-- ${marker ?? 'no marker'} -->\n${body}`);
        }
        done.push(marker!);
      }
      expect(done).toEqual([
        'consumer package.json',
        'client install',
        'typescript install',
        'consumer tsconfig.json',
        'consumer tsconfig.json for a bundler',
        'client example',
        'client example run',
        'client example output',
        'client calls',
        'client calls run',
        'client calls output',
      ]);

      // What the installs wrote stayed: the client beside TypeScript, the module type the page set.
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
      expect(Object.keys(manifest.dependencies ?? {})).toEqual(['@white-label-user-management/client']);
      expect(Object.keys(manifest.devDependencies ?? {}).sort()).toEqual(['@types/node', 'typescript']);
      expect(manifest.type as unknown).toBe('module');

      writeFileSync(join(dir, 'tsconfig.bundler.json'), bundlerConfig!);
      const bundler = shell(dir, major, 'npx tsc -p tsconfig.bundler.json');
      expect([bundler.status, bundler.stdout, bundler.stderr]).toEqual([0, '', '']);
      const typescript = JSON.parse(readFileSync(join(dir, 'node_modules/typescript/package.json'), 'utf8')) as { version: string };
      console.log(
        `docs/clients.md followed on Node.js ${shell(dir, major, 'node --version').stdout.trim()} with TypeScript ${typescript.version}`,
      );
      expect(spawnSync(nodeBinary(major), ['--version'], { encoding: 'utf8' }).stdout).toMatch(new RegExp(`^v${major}\\.`));
    },
  );
});

describe('the errors the page documents, printed by its example as one line', () => {
  const folder = () => folders.at(-1)!;
  const runLine = () =>
    fencedBlocks(doc)
      .find((b) => b.marker === 'client example run')!
      .body.trim()
      .split('\n')[1]!;

  it('a wrong key: the 401 in one line, exit 1', () => {
    const run = shell(folder(), 24, runLine().replace(DOCUMENTED_BASE_URL, baseUrl));
    const line = 'Error: createUser: 401 Unauthorized: Invalid or unauthorized API key.';
    expect([run.status, run.stdout, run.stderr]).toEqual([1, '', `${line}\n`]);
    expect(prose).toContain(line);
  });

  it('BASE_URL and API_KEY not set: one line, exit 1', () => {
    const run = spawnSync(nodeBinary(20), ['example.js'], {
      cwd: folder(),
      env: strangerEnv(20, { BASE_URL: undefined, API_KEY: undefined }),
      encoding: 'utf8',
    });
    const line = 'Error: Set BASE_URL and API_KEY';
    expect([run.status, run.stdout, run.stderr]).toEqual([1, '', `${line}\n`]);
    expect(prose).toContain(line);
  });
});
