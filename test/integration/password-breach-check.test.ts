/**
 * The optional online check (Pwned Passwords range API) over real HTTP: the local server with
 * PWNED_PASSWORDS_URL pointed at a stand-in on loopback that answers range requests, answers too
 * slowly, or fails. Found: the contract's breached message. Slow (over 1 s) or failing: fail-open
 * (the offline list alone decides) and one `breachCheckUnavailable` metric with its one dimension set (`check`).
 */

import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';

jest.setTimeout(60_000);

/** What the stand-in does with the next requests. */
let mode: 'range' | 'slow' | 'error' = 'range';
/** SHA-1 suffixes (35 hex, upper case) the stand-in reports as breached, or as padding (count 0). */
const breached = new Set<string>();
const padding = new Set<string>();
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

const standIn: Server = createServer((request, response) => {
  seen.push({ url: request.url ?? '', headers: request.headers });
  if (mode === 'error') {
    response.writeHead(503).end('unavailable');
    return;
  }
  const answer = () => {
    const prefix = /^\/range\/([0-9A-F]{5})$/.exec(request.url ?? '')?.[1];
    if (!prefix) return void response.writeHead(404).end();
    const lines = [
      ...[...breached].map((suffix) => `${suffix}:42`),
      ...[...padding].map((suffix) => `${suffix}:0`),
      // Unrelated entries, as the real service sends hundreds.
      ...Array.from({ length: 50 }, () => `${randomBytes(18).toString('hex').slice(0, 35).toUpperCase()}:3`),
    ];
    response.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
  };
  if (mode === 'slow') setTimeout(answer, 1_500);
  else answer();
});
await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));

// Before the pipeline reads its configuration and the metrics instance is created (at their first import).
process.env.PWNED_PASSWORDS_URL = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
const { apiClient } = await import('../support/http-client');
const { captureStdout } = await import('../support/output');
const { newOwner, startLocalServer, uniqueEmail } = await import('../support/local');
const { BREACH_CHECK_UNAVAILABLE_METRIC } = await import('#platform/metrics');

let server: Awaited<ReturnType<typeof startLocalServer>>;
let call: ReturnType<typeof apiClient>;
const lines: string[] = [];

beforeAll(async () => {
  server = await startLocalServer();
  call = apiClient(server.baseUrl, (await newOwner('breach')).apiKey);
  captureStdout(lines);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await server.close();
  standIn.closeAllConnections();
  await new Promise((resolve) => standIn.close(resolve));
});

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex').toUpperCase();
const freshPassword = () => randomBytes(15).toString('base64');

/** The `breachCheckUnavailable` EMF lines written since `from`, with their dimension sets. */
const unavailableMetrics = (from: number) =>
  lines
    .slice(from)
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { _aws?: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] } }];
      } catch {
        return [];
      }
    })
    .flatMap((emf) => emf._aws?.CloudWatchMetrics ?? [])
    .filter((directive) => directive.Metrics.some((metric) => metric.Name === BREACH_CHECK_UNAVAILABLE_METRIC));

describe('the online check answers', () => {
  it('a password it reports breached: 400 with the contract message, on create and on reset; only 5 hex characters sent, with Add-Padding', async () => {
    mode = 'range';
    const password = freshPassword();
    breached.add(sha1(password).slice(5));
    const before = seen.length;
    const email = uniqueEmail('breached');
    const created = await call('/v1/createUser', { user_email: email, user_password: password });
    expect([created.status, created.body]).toEqual([400, { message: 'user_password has appeared in a data breach: choose another.' }]);
    const reset = await call('/v1/resetUserPassword', { user_email: email, new_password: password });
    expect([reset.status, reset.body]).toEqual([400, { message: 'new_password has appeared in a data breach: choose another.' }]);
    const requests = seen.slice(before);
    expect(requests.map((r) => r.url)).toEqual([`/range/${sha1(password).slice(0, 5)}`, `/range/${sha1(password).slice(0, 5)}`]);
    expect(requests.every((r) => r.headers['add-padding'] === 'true')).toBe(true);
  });

  it('a password absent, or present only as padding (count 0): accepted', async () => {
    mode = 'range';
    const padded = freshPassword();
    padding.add(sha1(padded).slice(5));
    for (const password of [freshPassword(), padded]) {
      const response = await call('/v1/createUser', { user_email: uniqueEmail('clean'), user_password: password });
      expect([response.status, response.body]).toEqual([200, expect.objectContaining({ user_password: password })]);
    }
  });

  it('a password the offline list refuses is refused without asking the service', async () => {
    const before = seen.length;
    const response = await call('/v1/createUser', { user_email: uniqueEmail('offline'), user_password: 'iloveyou' });
    expect([response.status, response.body]).toEqual([400, { message: 'user_password is too easy to guess: choose another.' }]);
    expect(seen.length).toBe(before);
  });
});

describe('fail-open: when the service is slow or fails, the offline list alone decides, and a metric counts it', () => {
  // The least time the request takes: a slow answer is waited for up to the check's 1 s budget.
  it.each([
    ['slow', 1_000],
    ['error', 0],
  ] as const)(
    '%s: a password it would report is accepted; one breachCheckUnavailable metric, its dimension set [[check]]',
    async (how, leastMs) => {
      mode = how;
      const password = freshPassword();
      breached.add(sha1(password).slice(5));
      const from = lines.length;
      const started = Date.now();
      const response = await call('/v1/createUser', { user_email: uniqueEmail(how), user_password: password });
      expect(response.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(leastMs);
      const metrics = unavailableMetrics(from);
      expect(metrics).toHaveLength(1);
      expect(metrics[0]!.Dimensions).toEqual([['check']]);
      // Still refused offline.
      const offline = await call('/v1/createUser', { user_email: uniqueEmail(how), user_password: 'password1' });
      expect([offline.status, offline.body]).toEqual([400, { message: 'user_password is too easy to guess: choose another.' }]);
    },
  );
});

describe('import-users with the online check on (PWNED_PASSWORDS_URL in the operator’s environment)', () => {
  it('a clear user_password it finds fails its line as `user_password found in a data breach`; the others import', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { runScript } = await import('../support/processes');
    mode = 'range';
    const owner = await newOwner('breach-import');
    const found = freshPassword();
    breached.add(sha1(found).slice(5));
    const users = [
      { user_email: uniqueEmail('import-breached'), user_password: found },
      { user_email: uniqueEmail('import-clean'), user_password: freshPassword() },
    ];
    const dir = mkdtempSync(join(tmpdir(), 'breach-import-'));
    try {
      const file = join(dir, 'users.jsonl');
      writeFileSync(file, `${users.map((user) => JSON.stringify(user)).join('\n')}\n`);
      const run = await runScript('admin/cli.ts', ['import-users', owner.ownerEmail, file], {
        ...process.env,
        POWERTOOLS_LOG_LEVEL: 'SILENT',
      });
      expect([run.code, run.stdout]).toEqual([1, '{"imported":1,"exists":0,"failed":1}\n']);
      expect(run.stderr.split('\n').filter((line) => line.startsWith('{'))).toEqual([
        JSON.stringify({ line: 1, user_email: users[0]!.user_email, reason: 'user_password found in a data breach' }),
      ]);
      // Fail-open, as on the API: the stand-in failing lets the offline rules decide, said once on stderr.
      mode = 'error';
      const again = users.map((user) => ({ ...user, user_email: uniqueEmail('import-unavailable') }));
      writeFileSync(file, `${again.map((user) => JSON.stringify(user)).join('\n')}\n`);
      const open = await runScript('admin/cli.ts', ['import-users', owner.ownerEmail, file], {
        ...process.env,
        POWERTOOLS_LOG_LEVEL: 'SILENT',
      });
      expect([open.code, open.stdout]).toEqual([0, '{"imported":2,"exists":0,"failed":0}\n']);
      expect(open.stderr.match(/did not answer/g)).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
