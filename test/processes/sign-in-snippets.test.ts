/**
 * The sign-in package's README, followed to the letter by a stranger: against a fresh `npm start`
 * (run in a folder of its own, so its `.data/sign-in.json` is this test's), in a new folder outside
 * the repository, the README's install commands in the order written (its pack line run in this
 * clone, into a folder of the test's own), its tsconfig.json and its example byte for byte,
 * `npx tsc`, and its run line with the key `npm start` printed and the descriptor it wrote. On
 * Node.js 20, 22 and 24: exactly the documented output, nothing on stderr (no AWS SDK notice on 20),
 * no AWS variable set, and the same again on a second run. The data contract's example is the
 * README's, byte for byte.
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { freePort } from '../../local/free-port';
import { killStartedScripts, ROOT, startScript } from '../support/processes';
import {
  DOCUMENTED_CLONE,
  emptyFolder,
  ensureNode22,
  installLines,
  markedBlock,
  type NodeMajor,
  nodeBinary,
  npmErrors,
  strangerEnv,
} from '../support/stranger';

jest.setTimeout(900_000);
const readme = readFileSync(join(ROOT, 'packages/sign-in/README.md'), 'utf8');
const dataContract = readFileSync(join(ROOT, 'docs/data-contract.md'), 'utf8');

const service = mkdtempSync(join(tmpdir(), 'sign-in-snippets-'));
const folders: string[] = [service];
let apiKey: string;

/** Everything of the environment but AWS's variables: the README promises none is needed. */
const withoutAws = (env: NodeJS.ProcessEnv) => Object.fromEntries(Object.entries(env).filter(([name]) => !/^AWS_/.test(name)));

beforeAll(async () => {
  ensureNode22();
  const { DYNAMODB_ENDPOINT: _ignored, ...inherited } = process.env;
  const env = {
    ...inherited,
    PORT: String(await freePort()),
    DYNAMODB_PORT: String(await freePort()),
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  const started = startScript('local/start.ts', env, service);
  apiKey = (await started.waitFor(/export API_KEY=(wlk_\S+)/, 120_000))[1]!;
  await started.waitFor(/Listening on/, 120_000);
}, 300_000);

afterAll(() => {
  killStartedScripts();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** Runs one documented command line in `dir` with bash, as a reader pasting it. */
function shell(dir: string, major: NodeMajor, line: string) {
  return spawnSync('bash', ['-c', line], { cwd: dir, env: withoutAws(strangerEnv(major)), encoding: 'utf8', timeout: 300_000 });
}

describe("npm start's descriptor", () => {
  it('is .data/sign-in.json, owner-only, and names the local endpoint and the development owner', () => {
    const file = join(service, '.data/sign-in.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const descriptor = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(descriptor).toMatchObject({
      descriptorVersion: 1,
      stage: 'local',
      endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    expect(JSON.stringify(descriptor)).not.toMatch(/wlk_|secret/i);
  });
});

describe("the package README's example, followed as written", () => {
  it("is the data contract's example, byte for byte", () => {
    expect(markedBlock(dataContract, 'sign-in example')).toBe(markedBlock(readme, 'sign-in example'));
  });

  it.each([20, 22, 24] as NodeMajor[])('on Node.js %i: installs, compiles and prints the documented lines, twice', (major) => {
    const dir = emptyFolder(`sign-in-snippet-${major}`);
    folders.push(dir);
    // As written, from the empty folder: the pack in the clone first, then the installs.
    const packs = emptyFolder(`sign-in-packs-${major}`);
    folders.unshift(packs); // the last folder stays the example's: the wrong-key test runs there
    for (const line of installLines(markedBlock(readme, 'sign-in install'), join(packs, 'wlum'))) {
      const run = shell(dir, major, line);
      expect([line, run.status, npmErrors(run.stderr)]).toEqual([line, 0, '']);
    }
    // What npm install wrote stays: the folder's package.json names the package and TypeScript.
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(['@white-label-user-management/sign-in']);
    expect(manifest.type as unknown).toBe('module');
    writeFileSync(join(dir, 'tsconfig.json'), markedBlock(readme, 'consumer tsconfig.json'));
    writeFileSync(join(dir, 'sign-in.ts'), markedBlock(readme, 'sign-in example'));
    const [compile, runLine, ...rest] = markedBlock(readme, 'sign-in run').trim().split('\n');
    expect([compile, rest]).toEqual(['npx tsc', []]);
    const compiled = shell(dir, major, compile!);
    expect([compiled.status, compiled.stdout, compiled.stderr]).toEqual([0, '', '']);
    expect(runLine).toContain(DOCUMENTED_CLONE);
    const line = runLine!.replace(DOCUMENTED_CLONE, service).replace('wlk_...', apiKey);
    const expected = markedBlock(readme, 'sign-in output');
    for (const round of [1, 2]) {
      const run = shell(dir, major, line);
      expect({ major, round, status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
        major,
        round,
        status: 0,
        stdout: expected,
        stderr: '',
      });
    }
    expect(spawnSync(nodeBinary(major), ['--version'], { encoding: 'utf8' }).stdout).toMatch(new RegExp(`^v${major}\\.`));
  });

  it('a wrong key prints one line and exits 1', () => {
    const dir = folders.at(-1)!;
    const line = markedBlock(readme, 'sign-in run').trim().split('\n')[1]!.replace(DOCUMENTED_CLONE, service);
    const run = shell(dir, 24, line);
    expect([run.status, run.stdout, run.stderr]).toEqual([1, '', 'createUser: 401 Unauthorized: Invalid or unauthorized API key.\n']);
  });
});
