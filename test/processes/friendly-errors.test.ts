/**
 * A caller's mistake on the command line gets one clear line and a non-zero exit, never a stack
 * trace: an unknown stage for `npm run synth`, and `npm run test:staging` without its variables.
 * Each command is spawned once, as a user would type it.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from '@jest/globals';
import { ROOT } from '../support/processes';
import { STAGING_VARIABLES } from '../support/target-env';

const outdir = mkdtempSync(join(tmpdir(), 'friendly-errors-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** `npm run -s <args>` to completion: its exit code and its output's non-empty lines (stdout, then stderr). */
function npmRun(args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string[]; stderr: string[] }>((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');
    child.on('close', (code) => resolve({ code, stdout: lines(stdout), stderr: lines(stderr) }));
  });
}

it('npm run synth -- -c stage=nosuch: the stages to choose from in one line, exit 1, no stack trace', async () => {
  const { code, stdout, stderr } = await npmRun(['synth', '--', '-c', 'stage=nosuch', '-o', outdir], process.env);
  expect(code).toBe(1);
  // The app's one line; the cdk CLI then adds one of its own, naming the app command it ran.
  expect({ stdout, stderr }).toEqual({
    stdout: [],
    stderr: [
      'Unknown stage "nosuch": use -c stage=dev|staging|prod',
      expect.stringMatching(/^\S+ bin\/app\.ts: Subprocess exited with error 1$/),
    ],
  });
}, 120_000);

it('npm run test:staging without its variables: the missing ones named in one line, exit 1, no stack trace', async () => {
  const env = { ...process.env };
  for (const name of STAGING_VARIABLES) delete env[name];
  env.API_KEY = 'wlk_set-but-the-others-are-not';
  const { code, stdout, stderr } = await npmRun(['test:staging'], env);
  expect(code).toBe(1);
  expect({ stdout, stderr }).toEqual({
    // jest's own line, before its global set-up runs.
    stdout: ['Running one project: http'],
    stderr: [
      'The staging suite needs BASE_URL, API_KEY_B, OWNER_EMAIL, OWNER_EMAIL_B in the environment (see docs/deploy.md, "Run the staging suite").',
    ],
  });
}, 60_000);
