/**
 * What `npm start` costs while nothing happens: its Node process (the server and the lifecycle
 * events' stream poller) and DynamoDB Local (answering the poller) over a window of idle, as a
 * share of one core, from /proc. Started in a scratch folder (its own `.data`) on free ports,
 * stopped with SIGINT as Ctrl-C stops it.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../local/free-port';
import { round } from './stats';
import { processCpu } from './thread-cpu';

export interface Idle {
  readonly windowS: number;
  /** Shares of one core: 0.01 is 1 %. */
  readonly nodeCoreShare: number;
  readonly dynamodbLocalCoreShare: number;
}

const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

/** Starts `npm start`'s script, waits until it listens and `settleMs` more, then samples `windowMs` of idle. */
export async function npmStartIdle(root: string, windowMs: number, settleMs = 3_000): Promise<Idle> {
  const dir = mkdtempSync(join(tmpdir(), 'wlum-bench-idle-'));
  const { DYNAMODB_ENDPOINT: _endpoint, EVENTS_FILE: _events, ...inherited } = process.env;
  const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'local/start.ts')], {
    cwd: dir,
    env: {
      ...inherited,
      PORT: String(await freePort()),
      DYNAMODB_PORT: String(await freePort()),
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const seen = (chunk: Buffer) => {
        output += chunk;
        if (/Listening on/.test(output)) resolve();
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      exited.then((code) => reject(new Error(`npm start's script exited (${code}): ${output.trim().split('\n').at(-1)}`)));
    });
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    // tsx runs the script in a child of its own; DynamoDB Local (java) is that child's child.
    const node = childrenOf(child.pid!)[0] ?? child.pid!;
    const java = childrenOf(node)[0];
    if (java === undefined) throw new Error('DynamoDB Local is not running under npm start');
    const cpuMs = (pid: number) => processCpu(pid) ?? Number.NaN;
    const before = [cpuMs(node), cpuMs(java)];
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const seconds = (performance.now() - started) / 1000;
    const after = [cpuMs(node), cpuMs(java)];
    return {
      windowS: round(seconds, 1),
      nodeCoreShare: round((after[0]! - before[0]!) / 1000 / seconds, 3),
      dynamodbLocalCoreShare: round((after[1]! - before[1]!) / 1000 / seconds, 3),
    };
  } finally {
    child.kill('SIGINT');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}
