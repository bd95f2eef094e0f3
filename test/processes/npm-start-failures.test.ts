/**
 * `npm start` off the happy path, as real processes on real ports: every failure is one line on
 * stderr and a non-zero exit, and whatever it started is gone afterwards (checked by pid).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { localClient } from '../../local/dynamodb-local';
import { freePort, portInUse } from '../../local/free-port';
import { commandLine, descendantPids, isRunning, killStartedScripts, runScript, startScript } from '../support/processes';

const workdir = mkdtempSync(join(tmpdir(), 'npm-start-failures-'));
afterEach(killStartedScripts);
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

// The suite's own DynamoDB Local: "another DynamoDB" already on a port.
const { DYNAMODB_ENDPOINT: suiteEngine, ...inherited } = process.env;
const base = () => ({ ...inherited, POWERTOOLS_LOG_LEVEL: 'SILENT' });

/** Exactly one line on stderr, nothing on stdout, and no stack trace. */
function expectOneLine(result: { stdout: string; stderr: string }, line: string): void {
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n')).toBe(true);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toBe(`${line}\n`);
}

describe('npm start refuses bad settings before starting anything', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DYNAMODB_PORT', 'abc'],
    ['DYNAMODB_PORT', '0'],
  ])(
    '%s=%s',
    async (name, value) => {
      const dynamodbPort = String(await freePort());
      const env = { ...base(), PORT: String(await freePort()), DYNAMODB_PORT: dynamodbPort, [name]: value };
      const result = await runScript('local/start.ts', [], env, workdir);
      expect(result.code).toBe(1);
      expectOneLine(result, `${name} must be a port number from 1 to 65535, got "${value}".`);
      expect(await portInUse(Number(dynamodbPort))).toBe(false);
    },
    60_000,
  );

  it('DYNAMODB_PORT taken by another DynamoDB: refuses, naming DYNAMODB_PORT and DYNAMODB_ENDPOINT; the other engine is untouched', async () => {
    const taken = new URL(suiteEngine!).port;
    const result = await runScript('local/start.ts', [], { ...base(), PORT: String(await freePort()), DYNAMODB_PORT: taken }, workdir);
    expect(result.code).toBe(1);
    expectOneLine(
      result,
      `DYNAMODB_PORT ${taken} is already in use on 127.0.0.1, and npm start never uses a DynamoDB it did not start: ` +
        `set DYNAMODB_PORT to a free port, or DYNAMODB_ENDPOINT=http://127.0.0.1:${taken} to use the engine listening there.`,
    );
    const client = localClient(suiteEngine!);
    await expect(client.send(new ListTablesCommand({}))).resolves.toBeDefined();
    client.destroy();
  }, 60_000);

  it('PORT taken: refuses with one line, and DynamoDB Local never starts', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const dynamodbPort = await freePort();
    try {
      const result = await runScript('local/start.ts', [], { ...base(), PORT: String(port), DYNAMODB_PORT: String(dynamodbPort) }, workdir);
      expect(result.code).toBe(1);
      expectOneLine(result, `PORT ${port} is already in use on 127.0.0.1: stop what listens there, or set PORT to a free port.`);
      expect(await portInUse(dynamodbPort)).toBe(false);
    } finally {
      blocker.close();
    }
  }, 60_000);
});

describe('npm start after DynamoDB Local started', () => {
  it('a start-up failure stops DynamoDB Local and exits non-zero with one line', async () => {
    const dynamodbPort = await freePort();
    // A table name DynamoDB refuses (shorter than 3 characters): the failure comes after Java is up.
    const env = { ...base(), PORT: String(await freePort()), DYNAMODB_PORT: String(dynamodbPort), USERS_TABLE_NAME: 'x' };
    const run = startScript('local/start.ts', env, workdir);
    const seen = new Set<number>();
    const watch = setInterval(() => {
      for (const pid of descendantPids(run.child.pid!)) seen.add(pid);
    }, 50);
    const code = await run.exited;
    clearInterval(watch);
    expect(code).toBe(1);
    const lines = run.output().trimEnd().split('\n');
    expect(lines).toEqual([
      `DynamoDB Local on http://127.0.0.1:${dynamodbPort}, data in .data/dynamodb`,
      expect.stringMatching(new RegExp(`^DynamoDB at http://127\\.0\\.0\\.1:${dynamodbPort} did not accept the tables: \\S`)),
    ]);
    // A bound: how many descendants a 50 ms sampling sees depends on timing; the point is that it saw some.
    expect(seen.size).toBeGreaterThan(0);
    expect([...seen].filter(isRunning)).toEqual([]);
    expect(await portInUse(dynamodbPort)).toBe(false);
  }, 120_000);

  it('DynamoDB Local exiting while serving: npm start says so and exits non-zero', async () => {
    const env = { ...base(), PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()) };
    const run = startScript('local/start.ts', env, workdir);
    await run.waitFor(/Listening on /, 90_000);
    const [java] = descendantPids(run.child.pid!).filter((pid) => commandLine(pid).includes('LoopbackDynamoDbLocal'));
    expect(java).toBeDefined();
    process.kill(java!, 'SIGKILL');
    expect(await run.exited).toBe(1);
    expect(run.output().trimEnd().split('\n').at(-1)).toBe(
      `DynamoDB Local (pid ${java}) exited while serving (SIGKILL); the API is stopped too.`,
    );
    expect(await portInUse(Number(env.PORT))).toBe(false);
  }, 120_000);
});
