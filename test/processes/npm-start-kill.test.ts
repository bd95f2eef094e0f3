/**
 * SIGTERM to `npm start` (to npm itself, to its tsx process, or to the whole process group) stops
 * the server and DynamoDB Local and frees both ports.
 *
 * `kill -9` of `npm start` loses no event and invents none: right after a burst of acknowledged
 * creates and deletes, the process is killed with SIGKILL (DynamoDB Local follows, its standard
 * input closed), started again on the same data, and the events file then holds exactly one event
 * per acknowledged write, and the ledger one entry per delete.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createDocumentClient } from '#store/client';
import { freePort } from '../../local/free-port';
import { readEvents } from '../support/lifecycle-events';
import { uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import {
  childPids,
  commandLine,
  descendantPids,
  isRunning,
  killStartedScripts,
  linkProject,
  listeningAddresses,
  startNpmStart,
  startScript,
} from '../support/processes';
import { scanAll } from '../support/scan';

const workdir = mkdtempSync(join(tmpdir(), 'npm-start-kill-'));
afterAll(() => rmSync(workdir, { recursive: true, force: true }));
afterEach(killStartedScripts);

const { DYNAMODB_ENDPOINT: _ignored, EVENTS_FILE: _file, ...inherited } = process.env;

describe('npm start: kill -9', () => {
  it('after a burst of 40 creates and 24 deletes answered 200: exactly one event per write, a ledger entry per delete', async () => {
    const env = { ...inherited, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'SILENT' };
    const file = join(workdir, '.data/events.jsonl');
    const first = startScript('local/start.ts', env, workdir);
    const [, apiKey] = await first.waitFor(/export API_KEY=(wlk_\S+)/);
    await first.waitFor(/Listening on/);
    const call = async (operation: string, body: object) => {
      const response = await fetch(`http://127.0.0.1:${env.PORT}/v1/${operation}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey! },
        body: JSON.stringify(body),
      });
      expect([operation, response.status]).toEqual([operation, 200]);
    };
    const created = Array.from({ length: 40 }, () => uniqueEmail('burst'));
    const deleted = created.slice(0, 24);
    // Eight at a time, as a client in a hurry would send them.
    const inWaves = async (emails: string[], send: (email: string) => Promise<void>) => {
      for (let i = 0; i < emails.length; i += 8) await Promise.all(emails.slice(i, i + 8).map(send));
    };
    await inWaves(created, (email) => call('createUser', { user_email: email, user_password: 'a burst password' }));
    await inWaves(deleted, (email) => call('deleteUser', { user_email: email }));

    // SIGKILL to the whole Node side at once (tsx's parent and the server), DynamoDB Local left to follow.
    const java = descendantPids(first.child.pid!).filter((pid) => readCommand(pid) === 'java');
    const node = [first.child.pid!, ...descendantPids(first.child.pid!)].filter((pid) => !java.includes(pid));
    for (const pid of node.reverse()) process.kill(pid, 'SIGKILL');
    const atKill = readEvents(file).length;
    await first.exited;
    await waitFor(() => (java.every((pid) => !isRunning(pid)) ? true : undefined), 30_000, 'DynamoDB Local to exit');

    const second = startScript('local/start.ts', env, workdir);
    try {
      await second.waitFor(/Listening on/);
      const expected = 1 + created.length + deleted.length;
      // A sentinel create after the restart: its event comes after every record of the stream before it,
      // so once it is in the file, any duplicate of an earlier event would be too.
      const sentinel = uniqueEmail('sentinel');
      await call('createUser', { user_email: sentinel, user_password: 'a sentinel password' });
      const isSentinel = (event: { detail: { user_email: string } }) => event.detail.user_email === sentinel;
      await waitFor(() => (readEvents(file).some(isSentinel) ? true : undefined), 15_000, 'the sentinel event');
      const events = readEvents(file).filter((event) => !isSentinel(event));
      const count = (type: string, email: string) =>
        events.filter((event) => event['detail-type'] === type && event.detail.user_email === email).length;
      expect(events).toHaveLength(expected);
      expect(count('UserCreated', 'dev-owner@example.com')).toBe(1);
      for (const email of created) expect([email, count('UserCreated', email)]).toEqual([email, 1]);
      for (const email of deleted) expect([email, count('UserDeleted', email)]).toEqual([email, 1]);

      const db = createDocumentClient({ endpoint: `http://127.0.0.1:${env.DYNAMODB_PORT}` });
      const Items = await scanAll(db, { TableName: 'deletions', ConsistentRead: true });
      db.destroy();
      expect(Items.map((item) => item.user_email).sort()).toEqual([...deleted].sort());
      if (process.env.EVENTS_REPORT) {
        console.log(`kill -9: ${atKill} of ${expected} events written when killed; after restart ${events.length}, ledger ${Items.length}`);
      }
    } finally {
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
    }
  }, 180_000);
});

describe('npm start: SIGTERM', () => {
  // One project folder for the three runs: the first creates the data, the others reuse it.
  const project = join(workdir, 'project');
  beforeAll(() => {
    mkdirSync(project);
    linkProject(project);
  });

  // npm runs the script through `sh -c`; npm forwards SIGTERM to its child only, so the script
  // execs tsx (a shell in between would die and leave tsx, the server and DynamoDB Local running).
  it.each([
    ['npm itself', (npm: number) => process.kill(npm, 'SIGTERM')],
    ['the tsx process', (npm: number) => process.kill(childPids(npm).find((pid) => commandLine(pid).includes('tsx'))!, 'SIGTERM')],
    ['the whole process group', (npm: number) => process.kill(-npm, 'SIGTERM')],
  ])(
    'to %s stops the server and DynamoDB Local and frees both ports',
    async (_, kill) => {
      const env = { ...inherited, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'SILENT' };
      const npm = startNpmStart(env, project);
      await npm.waitFor(/Listening on/, 90_000);
      const started = descendantPids(npm.child.pid!);
      expect(started.filter((pid) => commandLine(pid).includes('LoopbackDynamoDbLocal'))).toHaveLength(1);
      expect(started.filter((pid) => commandLine(pid).includes('tsx'))).not.toEqual([]);

      const all = [npm.child.pid!, ...started];
      try {
        kill(npm.child.pid!);
        // A process that has just exited may hold its listening socket a moment longer (a JVM's threads end one by one).
        const free = () => [env.PORT, env.DYNAMODB_PORT].every((port) => listeningAddresses(Number(port)).length === 0);
        await waitFor(
          () => (all.every((pid) => !isRunning(pid)) && free() ? true : undefined),
          20_000,
          'every process to exit, both ports free',
        );
      } finally {
        // Left running (the failure this test looks for), they would outlive the test: stopped here.
        for (const pid of all.filter(isRunning)) process.kill(pid, 'SIGKILL');
      }
    },
    150_000,
  );
});

/** A process's command name, from /proc. */
function readCommand(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  } catch {
    return '';
  }
}
