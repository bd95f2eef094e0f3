/**
 * The admin CLI finds the DynamoDB of the running `npm start` without being told: `npm start` on
 * non-default PORT and DYNAMODB_PORT, then an admin command with no endpoint given, from the same
 * folder. Once npm start has stopped, the CLI says in one line which endpoint it tried and where
 * it read it.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { freePort } from '../../local/free-port';
import { killStartedScripts, linkProject, runScript, startNpmStart } from '../support/processes';

const workdir = mkdtempSync(join(tmpdir(), 'admin-finds-npm-start-'));
linkProject(workdir);
afterEach(killStartedScripts);
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

/** The environment with nothing that names an engine or a table, as a new user's shell has it. */
const bare: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('DYNAMODB_') && !name.endsWith('_TABLE_NAME')),
);

describe('the admin CLI and npm start on other ports', () => {
  it('talks to the engine npm start uses, and names it in one line once it is gone', async () => {
    const dynamodbPort = await freePort();
    const env = { ...bare, PORT: String(await freePort()), DYNAMODB_PORT: String(dynamodbPort), POWERTOOLS_LOG_LEVEL: 'SILENT' };
    const start = startNpmStart(env, workdir);
    await start.waitFor(/Listening on/, 120_000);

    const listed = await runScript('admin/cli.ts', ['list-keys', 'dev-owner@example.com'], bare, workdir);
    expect([listed.code, listed.stderr]).toEqual([0, '']);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ key_id: expect.stringMatching(/^key_/) })]);

    process.kill(-start.child.pid!, 'SIGINT');
    await start.exited; // npm itself answers a Ctrl-C with 130
    const gone = await runScript('admin/cli.ts', ['list-keys', 'dev-owner@example.com'], bare, workdir);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(
      new RegExp(
        `^Cannot reach DynamoDB at http://127\\.0\\.0\\.1:${dynamodbPort} \\(ECONNREFUSED, the endpoint npm start wrote in \\.data/sign-in\\.json\\)\\. [^\\n]*\\n$`,
      ),
    );

    // An explicit port still wins over what npm start wrote.
    const other = await freePort();
    const told = await runScript(
      'admin/cli.ts',
      ['list-keys', 'dev-owner@example.com'],
      { ...bare, DYNAMODB_PORT: String(other) },
      workdir,
    );
    expect(told.stderr).toMatch(new RegExp(`^Cannot reach DynamoDB at http://127\\.0\\.0\\.1:${other} \\(ECONNREFUSED\\)\\. `));
  }, 240_000);
});
