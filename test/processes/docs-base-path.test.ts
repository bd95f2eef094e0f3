/**
 * The served document is right behind a reverse proxy that adds a base path, as a custom domain
 * with a base path mapping does in front of a deployed stage (`api.example.com/users` → the stage):
 * the page is opened through the proxy in headless Chromium, and Swagger UI's "Try it out" sends
 * its request through the proxy, base path included, and gets the API's answer. The document
 * names its server relative to where it is served (`.`), so no host or path is written into it.
 */

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { chromium } from 'playwright-core';
import { newOwner, startLocalServer, uniqueEmail } from '../support/local';
import { tryItOut } from '../support/swagger-ui';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'];
const BASE_PATH = '/users';

let server: Awaited<ReturnType<typeof startLocalServer>>;
let proxy: Server;
let proxyUrl: string;
let workDir: string;
/** Every request the proxy received, as `METHOD path`, and whether it forwarded it. */
const seen: { request: string; forwarded: boolean }[] = [];

/** `/users/...` → the local server's `/...`, Host and all; anything else is the proxy's own 404. */
function startProxy(target: string): Promise<Server> {
  const { port } = new URL(target);
  const proxyServer = createServer((req: IncomingMessage, res) => {
    const path = req.url ?? '/';
    const forwarded = path.startsWith(`${BASE_PATH}/`);
    seen.push({ request: `${req.method} ${path}`, forwarded });
    if (!forwarded) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not behind the base path');
      return;
    }
    const upstream = request(
      { host: '127.0.0.1', port: Number(port), method: req.method, path: path.slice(BASE_PATH.length), headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((resolve) => proxyServer.listen(0, '127.0.0.1', () => resolve(proxyServer)));
}

beforeAll(async () => {
  server = await startLocalServer();
  proxy = await startProxy(server.baseUrl);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  workDir = mkdtempSync(join(tmpdir(), 'docs-base-path-'));
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await server.close();
  rmSync(workDir, { recursive: true, force: true });
});

it(`"Try it out" on /docs opened at ${BASE_PATH}/docs behind a proxy: the request goes through the proxy, base path included`, async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`);
  const { apiKey } = await newOwner('base-path-owner');
  const email = uniqueEmail('base-path-user');
  const context = await chromium.launchPersistentContext(join(workDir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 1400 },
  });
  try {
    const page = await context.newPage();
    const elsewhere: string[] = [];
    page.on('request', (sent) => !sent.url().startsWith(`${proxyUrl}${BASE_PATH}/`) && elsewhere.push(sent.url()));
    expect((await page.goto(`${proxyUrl}${BASE_PATH}/docs`))?.status()).toBe(200);
    const operation = await tryItOut(page, apiKey, 'createUser');
    await operation.locator('textarea.body-param__text').fill(JSON.stringify({ user_email: email, user_password: 'long enough' }));
    const [sent] = await Promise.all([
      page.waitForRequest((candidate) => candidate.url().endsWith('/v1/createUser'), { timeout: 15_000 }),
      operation.locator('button.execute').click(),
    ]);
    expect(sent.url()).toBe(`${proxyUrl}${BASE_PATH}/v1/createUser`);
    const response = (await sent.response())!;
    expect({ status: response.status(), body: await response.json() }).toEqual({
      status: 200,
      body: { user_email: email, user_password: 'long enough' },
    });
    await expect(operation.locator('.live-responses-table tbody td.response-col_status').first().textContent()).resolves.toContain('200');
    // Everything the page asked for went through the proxy under the base path; the proxy forwarded the call.
    expect(elsewhere).toEqual([]);
    expect(seen).toContainEqual({ request: `POST ${BASE_PATH}/v1/createUser`, forwarded: true });
    expect(seen.filter((entry) => !entry.forwarded)).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
