/**
 * `npm run capacity` as a real process (scripts/capacity.ts): the table from a bench run, and one
 * line with exit 2 when the run, its keys or the command line are wrong.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { exampleCapacityRun } from '../support/capacity-example';
import { runScript } from '../support/processes';

const dir = mkdtempSync(join(tmpdir(), 'capacity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
const capacity = (...args: string[]) => runScript('scripts/capacity.ts', args, env);
const runFile = async (name: string, edit: (run: Record<string, unknown>) => void = () => {}) => {
  const run = await exampleCapacityRun();
  edit(run);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(run));
  return file;
};

describe('npm run capacity', () => {
  it('prints, per request, what prod sustains and its first limit, the ceiling beyond the settings, latency and cost, then the hot keys', async () => {
    const result = await capacity('--run', await runFile('run.json'));
    expect([result.code, result.stderr]).toEqual([0, '']);
    const rows = result.stdout.split('\n').filter((line) => line.startsWith('| '));
    const first = (name: string) =>
      rows
        .find((row) => row.startsWith(`| ${name} `))
        ?.split('|')
        .map((cell) => cell.trim());
    // Each operation has its own 100/s in prod (the stage throttle applies per method).
    expect(first('createUser')?.slice(1, 4)).toEqual(['createUser', '100', 'API Gateway stage throttle (prod, each method) (setting)']);
    // By AWS's rules: the profile and the state read strongly consistent, each on its table, the count and the sign-in table's part
    // of the transaction (the state's delete and the new device record, each billed twice), then the cap's Query of the device
    // records, which sets the row (capacity/flows.ts): 5 writes and 2 reads per attempt on the sign-in table.
    expect(first('sign-in ok')?.slice(2, 4)).toEqual([
      '705',
      'DynamoDB sign-in table, new on-demand (4,000 writes or 12,000 reads a second)',
    ]);
    for (const name of ['resetUserPassword', 'deleteUser', 'createUser + Idempotency-Key', 'sign-in wrong', 'sign-in unknown']) {
      expect([name, first(name) !== undefined]).toEqual([name, true]);
    }
    expect(result.stdout).toMatch(/^\| the owner's own account \(users table\) +\| a create, reset or delete of the owner's own e-mail/m);
    expect(result.stdout).toContain('Every limit, lowest first');
    expect(result.stdout).toContain(
      "Sign-in rows, request units by AWS's rules (capacity/flows.ts): sign-in ok 705, sign-in wrong 3,000, sign-in unknown 3,000 a second; none above the 6,000 that two strongly consistent reads per attempt allow.",
    );
  }, 60_000);

  it('a run without a key the model reads: one line naming it, exit 2', async () => {
    const file = await runFile('no-units.json', (run) => delete run.requestUnits);
    const result = await capacity('--run', file);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^capacity: \S+no-units\.json has no "requestUnits\.operations\.createUser" \([^\n]+\): run npm run bench, see docs\/capacity\.md\.\n$/,
    );
  }, 60_000);

  it('a missing run, a run that is not JSON, an unknown stage or option: one line each, exit 2', async () => {
    const notJson = join(dir, 'broken.json');
    writeFileSync(notJson, '{"meta":');
    const cases: [string[], RegExp][] = [
      [['--run', join(dir, 'absent.json')], /^capacity: \S+absent\.json is missing: run npm run bench first \(docs\/capacity\.md\)\n$/],
      [['--run', notJson], /^capacity: \S+broken\.json is not JSON: run npm run bench again\n$/],
      [['--stage', 'qa', '--run', notJson], /^capacity: --stage must be one of dev, staging, prod\n$/],
      [['--verbose'], /^capacity: Unknown option '--verbose'[^\n]*\n$/],
    ];
    for (const [args, expected] of cases) {
      const result = await capacity(...args);
      expect([args, result.code, result.stdout, result.stderr]).toEqual([args, 2, '', expect.stringMatching(expected)]);
    }
  }, 120_000);
});
