/**
 * CPU time of one process split by thread, read from Linux's /proc with nanosecond precision
 * (schedstat), so a few hundred requests suffice: the libuv pool threads (where argon2 hashes)
 * apart from everything else (the main thread, V8's GC helpers, the logger's writes).
 * Elsewhere it reports nothing rather than guess.
 *
 * A thread's schedstat counts its CPU up to its last switch, not the stretch it is running now
 * (measured: 2 ms of spinning between two reads shows 0). For another process read while it
 * idles that is exact; for this process, read by its running main thread, the current stretch
 * would go to the next call. So for 'self' the total is process.cpuUsage(), which the kernel
 * brings up to date for the calling thread (to the microsecond), and the rest is that total less
 * the pool threads, which are asleep when the main thread reads them.
 */

import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadCpu {
  /** Milliseconds on the libuv thread pool: the hash. */
  readonly pool: number;
  /** Milliseconds on every other thread of the process. */
  readonly rest: number;
}

/** CPU milliseconds of `pid`'s threads so far, pool and rest; undefined off Linux. */
export function threadCpu(pid: number | 'self' = 'self'): ThreadCpu | undefined {
  try {
    let pool = 0;
    let rest = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let ns: number;
      let name: string;
      try {
        ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
        name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8');
      } catch {
        continue; // the thread ended between the listing and the read
      }
      if (name.startsWith('libuv-worker')) pool += ns / 1e6;
      else rest += ns / 1e6;
    }
    if (pid === 'self') {
      const { user, system } = process.cpuUsage();
      return { pool, rest: (user + system) / 1000 - pool };
    }
    return { pool, rest };
  } catch {
    return undefined;
  }
}

/** The CPU spent between two readings. */
export const cpuBetween = (before: ThreadCpu, after: ThreadCpu): ThreadCpu => ({
  pool: after.pool - before.pool,
  rest: after.rest - before.rest,
});

/**
 * CPU milliseconds of process `pid` so far, its exited threads included (a pool's idle threads come
 * and go, and summing the live threads would lose theirs), from /proc/<pid>/stat's utime and
 * stime in clock ticks (100 a second on Linux); undefined off Linux.
 */
export function processCpu(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
