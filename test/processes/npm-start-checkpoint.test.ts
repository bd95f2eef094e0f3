/**
 * `npm start` itself, with a lifecycle-event checkpoint that points past the end of the stream
 * (as after restoring `.data/dynamodb` from a copy older than the checkpoint, or editing it): it
 * stops with one line naming the file and what to do, and leaves nothing running; nothing is
 * dropped in silence. With the right checkpoint back, it delivers every event, each once.
 */

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from '@jest/globals';
import { freePort } from '../../local/free-port';
import { readEvents } from '../support/lifecycle-events';
import { waitFor } from '../support/poll';
import { descendantPids, isRunning, killStartedScripts, linkProject, startNpmStart } from '../support/processes';

const workdir = mkdtempSync(join(tmpdir(), 'npm-start-checkpoint-'));
const project = join(workdir, 'project');
afterAll(() => rmSync(workdir, { recursive: true, force: true }));
afterEach(killStartedScripts);

const { DYNAMODB_ENDPOINT: _ignored, EVENTS_FILE: _file, ...inherited } = process.env;
/** A guard against a hang, not a speed target. */
const WAIT_MS = 90_000;

it('a checkpoint past the end of its shard stops npm start in one line; the right one delivers every event once', async () => {
  mkdirSync(project);
  linkProject(project);
  const env = { ...inherited, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'SILENT' };
  const events = join(project, '.data/events.jsonl');
  const checkpoint = `${events}.checkpoint`;
  const mine = () => readEvents(events).map((event) => `${event['detail-type']} ${event.detail.user_email}`);

  /** Starts npm start, creates `email` through the API, waits for its event, and stops it (SIGTERM, exit 0). */
  async function runCreating(email: string) {
    const npm = startNpmStart(env, project);
    await npm.waitFor(/Listening on/, WAIT_MS);
    const created = await fetch(`http://127.0.0.1:${env.PORT}/v1/createUser`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey! },
      body: JSON.stringify({ user_email: email, user_password: 'a checkpoint password' }),
    });
    expect(created.status).toBe(200);
    await waitFor(() => (mine().includes(`UserCreated ${email}`) ? true : undefined), WAIT_MS, `the event of ${email}`);
    process.kill(npm.child.pid!, 'SIGTERM');
    expect(await npm.exited).toBe(0);
  }
  /** The development owner's key, printed by the first run only. */
  let apiKey: string | undefined;

  // 1. A first run: the development owner and one user, each with its event; the checkpoint saved on the way.
  {
    const npm = startNpmStart(env, project);
    await npm.waitFor(/Listening on/, WAIT_MS);
    apiKey = /export API_KEY=(wlk_\S+)/.exec(npm.output())![1]!;
    process.kill(npm.child.pid!, 'SIGTERM');
    expect(await npm.exited).toBe(0);
  }
  await runCreating('first@example.com');
  const right = join(workdir, 'right.checkpoint');
  copyFileSync(checkpoint, right);

  // 2. The checkpoint's record moved past the end of its shard: npm start stops, in one line, with nothing left running.
  const saved = JSON.parse(readFileSync(checkpoint, 'utf8')) as { shards: Record<string, string | null> };
  const [shard] = Object.entries(saved.shards).find(([, seq]) => seq !== null)!;
  writeFileSync(checkpoint, JSON.stringify({ ...saved, shards: { ...saved.shards, [shard]: '000000000000099999999' } }));
  const refused = startNpmStart(env, project);
  const code = await refused.exited;
  const stderrLines = refused
    .output()
    .split('\n')
    .filter((line) => line.includes('.data/events.jsonl.checkpoint'));
  expect(code).not.toBe(0);
  expect(stderrLines).toEqual([
    `.data/events.jsonl.checkpoint says events were delivered up to record 000000000000099999999 of shard ${shard}, which the stream does not hold (its records end before it: DynamoDB Local's data is older than the checkpoint, or the checkpoint was edited): restore the two together, or move .data/events.jsonl.checkpoint away to deliver only the writes made from now on (the events of writes since it was saved are then not written).`,
  ]);
  expect(refused.output()).not.toMatch(/^\s+at /m);
  expect(refused.output()).not.toContain('Listening on');
  expect(descendantPids(refused.child.pid!).filter(isRunning)).toEqual([]);

  // 3. The right checkpoint back: a new user's event comes, and no event is written twice or lost.
  copyFileSync(right, checkpoint);
  await runCreating('second@example.com');
  expect(mine()).toEqual(['UserCreated dev-owner@example.com', 'UserCreated first@example.com', 'UserCreated second@example.com']);
}, 300_000);
