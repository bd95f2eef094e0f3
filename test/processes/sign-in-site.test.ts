/**
 * The example site (examples/sign-in-site) in headless Chromium against a fresh `npm start`: a user signs
 * in (a new session id; the session cookie and the device cookie, each `__Host-`, HttpOnly, Secure,
 * SameSite=Lax, the device cookie under the account's name for DEVICE_COOKIE.days) and signs out, keeping
 * the device cookie; an attacker in another browser context (another client address) gets `wrong`, then
 * the wait, then (its state written in DynamoDB Local) `locked`, for the right password too, while the
 * first browser, holding its device cookie, still signs in; a reset through the API voids that cookie, and
 * the first browser is then refused like the attacker. A browser keeps at most DEVICE_COOKIE.perBrowser
 * device cookies, dropping the least recently used; a must-reset user chooses a new password (a refused
 * one first); a reset through the API signs a signed-in browser out at its next request (checkSession); a
 * form posted without its CSRF token is refused. Logs the page weight and the time to sign in.
 * Every page the user meets is shot at a phone's width and a laptop's into SCREENSHOTS (printed), and fails
 * on horizontal scrolling, on a missing brand, or on a field name (`new_password`...) in its visible text.
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { hashTag, UNTRUSTED_FAILURE_LIMIT } from '#sign-in/domain/sign-in-attempts';
import { REFUSAL_MEMORY } from '#sign-in/domain/sign-in-memory';
import { createDocumentClient } from '#store/client';
import { signInStateKey, userKey } from '#store/table-layout';
import { freePort } from '../../local/free-port';
import { DEVICE_COOKIE, deviceCookieName } from '../../packages/sign-in/src/index';
import { killStartedScripts, killTree, ROOT, startScript } from '../support/processes';
import { nodeBinary } from '../support/stranger';

jest.setTimeout(600_000);
const CHROMIUM = '/usr/bin/chromium';
const SITE = join(ROOT, 'examples/sign-in-site');
const work = mkdtempSync(join(tmpdir(), 'sign-in-site-'));
/** Where the pages' screenshots go: kept after the run for a reader to look at, outside the tree. */
const SCREENSHOTS = mkdtempSync(join(tmpdir(), 'sign-in-site-screenshots-'));
/** The brand slot the test fills, as a tool would. */
const SITE_NAME = 'Acme Tasks';
let apiBase: string;
let apiKey: string;
let siteUrl: string;
let site: ChildProcess | undefined;
let browser: Browser;
let descriptor: { endpoint: string; developmentOwner: { ownerId: string }; usersTable: { name: string }; signInTable: { name: string } };

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`);
  const { DYNAMODB_ENDPOINT: _ignored, ...inherited } = process.env;
  const ports = { PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()) };
  const started = startScript(
    'local/start.ts',
    { ...inherited, ...ports, POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
    work,
  );
  apiKey = (await started.waitFor(/export API_KEY=(wlk_\S+)/, 120_000))[1]!;
  await started.waitFor(/Listening on/, 120_000);
  apiBase = `http://127.0.0.1:${ports.PORT}`;
  descriptor = JSON.parse(readFileSync(join(work, '.data/sign-in.json'), 'utf8')) as typeof descriptor;
  // The site's own dependencies, as its README installs them (again when one is missing: a folder installed before it was added).
  const { dependencies } = JSON.parse(readFileSync(join(SITE, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  if (Object.keys(dependencies).some((name) => !existsSync(join(SITE, 'node_modules', name, 'package.json'))))
    expect(spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: SITE, encoding: 'utf8', timeout: 300_000 }).status).toBe(0);
  // A certificate for localhost, as `npm run demo` makes one, here in the test's own folder.
  const tls = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=localhost'],
    { cwd: work, encoding: 'utf8' },
  );
  expect(tls.status).toBe(0);
  const port = await freePort();
  siteUrl = `https://localhost:${port}`;
  site = spawn(nodeBinary(24), ['server.mjs'], {
    cwd: SITE,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      SIGN_IN_DESCRIPTOR: join(work, '.data/sign-in.json'),
      TLS_KEY: join(work, 'key.pem'),
      TLS_CERT: join(work, 'cert.pem'),
      SESSION_SECRET: 'a test-only session secret',
      // Each browser context below comes from its own client address (X-Forwarded-For), as a user and an attacker do.
      TRUST_PROXY: 'loopback',
      SITE_NAME,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  site.stdout!.on('data', (chunk) => (output += chunk));
  site.stderr!.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 30_000;
  while (!output.includes('Sign-in site on')) {
    if (Date.now() > deadline || site.exitCode !== null) throw new Error(`the site did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log(`Screenshots of the site's pages in ${SCREENSHOTS}`);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  killTree(site?.pid);
  killStartedScripts();
  rmSync(work, { recursive: true, force: true });
});

const RIGHT = 'the user own passphrase';
const createUser = async (email: string, password: string, mustReset = false) => {
  const response = await fetch(`${apiBase}/v1/createUser`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ user_email: email, user_password: password, should_reset_password: mustReset }),
  });
  expect(response.status).toBe(200);
};
const resetPassword = async (email: string, password: string) => {
  const response = await fetch(`${apiBase}/v1/resetUserPassword`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ user_email: email, new_password: password }),
  });
  expect(response.status).toBe(200);
};
const unique = (tag: string) => `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@example.com`;
let addresses = 0;
/** A browser context of its own, from a client address of its own (documentation range, RFC 5737). */
const newContext = () =>
  browser.newContext({ ignoreHTTPSErrors: true, extraHTTPHeaders: { 'x-forwarded-for': `198.51.100.${++addresses}` } });
const cookieOf = async (context: BrowserContext, name: string) => (await context.cookies()).find((c) => c.name === name);
const deviceCookieOf = (context: BrowserContext, email: string) =>
  cookieOf(context, deviceCookieName(descriptor.developmentOwner.ownerId, email));
const deviceCookiesIn = async (context: BrowserContext) =>
  (await context.cookies()).filter((c) => c.name.startsWith(DEVICE_COOKIE.prefix)).map((c) => c.name);

/** A name the API or a form uses for a field, never words for a user. */
const FIELD_NAME = /\b(?:new_password|current_password|user_password|user_email|email|should_reset_password|password_hash)\b|_csrf/;
const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];
/** Shoots the page at each width into SCREENSHOTS; fails on horizontal scrolling, a field name shown, or no brand. */
async function look(page: Page, name: string) {
  for (const size of WIDTHS) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size.width}.png`), fullPage: true });
    const seen = (await page.evaluate(
      '({ overflow: document.documentElement.scrollWidth > window.innerWidth, text: document.body.innerText })',
    )) as { overflow: boolean; text: string };
    expect({ name, width: size.width, overflow: seen.overflow }).toEqual({ name, width: size.width, overflow: false });
    expect(seen.text).not.toMatch(FIELD_NAME);
    expect(seen.text).toContain(SITE_NAME);
  }
}

/** One sign-in through the form, in a fresh page of `context`: who is signed in, or the page's alert. */
async function attempt(context: BrowserContext, email: string, password: string) {
  const page = await context.newPage();
  await page.goto(siteUrl);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await page.click('button');
  await page.waitForSelector('#user, p[role=alert], input[name=current]');
  const user = (await page.$('#user')) ? ((await page.textContent('#user')) ?? '') : undefined;
  const alert = (await page.$('p[role=alert]')) ? ((await page.textContent('p[role=alert]')) ?? '') : undefined;
  return { page, user, alert };
}
/** The sign-out button of a signed-in page: back to the sign-in form. */
async function signOut(page: Page) {
  await page.click('button');
  await page.waitForSelector('input[name=email]');
}
/** A sign-in that must succeed, then its sign-out. */
async function signInAndOut(context: BrowserContext, email: string, password: string) {
  const { page, user, alert } = await attempt(context, email, password);
  expect({ user, alert }).toEqual({ user: email, alert: undefined });
  await signOut(page);
  await page.close();
}
/** A sign-in that must be refused: the page's alert. */
async function refused(context: BrowserContext, email: string, password: string, shot?: string) {
  const { page, user, alert } = await attempt(context, email, password);
  if (shot) await look(page, shot);
  await page.close();
  expect(user).toBeUndefined();
  return alert;
}
const LOCKED = `This account is locked after too many failed attempts. Ask the ${SITE_NAME} team to reset your password.`;
const THROTTLED = /^Too many attempts: try again in (?:1 second|\d+ seconds|\d+ minutes)\.$/;

/** Writes the account's untrusted state as UNTRUSTED_FAILURE_LIMIT failures leave it, against its stored hash. */
async function lockInDynamoDb(email: string) {
  const db = createDocumentClient({ endpoint: descriptor.endpoint });
  const ownerId = descriptor.developmentOwner.ownerId;
  const hash = (await db.send(new GetCommand({ TableName: descriptor.usersTable.name, Key: userKey(ownerId, email) }))).Item!
    .password_hash as string;
  await db.send(
    new PutCommand({
      TableName: descriptor.signInTable.name,
      Item: { ...signInStateKey(ownerId, email), failures: UNTRUSTED_FAILURE_LIMIT, wait_until: 0, hash_tag: hashTag(hash) },
    }),
  );
  db.destroy();
  // The site's process remembers a refusal it answered for REFUSAL_MEMORY.ms without a read (the fair lane's
  // memory); past that, the next untrusted attempt reads the state written here.
  await new Promise((resolve) => setTimeout(resolve, REFUSAL_MEMORY.ms + 100));
}

describe('the example sign-in site in Chromium', () => {
  it("a browser holding its device cookie signs in through an attacker's wait and lock, until a reset through the API voids it", async () => {
    const email = unique('site-user');
    await createUser(email, RIGHT);
    const user = await newContext();
    const first = await user.newPage();
    let bytes = 0;
    first.on('response', async (response) => {
      bytes += (await response.body().catch(() => Buffer.alloc(0))).length;
    });
    // The sign-in post's own share: from its request sent to its response's first byte (the site and the module).
    let postMs = 0;
    first.on('requestfinished', (request) => {
      if (request.method() === 'POST') postMs = request.timing().responseStart - request.timing().requestStart;
    });
    await first.goto(siteUrl);
    await look(first, 'sign-in');
    expect(await first.textContent('main')).toContain(`Forgot your password? Ask the ${SITE_NAME} team to reset it.`);
    await first.setViewportSize(WIDTHS[1]!);
    const before = await cookieOf(user, '__Host-session');
    await first.fill('input[name=email]', email);
    await first.fill('input[name=password]', RIGHT);
    const started = performance.now();
    await first.click('button');
    await first.waitForSelector('#user');
    const signInMs = performance.now() - started;
    expect(await first.textContent('#user')).toBe(email);
    await look(first, 'signed-in');
    const session = (await cookieOf(user, '__Host-session'))!;
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    expect(session.value).not.toBe(before?.value);
    console.log(JSON.stringify({ signInPageBytes: bytes, timeToSignInMs: Math.round(signInMs), signInPostMs: Math.round(postMs) }));

    // The device cookie, as the contract keeps it: apart from the session, under the account's own name.
    const device = (await deviceCookieOf(user, email))!;
    expect(device).toBeDefined();
    expect(device.name.startsWith('__Host-')).toBe(true);
    expect(device.name.startsWith(DEVICE_COOKIE.prefix)).toBe(true);
    expect(device).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/', domain: 'localhost' });
    expect(device.value).not.toBe(session.value);
    expect(Math.abs(device.expires - (Date.now() / 1000 + DEVICE_COOKIE.days * 86_400))).toBeLessThan(120);

    // Sign-out ends the session and keeps the device cookie.
    await signOut(first);
    expect((await cookieOf(user, '__Host-session'))?.value).not.toBe(session.value);
    expect((await deviceCookieOf(user, email))?.value).toBe(device.value);
    await first.close();

    // An attacker in another browser: wrong until the account waits, then the wait for the right password too.
    const attacker = await newContext();
    const outcomes: (string | undefined)[] = [];
    for (let guess = 0; guess < 7; guess++)
      outcomes.push(await refused(attacker, email, `guess ${guess}`, { 0: 'sign-in-wrong', 6: 'sign-in-throttled' }[guess]));
    expect(outcomes.slice(0, 6)).toEqual(Array(6).fill('Wrong e-mail or password.'));
    expect(outcomes[6]).toMatch(THROTTLED);
    expect(await refused(attacker, email, RIGHT)).toMatch(THROTTLED);
    // The first browser signs in through the wait, and gets a fresh cookie.
    await signInAndOut(user, email, RIGHT);
    const rotated = (await deviceCookieOf(user, email))!;
    expect(rotated.value).not.toBe(device.value);

    // Locked: the right password from the attacker's browser is refused, and the first browser still signs in.
    await lockInDynamoDb(email);
    expect(await refused(attacker, email, RIGHT, 'sign-in-locked')).toBe(LOCKED);
    await signInAndOut(user, email, RIGHT);
    expect(await refused(attacker, email, RIGHT)).toBe(LOCKED);

    // A reset through the API voids the first browser's cookie: locked again, it is refused like the attacker.
    const held = (await deviceCookieOf(user, email))!;
    await resetPassword(email, 'a password the owner reset');
    await lockInDynamoDb(email);
    // The attacker's first address has had its ADDRESS_LIMIT.attempts for this window: it goes on from another.
    const elsewhere = await newContext();
    expect(await refused(elsewhere, email, 'a password the owner reset')).toBe(LOCKED);
    expect(await refused(user, email, 'a password the owner reset')).toBe(LOCKED);
    // It still sent the cookie: the refusal is the void cookie's, not a missing one.
    expect((await deviceCookieOf(user, email))?.value).toBe(held.value);
    await Promise.all([user.close(), attacker.close(), elsewhere.close()]);
  });

  it('a browser keeps at most DEVICE_COOKIE.perBrowser device cookies, dropping the least recently used', async () => {
    const emails = Array.from({ length: DEVICE_COOKIE.perBrowser + 1 }, (_, i) => unique(`site-shared-${i}`));
    await Promise.all(emails.map((email) => createUser(email, RIGHT)));
    const shared = await newContext();
    const name = (email: string) => deviceCookieName(descriptor.developmentOwner.ownerId, email);
    for (const email of emails.slice(0, -1)) await signInAndOut(shared, email, RIGHT);
    expect((await deviceCookiesIn(shared)).sort()).toEqual(emails.slice(0, -1).map(name).sort());
    // The first account used again is the most recent; the second is now the least recently used, and goes.
    await signInAndOut(shared, emails[0]!, RIGHT);
    await signInAndOut(shared, emails.at(-1)!, RIGHT);
    expect((await deviceCookiesIn(shared)).sort()).toEqual(
      emails
        .filter((_, i) => i !== 1)
        .map(name)
        .sort(),
    );
    await shared.close();
  });

  it('must-reset: the new-password form says why, words for a wrong current password and a refused one, then a session', async () => {
    const email = unique('site-reset');
    await createUser(email, 'a temporary passphrase', true);
    const context = await newContext();
    const { page } = await attempt(context, email, 'a temporary passphrase');
    expect(await page.textContent('h1')).toBe('Choose a new password');
    expect(await page.textContent('main')).toContain(`Your password was set for you by the ${SITE_NAME} team`);
    await look(page, 'new-password');
    const issued = (await deviceCookieOf(context, email))!;
    expect(issued).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    const post = async (current: string, password: string) => {
      await page.fill('input[name=current]', current);
      await page.fill('input[name=password]', password);
      await page.click('button[type=submit]');
      await page.waitForSelector('p[role=alert], #user');
      return (await page.$('p[role=alert]')) ? await page.textContent('p[role=alert]') : undefined;
    };
    // A wrong current password: the form has no e-mail field, and says so of the current password alone.
    expect(await post('not the temporary one', 'my very own new passphrase')).toBe(
      'Your current password is not right. Enter the password you signed in with.',
    );
    await look(page, 'new-password-wrong');
    expect(await post('a temporary passphrase', 'password123')).toBe(
      'That new password is too easy to guess. Choose another: a few unrelated words make a good one.',
    );
    await look(page, 'new-password-refused');
    // Show passwords: the box turns both fields to text, and the form still posts them.
    await page.fill('input[name=current]', 'a temporary passphrase');
    await page.fill('input[name=password]', 'my very own new passphrase');
    await page.check('input[data-show]');
    expect(await page.locator('input[data-secret]').evaluateAll((inputs) => inputs.map((input) => input.getAttribute('type')))).toEqual([
      'text',
      'text',
    ]);
    await page.click('button[type=submit]');
    await page.waitForSelector('#user');
    expect(await page.textContent('#user')).toBe(email);
    expect((await deviceCookieOf(context, email))?.value).not.toBe(issued.value);
    await context.close();
  });

  it('signs a browser out at its next request once the password is reset through the API (checkSession on every request)', async () => {
    const email = unique('site-ended');
    await createUser(email, RIGHT);
    const context = await newContext();
    const { page, user } = await attempt(context, email, RIGHT);
    expect(user).toBe(email);
    await page.reload();
    expect(await page.textContent('#user')).toBe(email);
    await resetPassword(email, 'a password the owner reset');
    await page.reload();
    await page.waitForSelector('input[name=email]');
    expect(await page.$('#user')).toBeNull();
    // Signed out for good: the next request too, and the new password starts a new session.
    await page.reload();
    expect(await page.$('#user')).toBeNull();
    expect((await attempt(context, email, 'a password the owner reset')).user).toBe(email);
    await context.close();
  });

  it('refuses a form posted without its CSRF token', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(siteUrl);
    const status = await page.evaluate(async () => {
      const response = await fetch('/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=a%40example.com&password=x',
      });
      return response.status;
    });
    expect(status).toBe(403);
    await context.close();
  });
});
