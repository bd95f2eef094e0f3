/**
 * The bench's shared context: what measurements need (bench/measurement.ts, `Need`), each started
 * before the first measurement that needs it and stopped after the last one, and every child
 * process stopped at the end or when the run's deadline passes.
 */

import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type Argon2Setting, formatArgon2Setting } from '#platform/config';
import { ensureTables, startDynamoDbLocal } from '../local/dynamodb-local';
import { freePort } from '../local/free-port';
import { floorProbe } from './floor';
import { runLoad } from './http-load';
import type { LambdaReply, LambdaRequest } from './lambda-process';
import type { BenchContext, BenchDynamoDb, BenchLambda, BenchServer, Measurement, Need } from './measurement';
import { progress } from './stats';

const TABLES = {
  usersTableName: 'bench-users',
  ownersTableName: 'bench-owners',
  idempotencyTableName: 'bench-idempotency',
  signInTableName: 'bench-sign-in',
};

/** What `needs` implies: the server and the stand-in work against DynamoDB Local. */
const IMPLIED: Record<Need, readonly Need[]> = { dynamodb: ['dynamodb'], server: ['dynamodb', 'server'], lambda: ['dynamodb', 'lambda'] };
/** Started in this order, stopped in the reverse. */
const ORDER: readonly Need[] = ['dynamodb', 'server', 'lambda'];

export const closure = (needs: readonly Need[]): Set<Need> => new Set(needs.flatMap((need) => IMPLIED[need]));

export interface RunnerContext extends BenchContext {
  /** Starts what `needs` implies and is not running yet; `allowed` becomes exactly that set. */
  provide(needs: readonly Need[]): Promise<void>;
  /** Stops what is running and not in `kept` (what later measurements need). */
  release(kept: readonly Need[]): Promise<void>;
  /** Stops everything still running. */
  close(): Promise<void>;
  /** Each measurement's result so far, by name. */
  readonly results: Map<string, object>;
}

export function createContext(options: {
  root: string;
  quick: boolean;
  setting: Argon2Setting;
  deadlineMs: number;
  /** Warm-up of DynamoDB Local: users put, updated, queried and deleted before anything is timed. */
  warmCycles: number;
}): RunnerContext {
  const { root, quick, setting } = options;
  const children = new Set<ChildProcess>();
  const results = new Map<string, object>();
  let allowed = new Set<Need>();
  type Stoppable = { stop(): Promise<void> };
  const running: Partial<{ dynamodb: BenchDynamoDb & Stoppable; server: BenchServer & Stoppable; lambda: BenchLambda & Stoppable }> = {};
  /** Ends `child` with `end` and resolves once it exited. */
  const ended = (child: ChildProcess, end: () => void) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      end();
    });

  setTimeout(() => {
    progress(`gave up after ${options.deadlineMs / 1000} s`);
    for (const child of children) child.kill();
    process.exit(2);
  }, options.deadlineMs).unref();

  const guarded = <N extends Need>(need: N) => {
    if (!allowed.has(need)) throw new Error(`a measurement used the ${need} without declaring it in needs`);
    return running[need]!;
  };

  /** Forks a bench script under tsx with an IPC channel; tracked so that the deadline can stop it. */
  const forkScript = (script: string, env: NodeJS.ProcessEnv) => {
    const child = fork(join(root, 'bench', script), [], {
      execArgv: ['--import', 'tsx'],
      env,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };

  const starters: Record<Need, () => Promise<void>> = {
    async dynamodb() {
      progress('DynamoDB Local: starting (in memory)');
      const dynamodb = await startDynamoDbLocal({ port: await freePort() });
      children.add(dynamodb.process);
      Object.assign(process.env, {
        DYNAMODB_ENDPOINT: dynamodb.endpoint,
        USERS_TABLE_NAME: TABLES.usersTableName,
        OWNERS_TABLE_NAME: TABLES.ownersTableName,
        IDEMPOTENCY_TABLE_NAME: TABLES.idempotencyTableName,
        SIGN_IN_TABLE_NAME: TABLES.signInTableName,
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        // The metric lines would land on this process's stdout, which carries the report.
        POWERTOOLS_METRICS_DISABLED: 'true',
        POWERTOOLS_SERVICE_NAME: 'user-management-bench',
        ARGON2_SETTING: formatArgon2Setting(setting),
      });
      await ensureTables(dynamodb.endpoint, TABLES);
      // The handlers read their configuration when they load.
      const { processStores } = await import('#store/stores');
      const { config, stores } = processStores();
      const { createOwner } = await import('#domain/owners');
      const owner = await createOwner(stores.owners, `bench-owner-${randomUUID().slice(0, 8)}@example.com`, config);
      const ownerRecord = (await stores.owners.findOwner(owner.owner_email))!;
      progress(`warm-up: DynamoDB Local's JIT (${options.warmCycles} users put, updated, queried and deleted)`);
      // A fresh engine's PutItem takes twice as long for its first few thousand writes.
      await floorProbe(stores.client, TABLES.usersTableName, setting).warm(options.warmCycles);
      running.dynamodb = {
        endpoint: dynamodb.endpoint,
        pid: dynamodb.process.pid!,
        tables: TABLES,
        config,
        stores,
        owner: { email: owner.owner_email, apiKey: owner.api_key, ownerId: ownerRecord.ownerId },
        stop() {
          stores.client.destroy();
          return ended(dynamodb.process, () => dynamodb.process.kill());
        },
      };
    },
    async server() {
      progress('the local server: starting in its own process');
      const child = forkScript('server.ts', process.env);
      const port = await new Promise<number>((resolve, reject) => {
        child.once('message', (m) => resolve((m as { port: number }).port));
        child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
      });
      const apiKey = running.dynamodb!.owner.apiKey;
      const server: BenchServer = {
        pid: child.pid!,
        load: (load) => runLoad({ ...load, baseUrl: `http://127.0.0.1:${port}`, apiKey }),
      };
      // Its key cache and the JIT.
      const body = () => ({ user_email: `warm-${randomUUID().slice(0, 13)}@example.com`, user_password: 'correct horse battery staple' });
      await server.load({ path: '/v1/createUser', concurrency: 2, body, maxRequests: 40, maxMs: 10_000 });
      running.server = { ...server, stop: () => ended(child, () => child.disconnect()) };
    },
    async lambda() {
      progress('the Lambda stand-in: starting in its own process');
      // INFO and metrics on, as deployed: the access log and metric lines are part of a request's cost.
      const child = forkScript('lambda-process.ts', { ...process.env, POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' });
      child.send({ apiKey: running.dynamodb!.owner.apiKey });
      let queue: Promise<unknown> = Promise.resolve();
      const ask = (request: LambdaRequest) =>
        new Promise<unknown>((resolve, reject) => {
          const onExit = (code: number | null) => reject(new Error(`Lambda stand-in exited (${code})`));
          child.once('exit', onExit);
          child.once('message', (reply: LambdaReply) => {
            child.off('exit', onExit);
            if ('result' in reply) resolve(reply.result);
            else reject(new Error(`Lambda stand-in: ${reply.error}`));
          });
          child.send(request);
        });
      running.lambda = {
        run(moduleUrl, args) {
          // One request at a time: the stand-in is one warm environment.
          const answer = queue.then(() => ask({ moduleUrl, args }));
          queue = answer.catch(() => undefined);
          return answer as never;
        },
        stop: () => ended(child, () => child.disconnect()),
      };
    },
  };

  const context: RunnerContext = {
    root,
    quick,
    setting,
    scaled: (n) => (quick ? Math.max(2, Math.round(n / 3)) : n),
    get dynamodb() {
      return guarded('dynamodb');
    },
    get server() {
      return guarded('server');
    },
    get lambda() {
      return guarded('lambda');
    },
    resultOf<R extends object>(measurement: Measurement<R>): R {
      const result = results.get(measurement.name);
      if (!result) throw new Error(`${measurement.name} has not run yet: list it before the measurement that reads it`);
      return result as R;
    },
    progress,
    results,
    async provide(needs) {
      allowed = closure(needs);
      for (const need of ORDER) if (allowed.has(need) && !running[need]) await starters[need]();
    },
    async release(kept) {
      const keep = closure(kept);
      for (const need of [...ORDER].reverse()) {
        if (!keep.has(need) && running[need]) {
          await running[need].stop();
          delete running[need];
        }
      }
    },
    close: () => context.release([]),
  };
  return context;
}
