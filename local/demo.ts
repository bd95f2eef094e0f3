/**
 * `npm run demo`: the example sign-in site (examples/sign-in-site) against `npm start`, in one command.
 * It uses the `npm start` already running in this folder (the API its .data/sign-in.json names
 * answers), or starts one; gives the development owner a demo user with a fresh generated password;
 * makes the site's key and certificate under .data/sign-in-site (never in the tree); installs the
 * site's dependencies if any is missing; starts the site (SITE_PORT, default 4443) and prints its URL.
 *
 * Ctrl-C (or SIGTERM, SIGHUP) stops what it started: the site, and npm start if it started it. Its
 * children run in process groups of their own, so that only this process stops them, in order. Any
 * failure: one line on stderr, everything it started stopped, exit 1.
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDocumentClient } from '#store/client';
import { portFromEnv } from '#store/local-engine';
import { createUsersStore } from '#store/users-store';
import { portInUse } from './free-port';

const DESCRIPTOR_FILE = resolve('.data/sign-in.json');
const TLS_DIR = resolve('.data/sign-in-site');
const SITE = resolve('examples/sign-in-site');
const DEMO_EMAIL = 'demo-user@example.com';
const DEFAULT_SITE_PORT = 4443;
/** A certificate is made for this many days, and made again once older than RENEW_DAYS. */
const CERT_DAYS = 30;
const RENEW_DAYS = 20;

interface Descriptor {
  endpoint: string;
  baseUrl: string;
  argon2Setting: string;
  usersTable: { name: string };
  signInTable: { name: string };
  developmentOwner: { email: string; ownerId: string };
}

/** What this process started, in the order it stops them (the site first, npm start last). */
const started: { name: string; child: ChildProcess }[] = [];
let stopping = false;

/** A failure meant for the reader: its message is the whole line. */
class DemoError extends Error {}

async function main(): Promise<void> {
  const sitePort = portFromEnv('SITE_PORT', DEFAULT_SITE_PORT);
  if (await portInUse(sitePort))
    throw new DemoError(`SITE_PORT ${sitePort} is already in use on 127.0.0.1: stop what listens there, or set SITE_PORT to a free port.`);

  let descriptor = await runningNpmStart();
  const ownApi = descriptor === undefined;
  if (descriptor) console.error(`Using the npm start already running here (${descriptor.baseUrl}).`);
  else descriptor = await startNpmStart();

  const password = await demoUser(descriptor);
  const tls = certificate();
  await installSite();
  const url = await startSite(sitePort, tls);

  console.log(`\nSign-in demo: open ${url} (accept the self-signed certificate) and sign in as`);
  console.log(`  e-mail:   ${DEMO_EMAIL}`);
  console.log(`  password: ${password}`);
  console.log(ownApi ? 'Ctrl-C stops the site and npm start.' : 'Ctrl-C stops the site (npm start keeps running).');
}

const readDescriptor = (): Descriptor => JSON.parse(readFileSync(DESCRIPTOR_FILE, 'utf8')) as Descriptor;

/** The descriptor of an npm start that answers at its baseUrl (the API refuses a call without a key), if any. */
async function runningNpmStart(): Promise<Descriptor | undefined> {
  if (!existsSync(DESCRIPTOR_FILE)) return undefined;
  try {
    const descriptor = readDescriptor();
    const response = await fetch(`${descriptor.baseUrl}/v1/createUser`, { method: 'POST', signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status === 401 || response.status === 403 ? descriptor : undefined;
  } catch {
    return undefined;
  }
}

/** Starts npm start's script (local/start.ts) in this folder, its output shown, until it listens. */
async function startNpmStart(): Promise<Descriptor> {
  console.error('Starting npm start (the API and DynamoDB Local)...');
  const child = launch('npm start', process.execPath, ['--import', 'tsx', 'local/start.ts'], { cwd: process.cwd(), env: process.env });
  await printed(child, 'npm start', /Listening on http:\/\/\S+/, 180_000, true);
  return readDescriptor();
}

/** The development owner's demo user, created or given a new password: the password, shown once. */
async function demoUser(descriptor: Descriptor): Promise<string> {
  process.env.ARGON2_SETTING ??= descriptor.argon2Setting;
  const { readPasswordSettings } = await import('#platform/config');
  const { createUser, resetUserPassword } = await import('#domain/users');
  const settings = readPasswordSettings();
  const db = createDocumentClient({ endpoint: descriptor.endpoint });
  try {
    const users = createUsersStore(db, descriptor.usersTable.name, descriptor.signInTable.name);
    const { email, ownerId } = descriptor.developmentOwner;
    const owner = { ownerId, ownerEmail: email, keyId: 'npm-run-demo' };
    const created = await createUser(users, owner, { user_email: DEMO_EMAIL }, settings);
    if (created.created) return created.user_password;
    const { generatePassword } = await import('#domain/passwords');
    const password = generatePassword(settings.passwordPolicy);
    if ((await resetUserPassword(users, owner, { user_email: DEMO_EMAIL, new_password: password }, settings)) !== 'reset')
      throw new DemoError(`${DEMO_EMAIL} exists but its password cannot be reset here.`);
    return password;
  } catch (error) {
    if (error instanceof DemoError) throw error;
    throw new DemoError(`Could not make the demo user in the DynamoDB at ${descriptor.endpoint}: ${(error as Error).message}`);
  } finally {
    db.destroy();
  }
}

/** The site's self-signed certificate for localhost under .data (owner-only), made again when old. */
function certificate(): { key: string; cert: string } {
  const key = join(TLS_DIR, 'key.pem');
  const cert = join(TLS_DIR, 'cert.pem');
  const fresh = existsSync(key) && existsSync(cert) && Date.now() - statSync(cert).mtimeMs < RENEW_DAYS * 86_400_000;
  if (fresh) return { key, cert };
  mkdirSync(TLS_DIR, { recursive: true, mode: 0o700 });
  chmodSync(TLS_DIR, 0o700);
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', String(CERT_DAYS)];
  const made = spawnQuiet('openssl', [...args, '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost']);
  if (made.error) throw new DemoError('openssl is needed to make the site a certificate for localhost: install it and try again.');
  if (made.status !== 0) throw new DemoError(`openssl could not make the site's certificate: ${lastLine(made.output)}`);
  chmodSync(key, 0o600);
  return { key, cert };
}

/** `npm ci` in the site's folder when one of its dependencies is missing (a first run, or one added since). */
async function installSite(): Promise<void> {
  const { dependencies } = JSON.parse(readFileSync(join(SITE, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  if (Object.keys(dependencies).every((name) => existsSync(join(SITE, 'node_modules', name, 'package.json')))) return;
  console.error("Installing the example site's dependencies (npm ci in examples/sign-in-site)...");
  const child = launch('npm ci', 'npm', ['ci', '--no-audit', '--no-fund'], { cwd: SITE, env: process.env });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((done) => child.once('close', done));
  started.splice(
    started.findIndex((entry) => entry.child === child),
    1,
  );
  if (code !== 0) throw new DemoError(`npm ci in examples/sign-in-site failed: ${lastLine(output)}`);
}

/** Starts the site (its own session secret, this run's only) and resolves with its URL once it listens. */
async function startSite(port: number, tls: { key: string; cert: string }): Promise<string> {
  const env = {
    ...process.env,
    PORT: String(port),
    SIGN_IN_DESCRIPTOR: DESCRIPTOR_FILE,
    TLS_KEY: tls.key,
    TLS_CERT: tls.cert,
    SESSION_SECRET: randomBytes(32).toString('hex'),
  };
  const child = launch('the example site', process.execPath, ['server.mjs'], { cwd: SITE, env });
  return (await printed(child, 'the example site', /Sign-in site on (https:\/\/\S+)/, 30_000, false))[1]!;
}

/** Spawns a child in a process group of its own, kept in `started`; its exit while serving is a failure. */
function launch(name: string, command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): ChildProcess {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push({ name, child });
  child.once('error', (error) => fail(new DemoError(`${name} could not start: ${error.message}`)));
  return child;
}

/**
 * Resolves once the child prints `pattern`; its output until then is kept, and passed to stderr then
 * when `show`, and all of it after. Exiting first is a failure in one line: its last line of output.
 */
function printed(child: ChildProcess, name: string, pattern: RegExp, timeoutMs: number, show: boolean): Promise<RegExpMatchArray> {
  return new Promise((resolveMatch, reject) => {
    let output = '';
    let listening = false;
    const timer = setTimeout(() => reject(new DemoError(`${name} did not start in ${timeoutMs / 1000} s: ${lastLine(output)}`)), timeoutMs);
    const read = (chunk: Buffer) => {
      if (listening) return void process.stderr.write(chunk);
      output += chunk;
      const match = output.match(pattern);
      if (!match) return;
      listening = true;
      clearTimeout(timer);
      if (show) process.stderr.write(output);
      resolveMatch(match);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!listening) reject(new DemoError(`${name} failed: ${lastLine(output)}`));
      else fail(new DemoError(`${name} exited (${signal ?? `code ${code}`}); the demo is stopped.`));
    });
  });
}

function spawnQuiet(command: string, args: string[]): { status: number | null; output: string; error?: Error } {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}`, error: result.error };
}

const lastLine = (output: string) => output.trim().split('\n').at(-1)?.trim() || 'no output';

/** Stops what this process started, last started first, each waited for (SIGKILL past a while), then exits. */
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    for (const { child } of started.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    process.exit(code);
  }
  return new Promise<never>(() => undefined);
}

/** One line on stderr, no stack trace, everything stopped, exit 1. */
function fail(error: unknown): void {
  if (stopping) return;
  const message = error instanceof DemoError ? error.message : `npm run demo failed: ${(error as Error)?.message ?? String(error)}`;
  console.error(message.split('\n')[0]);
  void stop(1);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(0));
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

main().catch(fail);
