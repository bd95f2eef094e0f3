/**
 * `npm start` delivers lifecycle events itself: the development owner's UserCreated, then one line
 * per operation in EVENTS_FILE, each waited for as it comes. What npm start costs at rest is a
 * measurement, not a check on shared cores: `npm run bench` reports it (bench/idle.ts).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../local/free-port';
import { readEvents } from '../support/lifecycle-events';
import { waitFor } from '../support/poll';
import { startScript } from '../support/processes';

const workdir = mkdtempSync(join(tmpdir(), 'npm-start-events-'));
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

const { DYNAMODB_ENDPOINT: _ignored, EVENTS_FILE: _file, ...inherited } = process.env;

/** How long the test waits for an event before it fails: a guard against a hang, not a speed target. */
const EVENT_WAIT_MS = 30_000;

describe('npm start: lifecycle events', () => {
  it('writes .data/events.jsonl by default: one line per write, waited for as it comes', async () => {
    const env = { ...inherited, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'SILENT' };
    const started = startScript('local/start.ts', env, workdir);
    try {
      const [, apiKey] = await started.waitFor(/export API_KEY=(wlk_\S+)/);
      await started.waitFor(/Listening on/);
      expect(started.output()).toContain('Lifecycle events to .data/events.jsonl');
      const file = join(workdir, '.data/events.jsonl');
      const owner = await waitFor(() => readEvents(file)[0], EVENT_WAIT_MS, "the development owner's UserCreated");
      expect(owner.value).toMatchObject({
        'detail-type': 'UserCreated',
        source: 'user-management',
        detail: { user_email: 'dev-owner@example.com', white_label: true, should_reset_password: false },
      });

      const call = (operation: string, body: object) =>
        fetch(`http://127.0.0.1:${env.PORT}/v1/${operation}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey! },
          body: JSON.stringify(body),
        });
      const steps = [
        ['createUser', { user_email: 'jane@example.com', user_password: 'janes password' }, 'UserCreated'],
        ['resetUserPassword', { user_email: 'jane@example.com', new_password: 'another password' }, 'UserPasswordReset'],
        ['deleteUser', { user_email: 'jane@example.com' }, 'UserDeleted'],
      ] as const;
      for (const [index, [operation, body, type]] of steps.entries()) {
        expect((await call(operation, body)).status).toBe(200);
        const { value } = await waitFor(() => readEvents(file)[index + 1], EVENT_WAIT_MS, type);
        expect(value['detail-type']).toBe(type);
        expect(value.detail.user_email).toBe('jane@example.com');
      }

      expect(readEvents(file)).toHaveLength(4);
    } finally {
      started.child.kill('SIGINT');
      expect(await started.exited).toBe(0);
    }
  }, 120_000);
});
