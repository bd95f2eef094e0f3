/**
 * Worker threads that verify costly hashes synchronously, one at a time each, off the event loop and
 * off libuv's thread pool: bcryptjs's asynchronous compare runs in slices on the main thread (cost 14
 * stalled the event loop up to 736 ms), and argon2 or PBKDF2 on the pool would take a thread from the
 * stage's own verifications. Each worker lowers its own CPU priority (nice 19) where the OS lets it.
 * A worker is started on first use, is unref'd while idle (it never keeps the process alive), and is
 * started again after it dies.
 */

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { HashFormat } from '@white-label-user-management/shared/domain/password-hashes';

export interface VerifierPool {
  /** Whether `password` matches `stored` (a hash {@link HashFormat} already accepted): on an idle worker, else the first to free up. */
  verify(format: HashFormat, stored: string, password: string): Promise<boolean>;
  close(): Promise<void>;
}

interface Job {
  readonly id: number;
  readonly format: HashFormat;
  readonly stored: string;
  readonly password: string;
}

/**
 * The worker's whole program, a CommonJS script run from this text (a string, so that no bundler
 * rewrites its `require` calls); `PATHS` is replaced by the resolved module paths. A job is
 * `{ id, format, stored, password }` for a hash already accepted (checkHash); the answer `{ id, ok }`.
 */
const WORKER_PROGRAM = `
const { parentPort } = require('node:worker_threads');
const { pbkdf2Sync, timingSafeEqual } = require('node:crypto');
try {
  // Linux: /proc/thread-self names this thread's id, and a thread's nice value is its own.
  const tid = Number(String(require('node:fs').readlinkSync('/proc/thread-self')).split('/').pop());
  require('node:os').setPriority(tid, NICE);
} catch {}
const paths = PATHS;
const argon2 = require(paths.argon2);
const bcrypt = require(paths.bcrypt);
parentPort.on('message', (job) => {
  let ok = false;
  try {
    if (job.format === 'bcrypt') {
      ok = bcrypt.compareSync(job.password, job.stored);
    } else if (job.format === 'pbkdf2_sha256') {
      const [, iterations, salt, key] = job.stored.split('$');
      const expected = Buffer.from(key, 'base64');
      ok = timingSafeEqual(pbkdf2Sync(job.password, salt, Number(iterations), expected.length, 'sha256'), expected);
    } else {
      ok = argon2.verifySync(job.stored, job.password);
    }
  } catch {
    ok = false;
  }
  parentPort.postMessage({ id: job.id, ok });
});
`;

const resolveModule = createRequire(import.meta.url).resolve;

/**
 * A pool of `size` worker threads at CPU priority `nice` (19, the lowest, by default; the costly lane's fresh
 * place, whose work is bounded by a usual migration's, runs at 0 so that other processes cannot starve it).
 */
export function createVerifierPool(size: number, nice = 19): VerifierPool {
  const source = WORKER_PROGRAM.replace(
    'PATHS',
    JSON.stringify({ argon2: resolveModule('@node-rs/argon2'), bcrypt: resolveModule('bcryptjs') }),
  ).replace('NICE', String(nice));
  const queue: { job: Job; settle: (ok: boolean | Error) => void }[] = [];
  const workers: { worker: Worker; busy?: { id: number; settle: (ok: boolean | Error) => void } }[] = [];
  let nextId = 0;

  const start = () => {
    const slot: (typeof workers)[number] = { worker: new Worker(source, { eval: true }) };
    slot.worker.on('message', ({ id, ok }: { id: number; ok: boolean }) => {
      if (slot.busy?.id !== id) return;
      const { settle } = slot.busy;
      slot.busy = undefined;
      settle(ok);
      dispatch();
    });
    const gone = (error: unknown) => {
      const index = workers.indexOf(slot);
      if (index !== -1) workers.splice(index, 1);
      slot.busy?.settle(error instanceof Error ? error : new Error('costly verification worker exited'));
      slot.busy = undefined;
      dispatch();
    };
    slot.worker.once('error', gone);
    slot.worker.once('exit', () => gone(undefined));
    workers.push(slot);
    return slot;
  };

  const dispatch = () => {
    while (queue.length > 0) {
      const idle = workers.find((w) => !w.busy) ?? (workers.length < size ? start() : undefined);
      if (!idle) break;
      const { job, settle } = queue.shift()!;
      idle.busy = { id: job.id, settle };
      idle.worker.ref();
      idle.worker.postMessage(job);
    }
    for (const slot of workers) if (!slot.busy) slot.worker.unref();
  };

  return {
    verify(format, stored, password) {
      return new Promise<boolean>((resolve, reject) => {
        queue.push({
          job: { id: nextId++, format, stored, password },
          settle: (ok) => (ok instanceof Error ? reject(ok) : resolve(ok)),
        });
        dispatch();
      });
    },
    async close() {
      await Promise.all(workers.splice(0).map((slot) => slot.worker.terminate()));
    },
  };
}
