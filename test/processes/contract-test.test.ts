/**
 * `npm run test:contract` against `npm start`: Portman generates contract tests from the document
 * the running API serves, newman runs them with the key npm start printed, and every check passes.
 * The requests per status show that the run went past the key check (a run of 401s proves nothing).
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { freePort } from '../../local/free-port';
import { type NewmanReport, requestsPerStatus } from '../../scripts/contract-test';
import { killStartedScripts, linkProject, runScript, startNpmStart } from '../support/processes';

const workdir = mkdtempSync(join(tmpdir(), 'contract-test-'));
linkProject(workdir);
afterEach(killStartedScripts);
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

const { DYNAMODB_ENDPOINT: _ignored, BASE_URL: _notThis, ...inherited } = process.env;

describe('the contract tester against npm start', () => {
  it('runs the tests Portman generates from the served document, and they all pass', async () => {
    const env = { ...inherited, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'SILENT' };
    const start = startNpmStart(env, workdir);
    const [, apiKey] = await start.waitFor(/export API_KEY=(wlk_\S+)/, 120_000);
    await start.waitFor(/Listening on/, 120_000);

    // From npm start's folder, with no BASE_URL: the address comes from what npm start wrote.
    const reportFile = join(workdir, 'report.json');
    const run = await runScript('scripts/contract-test.ts', ['--report', reportFile], { ...inherited, API_KEY: apiKey }, workdir);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as NewmanReport;
    const perStatus = requestsPerStatus(report);
    console.log(`contract tests: ${report.run.stats.assertions.total} checks; requests per status ${JSON.stringify(perStatus)}`);

    expect(report.run.failures.map(({ source, error }) => `${source?.name}: ${error.message}`)).toEqual([]);
    expect(run.code).toBe(0);
    expect(report.run.stats.assertions.failed).toBe(0);
    expect(report.run.stats.assertions.total).toBeGreaterThanOrEqual(4 * report.run.executions.length);
    // Each status the configured variations aim at, and only those: every request had an answer.
    expect(Object.keys(perStatus).sort()).toEqual(['200', '400', '401', '404', '409', '415', '422']);
    expect(perStatus['200']).toBeGreaterThanOrEqual(3);
    expect(run.stdout).toContain(
      `Requests per status: ${Object.entries(perStatus)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', ')}.`,
    );
    // The key is in no line the tester printed.
    expect(run.stdout).not.toContain(apiKey);
  }, 300_000);
});
