/** openapi.json passes Spectral's `spectral:oas` ruleset (.spectral.yaml), run as `npm run lint:openapi` runs it. */

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from '@jest/globals';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Finding {
  code: string;
  message: string;
  path: string[];
  severity: number;
}

/** Spectral's findings on openapi.json; it exits 1 when any is an error, which is still a result to read. */
async function spectral(): Promise<Finding[]> {
  const args = ['lint', 'openapi.json', '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'];
  const run = await promisify(execFile)('node_modules/.bin/spectral', args, { cwd: root }).catch(
    (error: { code?: number; stdout?: string; stderr?: string }) => {
      if (error.code === 1 && error.stdout) return { stdout: error.stdout };
      throw new Error(`spectral failed: ${error.stderr ?? error}`);
    },
  );
  return JSON.parse(run.stdout) as Finding[];
}

it('reports no error, and no warning but the one the document accepts', async () => {
  const findings = (await spectral()).map((f) => ({
    severity: ['error', 'warn', 'info', 'hint'][f.severity],
    code: f.code,
    at: f.path.join('.'),
    message: f.message,
  }));
  expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
  // A private service has no public contact to name.
  expect(findings.filter((f) => f.severity !== 'error' && f.code !== 'info-contact')).toEqual([]);
}, 30_000);
