/**
 * `npm start`: DynamoDB Local (or DYNAMODB_ENDPOINT), the tables, a development
 * owner, and the handlers behind a local HTTP server, all on 127.0.0.1.
 *
 * Whatever goes wrong, it says so in one line on stderr, stops what it started and
 * exits non-zero: a port already taken, a bad PORT or DYNAMODB_PORT, DynamoDB Local
 * failing to start or exiting while serving. Ctrl-C and SIGTERM stop everything.
 */

import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { formatArgon2Setting } from '#platform/config';
import { createDocumentClient, localConnection } from '#store/client';
import { DEFAULT_DYNAMODB_PORT, LOCAL_TABLES, localEngine, portFromEnv } from '#store/local-engine';
import { migrateSignInState } from '#store/sign-in-migration';
import { describeStage } from '../packages/sign-in/src/descriptor';
import { type DynamoDbLocal, ensureTables, launchDynamoDbLocal } from './dynamodb-local';
import { type EventDelivery, startLocalEventDelivery } from './event-delivery';
import { portInUse } from './free-port';

const DEV_OWNER_EMAIL = 'dev-owner@example.com';
const DATA_DIR = '.data/dynamodb';
/** The stage descriptor a tool's sign-in reads under npm start (descriptorFromFile). */
export const DESCRIPTOR_FILE = '.data/sign-in.json';
const DEFAULT_PORT = 3000;

process.env.USERS_TABLE_NAME ??= LOCAL_TABLES.usersTableName;
process.env.OWNERS_TABLE_NAME ??= LOCAL_TABLES.ownersTableName;
process.env.IDEMPOTENCY_TABLE_NAME ??= LOCAL_TABLES.idempotencyTableName;
process.env.SIGN_IN_TABLE_NAME ??= LOCAL_TABLES.signInTableName;
process.env.DELETIONS_TABLE_NAME ??= LOCAL_TABLES.deletionsTableName;
process.env.UNDELIVERED_EVENTS_TABLE_NAME ??= LOCAL_TABLES.undeliveredEventsTableName;
process.env.POWERTOOLS_SERVICE_NAME ??= 'user-management-local';

/** What this process started, so that any way out stops it. */
const running: { dynamodb?: ChildProcess; server?: Server; events?: EventDelivery } = {};
let stopping = false;

async function main(): Promise<void> {
  // Both read and checked before anything starts.
  const port = portFromEnv('PORT', DEFAULT_PORT);
  const engine = localEngine();
  if (await portInUse(port)) throw portTaken(port);

  if (engine.external) {
    console.error(`Using the DynamoDB at ${engine.endpoint} (DYNAMODB_ENDPOINT); npm start neither started it nor stops it.`);
  } else {
    if (await portInUse(engine.port)) {
      throw new Error(
        `DYNAMODB_PORT ${engine.port} is already in use on 127.0.0.1, and npm start never uses a DynamoDB it did not start: ` +
          `set DYNAMODB_PORT to a free port, or DYNAMODB_ENDPOINT=${engine.endpoint} to use the engine listening there.`,
      );
    }
    // .data holds hashes, key digests and events: owner-only, also when an older version made it 0755.
    mkdirSync(dirname(DATA_DIR), { recursive: true, mode: 0o700 });
    chmodSync(dirname(DATA_DIR), 0o700);
    const dynamodb: DynamoDbLocal = launchDynamoDbLocal({ port: engine.port, dataDir: DATA_DIR });
    running.dynamodb = dynamodb.process;
    await dynamodb.ready;
    dynamodb.process.once('exit', (code, signal) => {
      if (stopping) return;
      running.dynamodb = undefined;
      fail(
        new Error(
          `DynamoDB Local (pid ${dynamodb.process.pid}) exited while serving (${signal ?? `code ${code}`}); the API is stopped too.`,
        ),
      );
    });
    console.error(`DynamoDB Local on ${engine.endpoint}, data in ${DATA_DIR}`);
  }
  process.env.DYNAMODB_ENDPOINT = engine.endpoint;
  try {
    await ensureTables(engine.endpoint, {
      usersTableName: process.env.USERS_TABLE_NAME!,
      ownersTableName: process.env.OWNERS_TABLE_NAME!,
      idempotencyTableName: process.env.IDEMPOTENCY_TABLE_NAME!,
      signInTableName: process.env.SIGN_IN_TABLE_NAME!,
      deletionsTableName: process.env.DELETIONS_TABLE_NAME!,
      undeliveredEventsTableName: process.env.UNDELIVERED_EVENTS_TABLE_NAME!,
    });
  } catch (error) {
    throw new Error(`DynamoDB at ${engine.endpoint} did not accept the tables: ${(error as Error).message || (error as Error).name}`);
  }
  // Data kept from before the sign-in table: its sign-in state moves there (ADR 26), every start-up, idempotently.
  const db = createDocumentClient({ endpoint: engine.endpoint });
  const moved = await migrateSignInState(db, { usersTable: process.env.USERS_TABLE_NAME!, signInTable: process.env.SIGN_IN_TABLE_NAME! });
  db.destroy();
  if (moved.moved + moved.superseded > 0) {
    console.error(`Moved the sign-in state the users table kept into the sign-in table: ${moved.moved + moved.superseded} items`);
  }
  // Before anything writes, so the development owner's UserCreated is delivered too.
  const events = await startLocalEventDelivery(engine.endpoint, adminCommand(engine));
  running.events = events;
  if (events.delivering) console.error(`Lifecycle events to ${events.eventsFile}`);

  // Imported only now: the handlers read their configuration when they load.
  const { processStores } = await import('#store/stores');
  const { config, stores } = processStores();
  const { createOwner } = await import('#domain/owners');
  const { createLocalServer, API_PREFIX } = await import('./server');

  if (await stores.owners.findOwner(DEV_OWNER_EMAIL)) {
    console.error(`Development owner ${DEV_OWNER_EMAIL} exists; its key was printed when it was created.`);
    console.error(`Issue another with: ${adminCommand(engine)} issue-key ${DEV_OWNER_EMAIL}`);
  } else {
    const issued = await createOwner(stores.owners, DEV_OWNER_EMAIL, config);
    console.log(`Created development owner ${issued.owner_email}. Its API key, shown this once:`);
    console.log(`  export API_KEY=${issued.api_key}`);
  }

  const ownerId = (await stores.owners.findOwner(DEV_OWNER_EMAIL))!.ownerId;
  const arn = async (TableName: string) => (await stores.client.send(new DescribeTableCommand({ TableName }))).Table!.TableArn!;
  writeDescriptor(
    describeStage({
      stage: 'local',
      region: localConnection(engine.endpoint).region,
      endpoint: engine.endpoint,
      usersTable: { name: config.usersTableName, arn: await arn(config.usersTableName) },
      signInTable: { name: config.signInTableName, arn: await arn(config.signInTableName) },
      argon2Setting: formatArgon2Setting(config.argon2),
      passwordPolicy: config.passwordPolicy,
      breachCheck: config.pwnedPasswordsUrl ? { pwnedPasswordsUrl: config.pwnedPasswordsUrl } : null,
      baseUrl: `http://127.0.0.1:${port}`,
      developmentOwner: { email: DEV_OWNER_EMAIL, ownerId },
    }),
  );
  console.error(`Sign-in descriptor for a tool's back end in ${DESCRIPTOR_FILE}`);

  const server = createLocalServer();
  running.server = server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? portTaken(port) : error));
    server.listen(port, '127.0.0.1', resolve);
  });
  server.on('error', (error) => fail(error));
  console.log(`Listening on http://127.0.0.1:${port}${API_PREFIX}`);
}

/** The admin CLI's command line for this engine: it finds the engine as npm start does, so a non-default one is named. */
function adminCommand(engine: { endpoint: string; port: number; external: boolean }): string {
  const env = engine.external
    ? `DYNAMODB_ENDPOINT=${engine.endpoint} `
    : engine.port !== DEFAULT_DYNAMODB_PORT
      ? `DYNAMODB_PORT=${engine.port} `
      : '';
  return `${env}npm run -s admin --`;
}

/** Writes the descriptor whole (a temporary file renamed over it), owner-only like everything under .data. */
function writeDescriptor(descriptor: object): void {
  mkdirSync(dirname(DESCRIPTOR_FILE), { recursive: true, mode: 0o700 });
  const temporary = `${DESCRIPTOR_FILE}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(descriptor, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, DESCRIPTOR_FILE);
}

/** The API's port is taken: checked before anything starts, and again (a race) when the server binds. */
const portTaken = (port: number) =>
  new Error(`PORT ${port} is already in use on 127.0.0.1: stop what listens there, or set PORT to a free port.`);

/** Stops the server and DynamoDB Local (waiting for it to exit), then exits with `code`. */
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    running.server?.closeAllConnections();
    running.server?.close();
    await running.events?.stop().catch(() => undefined);
    const dynamodb = running.dynamodb;
    if (dynamodb && dynamodb.exitCode === null && dynamodb.signalCode === null) {
      const exited = new Promise((resolve) => dynamodb.once('exit', resolve));
      dynamodb.kill('SIGTERM');
      const timer = setTimeout(() => dynamodb.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  }
  process.exit(code);
}

/** One line on stderr, no stack trace, everything stopped, exit 1. */
function fail(error: Error): void {
  if (stopping) return;
  console.error(error.message.split('\n')[0] || error.name);
  void stop(1);
}

process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));
process.on('uncaughtException', fail);
process.on('unhandledRejection', (reason) => fail(reason instanceof Error ? reason : new Error(String(reason))));

main().catch(fail);
