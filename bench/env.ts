/**
 * What the measurements run against, each started on first use and stopped at the end: DynamoDB Local
 * in memory with the service's tables and an owner with a key (this process's stores on it), and the
 * local server (what `npm start` serves) in its own process, as a function is apart from its callers.
 */

import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import type { Config } from '#platform/config';
import { DEFAULT_ARGON2_SETTING, formatArgon2Setting, parseArgon2Setting } from '#platform/config';
import type { Stores } from '#store/stores';
import { ensureTables, startDynamoDbLocal } from '../local/dynamodb-local';
import { freePort } from '../local/free-port';

export const TABLES = {
  usersTableName: 'bench-users',
  ownersTableName: 'bench-owners',
  idempotencyTableName: 'bench-idempotency',
  signInTableName: 'bench-sign-in',
};

export interface Dynamo {
  readonly endpoint: string;
  readonly config: Config;
  readonly stores: Stores;
  readonly owner: { readonly email: string; readonly apiKey: string; readonly ownerId: string };
}

export interface Server {
  /** One POST of `body` to `path` with the owner's key: its milliseconds; throws on a status other than 200. */
  post(path: string, body: object): Promise<number>;
}

/** Rounds and steps per round; `--small` is a dry run that proves the bench end to end. */
export interface Size {
  readonly rounds: number;
  readonly perRound: number;
}

export interface Env {
  readonly root: string;
  readonly size: Size;
  readonly small: boolean;
  /** The argon2id setting the service runs with: ARGON2_SETTING, else the default. */
  readonly setting: ReturnType<typeof parseArgon2Setting>;
  dynamodb(): Promise<Dynamo>;
  server(): Promise<Server>;
  progress(line: string): void;
  close(): Promise<void>;
}

export function createEnv(root: string, small: boolean): Env {
  const children: ChildProcess[] = [];
  let dynamo: Promise<Dynamo> | undefined;
  let server: Promise<Server> | undefined;
  const setting = process.env.ARGON2_SETTING ? parseArgon2Setting(process.env.ARGON2_SETTING, 'ARGON2_SETTING') : DEFAULT_ARGON2_SETTING;
  const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

  const startDynamo = async (): Promise<Dynamo> => {
    progress('DynamoDB Local: starting in memory');
    const local = await startDynamoDbLocal({ port: await freePort(), optimizing: true });
    children.push(local.process);
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: local.endpoint,
      USERS_TABLE_NAME: TABLES.usersTableName,
      OWNERS_TABLE_NAME: TABLES.ownersTableName,
      IDEMPOTENCY_TABLE_NAME: TABLES.idempotencyTableName,
      SIGN_IN_TABLE_NAME: TABLES.signInTableName,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      // Metric lines would land on stdout, which carries --json.
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_SERVICE_NAME: 'user-management-bench',
      ARGON2_SETTING: formatArgon2Setting(setting),
    });
    await ensureTables(local.endpoint, TABLES);
    // The stores read their configuration when first built: after the environment above.
    const { processStores } = await import('#store/stores');
    const { createOwner } = await import('#domain/owners');
    const { config, stores } = processStores();
    const issued = await createOwner(stores.owners, `bench-${randomUUID().slice(0, 8)}@example.com`, config);
    const owner = (await stores.owners.findOwner(issued.owner_email))!;
    return {
      endpoint: local.endpoint,
      config,
      stores,
      owner: { email: issued.owner_email, apiKey: issued.api_key, ownerId: owner.ownerId },
    };
  };

  const startServer = async (): Promise<Server> => {
    const { owner } = await env.dynamodb();
    progress('the local server: starting in its own process');
    const child = fork(join(root, 'bench', 'server.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.push(child);
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message) => resolve((message as { port: number }).port));
      child.once('exit', (code) => reject(new Error(`the bench's server exited (${code})`)));
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    return {
      post: (path, body) =>
        new Promise((resolve, reject) => {
          const text = JSON.stringify(body);
          const started = performance.now();
          const req = request(
            {
              agent,
              host: '127.0.0.1',
              port,
              method: 'POST',
              path,
              headers: { 'content-type': 'application/json', 'x-api-key': owner.apiKey, 'content-length': Buffer.byteLength(text) },
            },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (chunk: Buffer) => chunks.push(chunk));
              res.on('end', () => {
                const ms = performance.now() - started;
                if (res.statusCode !== 200) reject(new Error(`${path} answered ${res.statusCode} ${Buffer.concat(chunks).toString()}`));
                else resolve(ms);
              });
            },
          );
          req.once('error', reject);
          req.end(text);
        }),
    };
  };

  const env: Env = {
    root,
    small,
    size: small ? { rounds: 3, perRound: 4 } : { rounds: 8, perRound: 20 },
    setting,
    dynamodb: () => {
      dynamo ??= startDynamo();
      return dynamo;
    },
    server: () => {
      server ??= startServer();
      return server;
    },
    progress,
    async close() {
      if (dynamo) (await dynamo.catch(() => undefined))?.stores.client.destroy();
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill();
            }),
        ),
      );
    },
  };
  return env;
}
