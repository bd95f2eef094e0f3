/**
 * `npx tsx bench/password-checks.ts`: the password policy's CPU per create or reset in process
 * (NFC, the length, the e-mail and its local part, the owner's blocked words, the blocklist's
 * binary search), p50 and p99 over batches of fresh random passwords, as thread CPU time.
 * Target: at most 0.05 ms p50. Also the blocklist's load (reading the file) once, and the online
 * check's cost when a stage turns it on: one HTTPS request per password the offline rules accept,
 * its wall-clock p50 and CPU here against a stand-in range server on loopback (so without the
 * network's round trip, which a stage adds). When off, the check is never called.
 */

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

const loadStart = performance.now();
const { checkPassword } = await import('#domain/password-policy');
const loadMs = performance.now() - loadStart;

const BATCH = 1_000;
const BATCHES = 200;
const context = {
  limits: { minLength: 8, maxLength: 1024 },
  email: 'jane.doe@example.com',
  blockedWords: Array.from({ length: 100 }, (_, i) => `brand-word-${i}`),
};
const passwords = Array.from({ length: BATCH * BATCHES }, (_, i) =>
  i % 2 ? randomBytes(15).toString('base64') : `Caf\u0065\u0301-${randomBytes(6).toString('hex')}`,
);
const samples: number[] = [];
let accepted = 0;
for (let b = 0; b < BATCHES; b++) {
  const start = process.cpuUsage();
  for (let i = 0; i < BATCH; i++) if (checkPassword(passwords[b * BATCH + i]!, context) === 'ok') accepted++;
  const used = process.cpuUsage(start);
  samples.push((used.user + used.system) / 1000 / BATCH);
}
samples.sort((a, b) => a - b);
const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
// The online check against a stand-in that answers like the range API with Add-Padding (about 900 lines).
const body = Array.from(
  { length: 900 },
  () => `${randomBytes(18).toString('hex').slice(0, 35).toUpperCase()}:${1 + (randomBytes(1)[0]! % 9)}`,
).join('\r\n');
const standIn = createServer((_, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(body));
await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
const { pwnedPasswordsCheck } = await import('#platform/pwned-passwords');
const online = pwnedPasswordsCheck(`http://127.0.0.1:${(standIn.address() as AddressInfo).port}`, 1_000, () => {});
const wall: number[] = [];
const cpuStart = process.cpuUsage();
const ONLINE = 400;
for (let i = 0; i < ONLINE; i++) {
  const t = performance.now();
  await online(randomBytes(15).toString('base64'));
  wall.push(performance.now() - t);
}
const onlineCpu = process.cpuUsage(cpuStart);
standIn.close();
wall.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    online_check_wall_ms_p50: Number(wall[Math.floor(wall.length / 2)]!.toFixed(3)),
    online_check_cpu_ms_per_call: Number(((onlineCpu.user + onlineCpu.system) / 1000 / ONLINE).toFixed(3)),
    check_cpu_ms_p50: Number(at(0.5).toFixed(4)),
    check_cpu_ms_p99: Number(at(0.99).toFixed(4)),
    accepted,
    checked: passwords.length,
    module_load_ms: Number(loadMs.toFixed(1)),
  }),
);
