/**
 * `npm run demo` as a reader types it, in a folder that links to the project's files (its own .data):
 * it starts npm start and the example site and prints the URL and a demo user; the URL serves the
 * sign-in page over TLS with the certificate it made under .data (none in the tree), and the demo user
 * signs in through the form; Ctrl-C to its process group stops everything it started and frees the
 * ports. A failure (DYNAMODB_PORT taken) is one line on stderr, exit 1, no stack trace, nothing left.
 * Both commands come from examples/sign-in-site/README.md: its demo line, and its "Run it by hand" block
 * run as written, in order, in a new linked folder with npm start running (the key and certificate
 * under .data, npm ci, the site started as shown, its sign-in page fetched over HTTPS trusting that
 * certificate); a command that exits non-zero, or a site that does not start, fails the test, named.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { freePort } from '../../local/free-port';
import { documentCommands, named, outcome, ran, readerEnv, readerShell } from '../support/doc-commands';
import { waitFor } from '../support/poll';
import {
  descendantPids,
  isRunning,
  killStartedScripts,
  killTree,
  linkProject,
  listeningAddresses,
  ROOT,
  startShellCommand,
} from '../support/processes';

const workdir = mkdtempSync(join(tmpdir(), 'sign-in-demo-'));
const running: ChildProcess[] = [];
// Left running (the failure these tests look for), they would outlive the test: stopped here.
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) killTree(child.pid);
});
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

const { DYNAMODB_ENDPOINT: _ignored, PORT: _port, DYNAMODB_PORT: _dynamodbPort, SITE_PORT: _sitePort, ...inherited } = process.env;

/** `npm <args>` in `cwd`, as in a terminal: npm leads a process group of its own. */
function npm(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn('npm', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return {
    child,
    exited: new Promise<number | null>((resolve) => child.on('close', resolve)),
    stderr: () => stderr,
    async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
      const seen = () => {
        const match = stdout.match(pattern);
        if (!match && child.exitCode !== null) throw new Error(`npm exited (${child.exitCode}): ${stdout}${stderr}`);
        return match ?? undefined;
      };
      return (await waitFor(seen, timeoutMs, `${pattern}`)).value;
    },
  };
}

/** One HTTPS request that trusts only `ca`: status, headers, body. */
function call(url: string, ca: Buffer, options: { method?: string; cookie?: string; form?: string } = {}) {
  return new Promise<{ status: number; cookies: string[]; location?: string; body: string }>((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.cookie) headers.cookie = options.cookie;
    if (options.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const req = request(url, { method: options.method ?? 'GET', ca, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, cookies: res.headers['set-cookie'] ?? [], location: res.headers.location, body }),
      );
    });
    req.on('error', reject);
    req.end(options.form);
  });
}
const cookieHeader = (cookies: string[]) => cookies.map((cookie) => cookie.split(';')[0]).join('; ');

/** The `.pem` files under `dir`, node_modules aside. */
const pemFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.name === 'node_modules'
      ? []
      : entry.isDirectory()
        ? pemFiles(join(dir, entry.name))
        : entry.name.endsWith('.pem')
          ? [join(dir, entry.name)]
          : [],
  );

/** The example README's commands: its first is the demo's, the rest its "Run it by hand" block. */
const [demoCommand, ...byHand] = documentCommands(ROOT, 'examples/sign-in-site/README.md');

/** npm's arguments in the README's demo command, as written (`npm run demo`). */
function documentedDemo(): string[] {
  const [tool, ...args] = demoCommand!.command.split(' ');
  expect([named(demoCommand!), tool]).toEqual([named(demoCommand!), 'npm']);
  return args;
}

describe('npm run demo', () => {
  it('starts npm start and the site, whose printed URL signs the demo user in; Ctrl-C stops everything', async () => {
    const project = join(workdir, 'project');
    mkdirSync(project);
    linkProject(project);
    const ports = { PORT: await freePort(), DYNAMODB_PORT: await freePort(), SITE_PORT: await freePort() };
    const env = {
      ...inherited,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    };
    const demo = npm(documentedDemo(), env, project);
    const [, url, email, password] = await demo.waitFor(
      /open (https:\/\/localhost:\d+) \(accept the self-signed certificate\)[^\n]*\n {2}e-mail: +(\S+)\n {2}password: +(\S+)\n/,
      300_000,
    );
    expect(url).toBe(`https://localhost:${ports.SITE_PORT}`);
    const started = descendantPids(demo.child.pid!);

    // The certificate is under the folder's .data, owner-only; none in the tree.
    const key = join(project, '.data/sign-in-site/key.pem');
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(pemFiles(join(ROOT, 'examples'))).toEqual([]);
    const ca = readFileSync(join(project, '.data/sign-in-site/cert.pem'));

    // The printed URL serves the sign-in page; the printed user signs in through its form.
    const form = await call(url!, ca);
    expect(form.status).toBe(200);
    expect(form.body).toContain('<h1>Sign in</h1>');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const posted = await call(`${url}/sign-in`, ca, {
      method: 'POST',
      cookie: cookieHeader(form.cookies),
      form: new URLSearchParams({ _csrf: csrf, email: email!, password: password! }).toString(),
    });
    expect([posted.status, posted.location]).toEqual([303, '/']);
    const signedIn = await call(url!, ca, { cookie: cookieHeader(posted.cookies) });
    expect(signedIn.body).toContain(`<p id="user">${email}</p>`);

    // Ctrl-C: the terminal's SIGINT to the whole foreground process group.
    try {
      process.kill(-demo.child.pid!, 'SIGINT');
      await demo.exited;
      const free = () => Object.values(ports).every((port) => listeningAddresses(port).length === 0);
      const gone = () => (started.every((pid) => !isRunning(pid)) && free() ? true : undefined);
      await waitFor(gone, 30_000, 'every process to exit, ports free');
      expect(started.length).toBeGreaterThanOrEqual(3);
    } finally {
      // Left running (the failure this test looks for), orphans would outlive the test: stopped here.
      for (const pid of started.filter(isRunning)) process.kill(pid, 'SIGKILL');
    }
  }, 420_000);

  it('a failure is one line and exit 1, and leaves nothing running', async () => {
    const project = join(workdir, 'failing');
    mkdirSync(project);
    linkProject(project);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const dynamodbPort = (taken.address() as { port: number }).port;
    try {
      const env = {
        ...inherited,
        PORT: String(await freePort()),
        DYNAMODB_PORT: String(dynamodbPort),
        SITE_PORT: String(await freePort()),
      };
      const demo = npm(['run', '-s', 'demo'], env, project);
      const seen: number[] = [];
      const watch = setInterval(() => seen.push(...descendantPids(demo.child.pid!).filter((pid) => !seen.includes(pid))), 50);
      expect(await demo.exited).toBe(1);
      clearInterval(watch);
      expect(demo.stderr().trim().split('\n')).toEqual([
        'Starting npm start (the API and DynamoDB Local)...',
        expect.stringMatching(new RegExp(`^npm start failed: DYNAMODB_PORT ${dynamodbPort} is already in use on 127\\.0\\.0\\.1`)),
      ]);
      expect(demo.stderr()).not.toMatch(/\n\s+at /);
      const left = seen.filter(isRunning);
      for (const pid of left) process.kill(pid, 'SIGKILL');
      expect(left).toEqual([]);
      expect(existsSync(join(project, '.data/sign-in-site'))).toBe(false);
    } finally {
      taken.close();
    }
  }, 180_000);
});

describe('examples/sign-in-site/README.md, Run it by hand: each command as written, in order', () => {
  it('with npm start running in a new folder linked to the project: the key and certificate, npm ci, the site over HTTPS', async () => {
    expect(byHand.at(-1)?.command).toMatch(/ npm start$/);
    const project = join(workdir, 'by-hand');
    mkdirSync(project);
    linkProject(project);
    // npm ci writes the site's node_modules: into a copy of examples/, so the project's own (which
    // sign-in-site.test.ts runs) is left alone; the copy's `file:../../packages/sign-in` is the linked one.
    rmSync(join(project, 'examples'));
    cpSync(join(ROOT, 'examples'), join(project, 'examples'), { recursive: true, filter: (path) => !path.includes('node_modules') });
    const ports = { PORT: await freePort(), DYNAMODB_PORT: await freePort(), SITE: await freePort() };
    const api = readerEnv({ PORT: String(ports.PORT), DYNAMODB_PORT: String(ports.DYNAMODB_PORT), POWERTOOLS_LOG_LEVEL: 'SILENT' });
    // The page's premise, npm start running in the folder (it writes .data/sign-in.json), on free ports.
    const started = startShellCommand('npm start', api, project);
    const site = readerEnv({ PORT: String(ports.SITE) });
    const shell = readerShell(project, site);
    try {
      await started.waitFor(/Listening on http:\/\/127\.0\.0\.1:\d+\/v1\n/, 180_000);
      for (const command of byHand) {
        if (!/ npm start$/.test(command.command)) {
          expect(outcome(command, shell.run(command.command))).toEqual(ran(command));
          continue;
        }
        // Long-running: the site, started as written; PORT (the page names it) is the test's free port, not 4443.
        const server = startShellCommand(command.command, site, shell.cwd());
        const [, url] = await server.waitFor(/Sign-in site on (https:\/\/localhost:\d+)/, 60_000).catch((error: Error) => {
          throw new Error(`${named(command)} did not start the site: ${error.message}`);
        });
        expect(url).toBe(`https://localhost:${ports.SITE}`);
        // The sign-in page over HTTPS, trusting only the certificate the block made.
        const page = await call(url!, readFileSync(join(project, '.data/sign-in-site/cert.pem')));
        expect([page.status, page.body.includes('<h1>Sign in</h1>')]).toEqual([200, true]);
        process.kill(-server.child.pid!, 'SIGINT');
        await server.exited;
      }
      expect(statSync(join(project, '.data/sign-in-site/key.pem')).isFile()).toBe(true);
      expect(pemFiles(join(ROOT, 'examples'))).toEqual([]);
    } finally {
      shell.dispose();
      killStartedScripts();
    }
  }, 420_000);
});
