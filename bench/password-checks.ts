/**
 * The password policy's cost, measured inside `npm run bench`:
 * - `passwordChecks`, run in the Lambda stand-in beside the service share: the checks a create or
 *   reset makes in process (NFC, the length, the e-mail and its local part, the owner's blocked
 *   words, the blocklist's binary search), CPU per password, p50 and p99 over batches of fresh
 *   random passwords. One check is a few microseconds, far below what reading /proc around a
 *   single call costs, so it is timed a batch at a time and divided.
 * - `onlineCheck`: the online check's cost when a stage turns it on, one request per password the
 *   offline rules accept, wall clock p50 and this process's CPU per call, against a stand-in range
 *   server on loopback answering as the range API does with Add-Padding (so without the network's
 *   round trip, which a stage adds). When off, the check is never called.
 */

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { percentile, round } from './stats';

export interface PasswordChecks {
  readonly checked: number;
  /** Passwords the checks accepted: all but the rare random one that falls under a rule. */
  readonly accepted: number;
  readonly cpuMsP50: number;
  readonly cpuMsP99: number;
}

export interface OnlineCheck {
  readonly calls: number;
  readonly wallMsP50: number;
  readonly cpuMsPerCall: number;
}

/** The checks' CPU per password, `batches` batches of `batchSize` fresh passwords (half of them decomposed, so NFC has work). */
export async function passwordChecks(batches: number, batchSize = 1_000): Promise<PasswordChecks> {
  const { checkPassword } = await import('#domain/password-policy');
  const context = {
    limits: { minLength: 8, maxLength: 1024 },
    email: 'jane.doe@example.com',
    blockedWords: Array.from({ length: 100 }, (_, i) => `brand-word-${i}`),
  };
  const samples: number[] = [];
  let accepted = 0;
  for (let b = 0; b < batches; b++) {
    // Drawn before the clock starts: random bytes are not the checks' cost.
    const passwords = Array.from({ length: batchSize }, (_, i) =>
      i % 2 ? randomBytes(15).toString('base64') : `Caf\u0065\u0301-${randomBytes(6).toString('hex')}`,
    );
    const start = process.cpuUsage();
    for (const password of passwords) if (checkPassword(password, context) === 'ok') accepted++;
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / 1000 / batchSize);
  }
  return {
    checked: batches * batchSize,
    accepted,
    cpuMsP50: round(percentile(samples, 50), 4),
    cpuMsP99: round(percentile(samples, 99), 4),
  };
}

/** The online check, `calls` times, against a loopback stand-in that answers about 900 padded lines. */
export async function onlineCheck(calls: number): Promise<OnlineCheck> {
  const body = Array.from(
    { length: 900 },
    () => `${randomBytes(18).toString('hex').slice(0, 35).toUpperCase()}:${1 + (randomBytes(1)[0]! % 9)}`,
  ).join('\r\n');
  const standIn = createServer((_, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(body));
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  try {
    const { pwnedPasswordsCheck } = await import('#platform/pwned-passwords');
    const check = pwnedPasswordsCheck(`http://127.0.0.1:${(standIn.address() as AddressInfo).port}`, 1_000, () => {});
    const passwords = Array.from({ length: calls + 20 }, () => randomBytes(15).toString('base64'));
    for (const password of passwords.slice(calls)) await check(password);
    const wall: number[] = [];
    const cpuStart = process.cpuUsage();
    for (const password of passwords.slice(0, calls)) {
      const started = performance.now();
      await check(password);
      wall.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuStart);
    return { calls, wallMsP50: round(percentile(wall, 50), 3), cpuMsPerCall: round((cpu.user + cpu.system) / 1000 / calls, 3) };
  } finally {
    standIn.close();
  }
}
