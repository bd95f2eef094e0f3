/**
 * A tool's back end as its developer runs it: `npm start` (local/start.ts) in a folder of its own, on
 * ports of its own, and the built sign-in package (packages/sign-in/dist, built here) reading the
 * descriptor npm start wrote, on a clock the test moves (never backwards), its DynamoDB calls through a
 * gate that records them (test/support/dynamodb-gate.ts). Users are made through npm start's API and
 * owners through the admin CLI, as a developer makes them; a test writes the engine directly only to
 * put an account in a state that would take hours of guesses to reach.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from '@jest/globals';
import { FREE_FAILURES, hashTag, UNTRUSTED_FAILURE_LIMIT } from '#sign-in/domain/sign-in-attempts';
import { createDocumentClient } from '#store/client';
import { processStores } from '#store/stores';
import { DEVICE_SK_PREFIX, signInStateKey, userKey, userPk } from '#store/table-layout';
import { freePort } from '../../local/free-port';
import type * as SignInPackage from '../../packages/sign-in/src/index';
import { startDynamoDBGate } from './dynamodb-gate';
import { uniqueEmail } from './local';
import { killTree, ROOT, runScript, startScript } from './processes';

/** The device cookie of a success (`ok` or `must-reset`). */
export function cookieOf(result: SignInPackage.SignInResult): string {
  if (result.outcome !== 'ok' && result.outcome !== 'must-reset') throw new Error(`expected a success, got ${JSON.stringify(result)}`);
  return result.deviceCookie;
}

export type WorldOwner = { ownerId: string; ownerEmail: string; apiKey: string };
export type SignInWorld = Awaited<ReturnType<typeof startSignInWorld>>;

/** What the sign-in package's dist/ is built from (codegen/packages.ts bundles the shared workspace into it). */
const BUILT_FROM = [
  'packages/sign-in/src',
  'packages/sign-in/package.json',
  'functions/shared',
  'codegen/packages.ts',
  'scripts/build-packages.ts',
];

/** Whether dist/ was written after the last change to anything it is built from (as make decides). */
function signInPackageCurrent(): boolean {
  const outputs = ['index.js', 'index.d.ts'].map((file) => join(ROOT, 'packages/sign-in/dist', file));
  if (!outputs.every((file) => existsSync(file))) return false;
  const builtAt = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  const inputs = BUILT_FROM.flatMap((path) =>
    statSync(join(ROOT, path)).isDirectory()
      ? (readdirSync(join(ROOT, path), { recursive: true }) as string[])
          .filter((file) => !/(^|\/)node_modules(\/|$)/.test(file))
          .map((file) => join(ROOT, path, file))
      : [join(ROOT, path)],
  );
  return inputs.every((file) => statSync(file).mtimeMs < builtAt);
}

/** Builds the sign-in package into its dist/ folder, as `npm install` does, unless it is current. */
function buildSignInPackage(): void {
  if (signInPackageCurrent()) return;
  const build = spawnSync('npm', ['run', '-s', 'build', '--workspace', 'packages/sign-in'], { cwd: ROOT, encoding: 'utf8' });
  expect([build.status, build.error]).toEqual([0, undefined]);
}

/** Starts npm start and the built package on it. Close it in afterAll. */
export async function startSignInWorld(tag: string) {
  const work = mkdtempSync(join(tmpdir(), `${tag}-`));
  const { DYNAMODB_ENDPOINT: _theTests, ...inherited } = process.env;
  const env = { ...inherited, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'SILENT' };
  const started = startScript('local/start.ts', { ...env, POWERTOOLS_METRICS_DISABLED: 'true' }, work);
  const apiKey = (await started.waitFor(/export API_KEY=(wlk_\S+)/, 120_000))[1]!;
  await started.waitFor(/Listening on/, 120_000);
  const descriptorFile = join(work, '.data/sign-in.json');
  const descriptor = JSON.parse(readFileSync(descriptorFile, 'utf8')) as {
    endpoint: string;
    baseUrl: string;
    developmentOwner: { email: string; ownerId: string };
  };
  buildSignInPackage();
  const dist = (await import(pathToFileURL(join(ROOT, 'packages/sign-in/dist/index.js')).href)) as typeof SignInPackage;
  const gate = await startDynamoDBGate(descriptor.endpoint);
  // npm start's tables have the names the tests' configuration gives (it inherits the same environment).
  const { config } = processStores();
  const db = createDocumentClient({ endpoint: descriptor.endpoint });
  const clock = { now: Date.now() };
  const opened: SignInPackage.SignIn[] = [];
  /** A tool's sign-in from npm start's descriptor, its calls through the gate: a process of its own, cold. */
  const newTool = () => {
    const tool = dist.createSignIn({
      descriptor: dist.descriptorFromFile(descriptorFile),
      dynamodb: { endpoint: gate.url },
      now: () => clock.now,
    });
    opened.push(tool);
    return tool;
  };
  const admin = async (...args: string[]) => {
    const run = await runScript('admin/cli.ts', args, env, work);
    expect([run.code, run.stderr]).toEqual([0, '']);
    return JSON.parse(run.stdout) as Record<string, string>;
  };
  const owner: WorldOwner = { ownerId: descriptor.developmentOwner.ownerId, ownerEmail: descriptor.developmentOwner.email, apiKey };
  const tool = newTool();
  /** One operation of npm start's API; its status. */
  const api = async (operation: 'createUser' | 'resetUserPassword' | 'deleteUser', body: object, as = owner): Promise<number> => {
    const response = await fetch(`${descriptor.baseUrl}/v1/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': as.apiKey },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    return response.status;
  };
  const signIn = (email: string, password: string, deviceCookie?: string, as = owner, on = tool) =>
    on.signIn({ ownerId: as.ownerId, email, password, ...(deviceCookie !== undefined && { deviceCookie }) });

  return {
    dist,
    descriptorFile,
    tool,
    newTool,
    api,
    signIn,
    /** A user made through the API. */
    async create(email: string, password: string, shouldReset = false, as = owner) {
      expect(await api('createUser', { user_email: email, user_password: password, should_reset_password: shouldReset }, as)).toBe(200);
    },
    /** The user's password reset through the API. */
    async reset(email: string, password: string, as = owner) {
      expect(await api('resetUserPassword', { user_email: email, new_password: password }, as)).toBe(200);
    },
    /** Wrong guesses without a cookie until the account waits: the attacker's cheapest way to shut a user out. */
    async untilWaiting(email: string, as = owner) {
      for (let i = 0; i <= FREE_FAILURES + 1; i++) {
        const result = await signIn(email, 'not-the-password-1', undefined, as);
        if (result.outcome === 'throttled') return;
        expect(result.outcome).toBe('wrong');
      }
      throw new Error(`${email} never waited`);
    },
    gate,
    clock,
    config,
    db,
    owner,
    /** A fresh owner, made by `admin create-owner`. */
    async newOwner(ownerTag: string): Promise<WorldOwner> {
      const created = await admin('create-owner', uniqueEmail(ownerTag));
      const shown = await admin('show-owner', created.owner_email!);
      return { ownerId: shown.owner_id!, ownerEmail: created.owner_email!, apiKey: created.api_key! };
    },
    /** `admin reset-owner-password`: the owner's own account gets a new password, returned. */
    async resetOwnerPassword(ownerEmail: string): Promise<string> {
      return (await admin('reset-owner-password', ownerEmail)).password!;
    },
    /**
     * The account's untrusted state as UNTRUSTED_FAILURE_LIMIT failures leave it (locked to strangers until a
     * reset): what guesses at each wait's end reach in no less than fastestLockoutSeconds.
     */
    async lockToStrangers(email: string, as = owner) {
      const { Item } = await db.send(new GetCommand({ TableName: config.usersTableName, Key: userKey(as.ownerId, email) }));
      await db.send(
        new PutCommand({
          TableName: config.signInTableName,
          Item: {
            ...signInStateKey(as.ownerId, email),
            failures: UNTRUSTED_FAILURE_LIMIT,
            wait_until: 0,
            hash_tag: hashTag(Item!.password_hash),
          },
        }),
      );
    },
    /** How many device records the user has, trusted or not. */
    async deviceRecords(email: string, as = owner): Promise<number> {
      const { Items } = await db.send(
        new QueryCommand({
          TableName: config.signInTableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': userPk(as.ownerId, email), ':prefix': DEVICE_SK_PREFIX },
          ConsistentRead: true,
        }),
      );
      return Items?.length ?? 0;
    },
    async close() {
      await Promise.all(opened.map((tool) => tool.close()));
      await gate.close();
      db.destroy();
      killTree(started.child.pid);
      await started.exited;
      rmSync(work, { recursive: true, force: true });
    },
  };
}
