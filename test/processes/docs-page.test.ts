/**
 * GET /docs renders the document in a real browser: Debian's Chromium, headless,
 * driven by playwright-core. A missing Chromium fails the test (`.ci/run`
 * installs it): the page is part of what the service promises. The screenshot
 * goes to a temporary folder, or to DOCS_SCREENSHOT_DIR to keep it.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { chromium } from 'playwright-core';
import { operationPath, OPERATIONS as REGISTERED } from '#contract/operations';
import { OPENAPI_PATH } from '../../codegen/openapi';
import { newOwner, startLocalServer, uniqueEmail } from '../support/local';
import { tryItOut } from '../support/swagger-ui';

const CHROMIUM = '/usr/bin/chromium';
/** No sandbox (root in a container), and no background traffic to Google's hosts on a closed network. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Every operation's path, from the registry. */
const OPERATIONS = REGISTERED.map(operationPath);

let server: Awaited<ReturnType<typeof startLocalServer>>;
let workDir: string;

beforeAll(async () => {
  server = await startLocalServer();
  workDir = mkdtempSync(join(tmpdir(), 'docs-page-'));
});
afterAll(async () => {
  await server.close();
  rmSync(workDir, { recursive: true, force: true });
});

it('GET /docs shows every operation, with nothing loaded from outside the server', async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`);
  const context = await chromium.launchPersistentContext(join(workDir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 1400 },
  });
  try {
    const page = await context.newPage();
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('request', (request) => !request.url().startsWith(server.baseUrl) && foreign.push(request.url()));

    const response = await page.goto(`${server.baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    await page
      .locator('.opblock-summary-path')
      .nth(OPERATIONS.length - 1)
      .waitFor({ timeout: 10_000 });

    const paths = await page.locator('.opblock-summary-path').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-path')));
    expect(paths).toEqual(OPERATIONS);
    await expect(page.locator('.info .title').textContent()).resolves.toContain('White-label user management API');
    const screenshot = join(process.env.DOCS_SCREENSHOT_DIR ?? workDir, 'docs.png');
    await page.screenshot({ path: screenshot, fullPage: false });
    expect(existsSync(screenshot)).toBe(true);
    expect({ problems, foreign }).toEqual({ problems: [], foreign: [] });
  } finally {
    await context.close();
  }
}, 30_000);

it('the document is the same whatever the Host header: its server is relative (`.`), never the name the request used', async () => {
  const port = new URL(server.baseUrl).port;
  // node:http, since fetch will not send a Host header of the caller's choosing.
  const served = (host: string) =>
    new Promise<string>((resolve, reject) => {
      get(`${server.baseUrl}/openapi.json`, { headers: { host } }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve(body));
      }).on('error', reject);
    });
  const committed = readFileSync(OPENAPI_PATH, 'utf8');
  // A DNS-rebinding name included: nothing of the Host header is ever written into the document.
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `attacker.example:${port}`]) {
    await expect(served(host)).resolves.toBe(committed);
  }
  expect((JSON.parse(committed) as { servers: { url: string }[] }).servers.map((entry) => entry.url)).toEqual(['.']);
});

it.each(['127.0.0.1', 'localhost'])(
  '"Try it out" on /docs opened at %s creates a user through the server',
  async (host) => {
    if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`);
    const origin = `http://${host}:${new URL(server.baseUrl).port}`;
    const { apiKey } = await newOwner('docs-owner');
    const email = uniqueEmail('docs-user');
    const context = await chromium.launchPersistentContext(join(workDir, `profile-${host}`), {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 1400 },
    });
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/docs`);
      const operation = await tryItOut(page, apiKey, 'createUser');
      await operation.locator('textarea.body-param__text').fill(JSON.stringify({ user_email: email, user_password: 'long enough' }));
      const [response] = await Promise.all([
        page.waitForResponse((candidate) => candidate.url().endsWith('/v1/createUser'), { timeout: 15_000 }),
        operation.locator('button.execute').click(),
      ]);
      expect(response.url()).toBe(`${origin}/v1/createUser`);
      expect(response.status()).toBe(200);
      expect(await response.json()).toEqual({ user_email: email, user_password: 'long enough' });
      await expect(operation.locator('.live-responses-table tbody td.response-col_status').first().textContent()).resolves.toContain('200');
    } finally {
      await context.close();
    }
  },
  60_000,
);

it('"Try it out" twice as one owner: both answered 200, the Idempotency-Key field left empty and no key sent', async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`);
  const { apiKey } = await newOwner('docs-twice');
  const context = await chromium.launchPersistentContext(join(workDir, 'profile-twice'), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 1400 },
  });
  try {
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/docs`);
    const operation = await tryItOut(page, apiKey, 'createUser');
    // A fixed key pre-filled here made the second try's other body a reused key: 422 for 24 hours.
    const prefilled = await operation.locator('tr[data-param-name="Idempotency-Key"] input').inputValue();
    const answers: { status: number; idempotencyKey: string | null }[] = [];
    for (const email of [uniqueEmail('docs-first'), uniqueEmail('docs-second')]) {
      await operation.locator('textarea.body-param__text').fill(JSON.stringify({ user_email: email, user_password: 'long enough' }));
      const [response] = await Promise.all([
        page.waitForResponse((candidate) => candidate.url().endsWith('/v1/createUser'), { timeout: 15_000 }),
        operation.locator('button.execute').click(),
      ]);
      answers.push({ status: response.status(), idempotencyKey: (await response.request().allHeaders())['idempotency-key'] ?? null });
    }
    expect({ prefilled, answers }).toEqual({
      prefilled: '',
      answers: [
        { status: 200, idempotencyKey: null },
        { status: 200, idempotencyKey: null },
      ],
    });
  } finally {
    await context.close();
  }
}, 60_000);
