/** `npm start`: DynamoDB Local with data under .data/, the tables, a dev owner, the API on PORT; Ctrl-C stops both. */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../local/free-port';
import { runScript, startScript } from '../support/processes';

const workdir = mkdtempSync(join(tmpdir(), 'npm-start-'));
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

const { DYNAMODB_ENDPOINT: _ignored, ...inherited } = process.env;

describe('npm start', () => {
  it('serves the API on a fresh machine, keeps its data across restarts, and stops cleanly', async () => {
    const env = { ...inherited, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'SILENT' };
    const first = startScript('local/start.ts', env, workdir);
    const [, apiKey] = await first.waitFor(/export API_KEY=(wlk_\S+)/);
    await first.waitFor(new RegExp(`Listening on http://127\\.0\\.0\\.1:${env.PORT}/v1\\n`));

    const call = (key: string) =>
      fetch(`http://127.0.0.1:${env.PORT}/v1/createUser`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ user_email: 'persisted@example.com', user_password: 'long enough' }),
      });
    expect((await call(apiKey!)).status).toBe(200);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    const second = startScript('local/start.ts', env, workdir);
    await second.waitFor(/Listening on/);
    expect(second.output()).toContain('Development owner dev-owner@example.com exists');
    expect(second.output()).not.toContain('export API_KEY=');
    expect((await call(apiKey!)).status).toBe(409);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 120_000);

  it('fails with the fix when no Java runtime is installed', async () => {
    const result = await runScript('local/start.ts', [], { ...inherited, PATH: '/nonexistent' }, workdir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DynamoDB Local needs a Java runtime');
    expect(result.stderr).toContain('apt-get install -y default-jre-headless');
  }, 60_000);
});
