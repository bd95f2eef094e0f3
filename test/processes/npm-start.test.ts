/**
 * `npm start`: DynamoDB Local with data under .data/ on 127.0.0.1 only, the tables, a dev owner, the
 * API on PORT; Ctrl-C (SIGINT) and SIGTERM stop both, leaving no process behind.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { createDocumentClient } from '#store/client';
import { LOCAL_TABLES } from '#store/local-engine';
import { SIGN_IN_SK } from '#store/table-layout';
import { freePort } from '../../local/free-port';
import {
  commandLine,
  descendantPids,
  isRunning,
  killStartedScripts,
  listeningAddresses,
  runScript,
  startScript,
} from '../support/processes';

const workdir = mkdtempSync(join(tmpdir(), 'npm-start-'));
afterEach(killStartedScripts);
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

const { DYNAMODB_ENDPOINT: _ignored, ...inherited } = process.env;

describe('npm start', () => {
  it('serves the API on a fresh machine, keeps its data across restarts, and stops cleanly', async () => {
    const env = { ...inherited, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'SILENT' };
    const first = startScript('local/start.ts', env, workdir);
    const [, apiKey] = await first.waitFor(/export API_KEY=(wlk_\S+)/, 90_000);
    await first.waitFor(new RegExp(`Listening on http://127\\.0\\.0\\.1:${env.PORT}/v1\\n`), 90_000);

    const call = (key: string) =>
      fetch(`http://127.0.0.1:${env.PORT}/v1/createUser`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ user_email: 'persisted@example.com', user_password: 'long enough' }),
      });
    expect((await call(apiKey!)).status).toBe(200);
    // What a sign-in module before the sign-in table kept in the users table: the next start-up moves it.
    const engine = createDocumentClient({ endpoint: `http://127.0.0.1:${env.DYNAMODB_PORT}` });
    const legacy = { pk: 'some-owner#legacy@example.com', sk: SIGN_IN_SK, failures: 7, wait_until: 0, hash_tag: 'none' };
    await engine.send(new PutCommand({ TableName: LOCAL_TABLES.usersTableName, Item: legacy }));

    // The README shows this first run's output exactly (npm's own two lines aside, ports as configured).
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const quickStart = readme.slice(readme.indexOf('\n## Quick start\n'));
    const shown = /\n```\n> white-label-user-management@\S+ start\n> exec tsx local\/start\.ts\n\n([\s\S]*?)```\n/.exec(quickStart)?.[1];
    expect(first.output().replace(/wlk_\S+/, 'wlk_...')).toBe(
      shown?.replaceAll(':8000', `:${env.DYNAMODB_PORT}`).replaceAll(':3000', `:${env.PORT}`),
    );

    // DynamoDB Local listens on loopback only, never on every interface.
    expect(listeningAddresses(Number(env.DYNAMODB_PORT))).toEqual(['127.0.0.1']);
    expect(listeningAddresses(Number(env.PORT))).toEqual(['127.0.0.1']);

    const started = descendantPids(first.child.pid!);
    expect(started.filter((pid) => commandLine(pid).includes('LoopbackDynamoDbLocal'))).toHaveLength(1);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(started.filter(isRunning)).toEqual([]);

    const second = startScript('local/start.ts', env, workdir);
    await second.waitFor(/Listening on/, 90_000);
    expect(second.output()).toContain('Development owner dev-owner@example.com exists');
    // docs/local.md: a later run's hint names the engine's variable when the port is not the default.
    expect(second.output()).toContain(
      `Issue another with: DYNAMODB_PORT=${env.DYNAMODB_PORT} npm run -s admin -- issue-key dev-owner@example.com`,
    );
    expect(second.output()).not.toContain('export API_KEY=');
    expect(second.output()).toContain('Moved the sign-in state the users table kept into the sign-in table: 1 items');
    const keyOf = { pk: legacy.pk, sk: legacy.sk };
    const get = async (table: string) => (await engine.send(new GetCommand({ TableName: table, Key: keyOf, ConsistentRead: true }))).Item;
    expect([await get(LOCAL_TABLES.usersTableName), await get(LOCAL_TABLES.signInTableName)]).toEqual([undefined, legacy]);
    engine.destroy();
    const again = await call(apiKey!);
    expect([again.status, await again.json()]).toEqual([409, { message: 'User already exists.' }]);
    const startedAgain = descendantPids(second.child.pid!);
    expect(startedAgain.filter((pid) => commandLine(pid).includes('LoopbackDynamoDbLocal'))).toHaveLength(1);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(startedAgain.filter(isRunning)).toEqual([]);
  }, 240_000);

  it('fails with the fix when no Java runtime is installed', async () => {
    const ports = { PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()) };
    const result = await runScript('local/start.ts', [], { ...inherited, ...ports, PATH: '/nonexistent' }, workdir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DynamoDB Local needs a Java runtime');
    expect(result.stderr).toContain('apt-get install -y default-jre-headless');
  }, 60_000);
});
