/**
 * `npm start` on a bad day, over real processes: an unreadable checkpoint stops it with one line
 * (never a silent skip past events); a torn last line in the events file is set aside with a
 * warning and no event is lost; a second `npm start` on the same engine and folder says so and does
 * not deliver (no event written twice); two `replay-events` at once publish each kept event once;
 * the files that hold events, hashes and digests are 0600 in 0700 folders; the admin CLI names the
 * endpoint it could not reach; the start-up hint names a non-default engine.
 */

import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { EVENT_SOURCE, type LifecycleEvent } from '#contract/lifecycle-events';
import { createOwner } from '#domain/owners';
import { undeliveredEventId } from '#domain/undelivered-events';
import { createUser } from '#domain/users';
import { createDocumentClient } from '#store/client';
import { LOCAL_TABLES } from '#store/local-engine';
import { processStores } from '#store/stores';
import { createUndeliveredEventsStore } from '#store/undelivered-events-store';
import { freePort } from '../../local/free-port';
import { readEvents } from '../support/lifecycle-events';
import { uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { commandLine, killStartedScripts, listeningAddresses, runScript, startScript } from '../support/processes';

const workdir = mkdtempSync(join(tmpdir(), 'npm-start-crash-'));
afterAll(() => rmSync(workdir, { recursive: true, force: true }));
afterEach(killStartedScripts);

const { DYNAMODB_ENDPOINT: _ignored, EVENTS_FILE: _file, ...inherited } = process.env;
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
/** Processes whose command line names this DynamoDB Local port. */
const enginesOn = (port: string) =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => commandLine(Number(pid)).includes(`-port ${port} `));

async function portsEnv() {
  return { ...inherited, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'SILENT' };
}

describe('npm start after a crash', () => {
  it('an unreadable checkpoint: one line naming the file and what to do, exit 1, nothing left running, the file kept', async () => {
    const dir = join(workdir, 'garbage');
    mkdirSync(join(dir, '.data'), { recursive: true });
    const checkpoint = join(dir, '.data/events.jsonl.checkpoint');
    writeFileSync(checkpoint, '{"stream":"arn:aws:dynamodb:ddblocal:000000000000:table/users/stream/x","shards":{"a":');
    const env = await portsEnv();
    const start = startScript('local/start.ts', env, dir);
    expect(await start.exited).toBe(1);
    const lines = start.output().trim().split('\n');
    expect(lines.at(-1)).toBe(
      '.data/events.jsonl.checkpoint cannot be read (not JSON): it says where lifecycle events resume. Restore it from a backup, ' +
        'or move it away to deliver only the writes made from now on (the events of writes since it was saved are then not written).',
    );
    expect(start.output()).not.toMatch(/^\s+at /m);
    expect(start.output()).not.toContain('Listening on');
    expect(readFileSync(checkpoint, 'utf8')).toMatch(/"shards":\{"a":$/);
    expect(enginesOn(env.DYNAMODB_PORT)).toEqual([]);
    expect(listeningAddresses(Number(env.DYNAMODB_PORT))).toEqual([]);
    expect(listeningAddresses(Number(env.PORT))).toEqual([]);
  }, 120_000);

  it('one delivery per events file, replays that never publish twice, private files, a torn line set aside with no event lost', async () => {
    const dir = join(workdir, 'shared');
    mkdirSync(dir);
    const env = await portsEnv();
    const file = join(dir, '.data/events.jsonl');
    const call = async (port: string, key: string, email: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/createUser`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ user_email: email, user_password: 'a crash-proof password' }),
      });
      expect([email, response.status]).toEqual([email, 200]);
    };
    const created = (email: string) =>
      readEvents(file).filter((event) => event['detail-type'] === 'UserCreated' && event.detail.user_email === email).length;

    const first = startScript('local/start.ts', env, dir);
    const [, apiKey] = await first.waitFor(/export API_KEY=(wlk_\S+)/, 90_000);
    await first.waitFor(/Listening on/, 90_000);

    // Files that hold events, hashes and key digests: owner-only, in owner-only folders.
    expect(mode(join(dir, '.data'))).toBe('700');
    expect(mode(join(dir, '.data/dynamodb'))).toBe('700');
    expect(mode(join(dir, '.data/dynamodb/shared-local-instance.db'))).toBe('600');
    await waitFor(() => (created('dev-owner@example.com') === 1 ? true : undefined), 10_000, "the owner's event");
    expect(mode(file)).toBe('600');
    expect(mode(`${file}.checkpoint`)).toBe('600');

    // A second npm start on the same engine, in the same folder: it says so and does not deliver.
    const secondEnv = { ...env, PORT: String(await freePort()), DYNAMODB_ENDPOINT: `http://127.0.0.1:${env.DYNAMODB_PORT}` };
    const second = startScript('local/start.ts', secondEnv, dir);
    await second.waitFor(/Listening on/, 90_000);
    expect(second.output()).toMatch(
      /\nLifecycle events to \.data\/events\.jsonl are delivered by another npm start \(pid \d+\); this one does not deliver them, and takes over when that one stops\.\n/,
    );
    expect(second.output()).toContain(`Issue another with: DYNAMODB_ENDPOINT=${secondEnv.DYNAMODB_ENDPOINT} npm run -s admin -- issue-key`);
    const viaSecond = uniqueEmail('second');
    await call(secondEnv.PORT, apiKey!, viaSecond);
    await waitFor(() => (created(viaSecond) > 0 ? true : undefined), 10_000, 'the event of a write through the second');
    // The second stopped (it can write nothing more), then a sentinel through the first: once its event
    // is in the file, so is any copy the first made of the earlier one.
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    const sentinel = uniqueEmail('sentinel');
    await call(env.PORT, apiKey!, sentinel);
    await waitFor(() => (created(sentinel) > 0 ? true : undefined), 10_000, 'the sentinel event');
    expect(created(viaSecond)).toBe(1);

    // Two replays at once, on this engine's kept events: each event published once.
    const db = createDocumentClient({ endpoint: secondEnv.DYNAMODB_ENDPOINT });
    const kept = createUndeliveredEventsStore(db, LOCAL_TABLES.undeliveredEventsTableName, { retentionDays: 14 });
    const events: LifecycleEvent[] = Array.from({ length: 30 }, (_, i) => ({
      'detail-type': 'UserCreated',
      source: EVENT_SOURCE,
      detail: {
        owner_id: 'replay-race',
        user_email: uniqueEmail(`kept${i}`),
        white_label: false,
        occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        should_reset_password: false,
      },
    }));
    const keptAt = new Date().toISOString();
    await kept.keep(
      events.map((event, i) => ({ id: undeliveredEventId(event), event, changeId: String(i + 1), failure: 'EISDIR', keptAt })),
    );
    expect(await kept.claim(undeliveredEventId(events[0]!), 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const replayed = join(dir, 'replayed.jsonl');
    const replayEnv = { ...env, EVENTS_FILE: replayed };
    const runs = await Promise.all([1, 2].map(() => runScript('admin/cli.ts', ['replay-events'], replayEnv)));
    expect(await kept.list()).toEqual([]);
    // A claim holds until it lapses, is given back (a failed publish), or the event is removed.
    const one = events[0]!;
    await kept.keep([{ id: undeliveredEventId(one), event: one, changeId: '1', failure: 'EISDIR', keptAt }]);
    expect(await kept.claim(undeliveredEventId(one), 60_000)).toBe(true);
    expect(await kept.claim(undeliveredEventId(one), 60_000)).toBe(false);
    await kept.release(undeliveredEventId(one));
    expect(await kept.claim(undeliveredEventId(one), 60_000)).toBe(true);
    await kept.remove(undeliveredEventId(one));
    expect(await kept.claim(undeliveredEventId(one), 60_000)).toBe(false);
    db.destroy();
    const outcomes = runs.map((run) => {
      expect([run.code, run.stderr]).toEqual([0, '']);
      return JSON.parse(run.stdout) as { replayed: number; elsewhere?: number; failed: number };
    });
    expect(outcomes.reduce((sum, outcome) => sum + outcome.replayed, 0)).toBe(events.length);
    const lines = readEvents(replayed);
    expect(lines).toHaveLength(events.length);
    expect(new Set(lines.map((event) => event.detail.user_email))).toEqual(new Set(events.map((event) => event.detail.user_email)));
    expect(mode(replayed)).toBe('600');

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    // A crash in the middle of an append leaves a torn last line: set aside before the next one.
    const before = readEvents(file);
    const torn = '{"detail-type":"UserCreated","source":"user-manage';
    appendFileSync(file, torn);
    // Logging on, to see what a request adds to stdout (the README says it).
    const third = startScript('local/start.ts', { ...env, POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' }, dir);
    await third.waitFor(/Listening on/, 90_000);
    expect(third.output()).toContain(
      `.data/events.jsonl ended in a torn line (${torn.length} bytes, a crash during an append): moved to .data/events.jsonl.torn; its event is written again.`,
    );
    // The hint names the non-default engine, so the admin CLI finds it.
    expect(third.output()).toContain(
      `Issue another with: DYNAMODB_PORT=${env.DYNAMODB_PORT} npm run -s admin -- issue-key dev-owner@example.com`,
    );
    const after = uniqueEmail('after-torn');
    await call(env.PORT, apiKey!, after);
    await waitFor(() => (created(after) > 0 ? true : undefined), 10_000, 'the event after the torn line');
    // One request, two JSON lines on stdout: the access log and the request metric.
    const perRequest = third
      .output()
      .slice(third.output().indexOf('Listening on'))
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { message?: string; _aws?: unknown; outcome?: string });
    expect(perRequest).toEqual([
      expect.objectContaining({ message: 'Request completed', operation: 'createUser', status: 200 }),
      expect.objectContaining({ _aws: expect.anything(), operation: 'createUser', outcome: 'created' }),
    ]);
    third.child.kill('SIGINT');
    expect(await third.exited).toBe(0);
    // Every line reads (readEvents parses each), nothing before it lost, the new one on its own line.
    expect(readEvents(file)).toEqual([...before, expect.objectContaining({ detail: expect.objectContaining({ user_email: after }) })]);
    expect(readFileSync(`${file}.torn`, 'utf8')).toBe(`${torn}\n`);
    expect(mode(`${file}.torn`)).toBe('600');
  }, 300_000);
});

describe('two npm starts on one engine', () => {
  it('the second delivers nothing while the first runs, and takes over, from the checkpoint, once it stops', async () => {
    // The suite's own engine, which neither npm start owns: it outlives the first.
    const engine = process.env.DYNAMODB_ENDPOINT!;
    const dir = join(workdir, 'takeover');
    mkdirSync(dir);
    const file = join(dir, '.data/events.jsonl');
    const env = { ...inherited, DYNAMODB_ENDPOINT: engine, POWERTOOLS_LOG_LEVEL: 'SILENT' };
    const created = (email: string) =>
      readEvents(file).filter((event) => event['detail-type'] === 'UserCreated' && event.detail.user_email === email).length;
    const { config, stores } = processStores();
    const issued = await createOwner(stores.owners, uniqueEmail('takeover-owner'), config);
    const owner = (await stores.owners.findOwner(issued.owner_email))!;
    const caller = { ownerId: owner.ownerId, ownerEmail: owner.ownerEmail, keyId: issued.key_id };
    const create = (email: string) => createUser(stores.users, caller, { user_email: email, user_password: 'a takeover password' }, config);

    const first = startScript('local/start.ts', { ...env, PORT: String(await freePort()) }, dir);
    await first.waitFor(/Listening on/, 90_000);
    const second = startScript('local/start.ts', { ...env, PORT: String(await freePort()) }, dir);
    await second.waitFor(/Listening on/, 90_000);
    expect(second.output()).toContain('this one does not deliver them, and takes over when that one stops.');

    const whileBoth = uniqueEmail('while-both');
    await create(whileBoth);
    await waitFor(() => (created(whileBoth) > 0 ? true : undefined), 15_000, 'the event while both run');
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    // Written while no one delivers: the second resumes from the first one's checkpoint.
    const meanwhile = uniqueEmail('meanwhile');
    await create(meanwhile);
    await second.waitFor(/the other npm start stopped; this one delivers them now\./, 15_000);
    const after = uniqueEmail('after-takeover');
    await create(after);
    // A sentinel after it: the second delivers alone now, in stream order, so once the sentinel's event
    // is in the file any second copy of the three would be too.
    const sentinel = uniqueEmail('sentinel-takeover');
    await create(sentinel);
    await waitFor(() => (created(sentinel) > 0 ? true : undefined), 15_000, 'the sentinel event after the takeover');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect([whileBoth, meanwhile, after].map(created)).toEqual([1, 1, 1]);
  }, 240_000);
});

describe('the admin CLI without its DynamoDB', () => {
  it('says in one line which endpoint it tried and how to point it, exit 1, no stack', async () => {
    const port = String(await freePort());
    const result = await runScript('admin/cli.ts', ['list-keys', 'dev-owner@example.com'], { ...inherited, DYNAMODB_PORT: port });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `Cannot reach DynamoDB at http://127.0.0.1:${port} (ECONNREFUSED). Point the admin CLI at the engine npm start uses with ` +
        'DYNAMODB_PORT=<its DYNAMODB_PORT> (or DYNAMODB_ENDPOINT=<url>); for a deployed stage, leave both unset and name its tables.\n',
    );
  }, 60_000);
});
