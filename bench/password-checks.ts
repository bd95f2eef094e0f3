/**
 * `npx tsx bench/password-checks.ts`: the password policy's CPU per create or reset in process
 * (NFC, the length, the e-mail and its local part, the owner's blocked words, the blocklist's
 * binary search), p50 and p99 over batches of fresh random passwords, as thread CPU time.
 * Target: at most 0.05 ms p50. Also the blocklist's load (reading the file) once.
 */

import { randomBytes } from 'node:crypto';
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
console.log(
  JSON.stringify({
    check_cpu_ms_p50: Number(at(0.5).toFixed(4)),
    check_cpu_ms_p99: Number(at(0.99).toFixed(4)),
    accepted,
    checked: passwords.length,
    module_load_ms: Number(loadMs.toFixed(1)),
  }),
);
