/**
 * CPU time by process and thread from /proc (Linux), to say where a saturated machine's cores
 * went: argon2 on the service's libuv pool, the service's main thread, DynamoDB Local, the load
 * generator. Elsewhere it reports nothing rather than guess.
 */

import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux.

/** CPU milliseconds of each thread of `pid`, by thread name. */
function threadTimes(pid: number): Map<string, number> {
  const times = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat; the slice starts at field 3.
    const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    times.set(name, (times.get(name) ?? 0) + ms);
  }
  return times;
}

export interface CpuSnapshot {
  readonly at: number;
  readonly service: Map<string, number>;
  readonly dynamodb: number;
  readonly loadGenerator: number;
}

export function cpuSnapshot(servicePid: number, dynamodbPid: number): CpuSnapshot | undefined {
  try {
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    return {
      at: performance.now(),
      service: threadTimes(servicePid),
      dynamodb: sum(threadTimes(dynamodbPid)),
      loadGenerator: sum(threadTimes(process.pid)),
    };
  } catch {
    return undefined;
  }
}

export interface CpuBreakdown {
  /** Milliseconds of CPU per request, by where they were spent. */
  readonly hashing_pool: number;
  readonly service_other: number;
  readonly dynamodb_local: number;
  readonly load_generator: number;
  readonly other_or_idle: number;
}

/** CPU per request between two snapshots; `cores * elapsed` is what the machine had to give. */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number, cores: number): CpuBreakdown {
  const delta = (name: string) => (after.service.get(name) ?? 0) - (before.service.get(name) ?? 0);
  const serviceThreads = new Set([...after.service.keys()]);
  let pool = 0;
  let other = 0;
  for (const name of serviceThreads) {
    if (name.startsWith('libuv-worker')) pool += delta(name);
    else other += delta(name);
  }
  const dynamodb = after.dynamodb - before.dynamodb;
  const loadGenerator = after.loadGenerator - before.loadGenerator;
  const available = (after.at - before.at) * cores;
  const per = (ms: number) => Math.round((ms / requests) * 100) / 100;
  return {
    hashing_pool: per(pool),
    service_other: per(other),
    dynamodb_local: per(dynamodb),
    load_generator: per(loadGenerator),
    other_or_idle: per(Math.max(0, available - pool - other - dynamodb - loadGenerator)),
  };
}
