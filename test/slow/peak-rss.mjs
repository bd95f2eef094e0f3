/**
 * Preloaded into a child process (NODE_OPTIONS=--import) by test/slow/import-memory.test.ts: at exit,
 * appends one JSON line to PEAK_RSS_FILE with the process's script and its peak resident set
 * (VmHWM, this process's own high-water mark since exec; getrusage's maxRSS can carry the parent's
 * size over from the fork).
 */
import { appendFileSync, readFileSync } from 'node:fs';

process.on('exit', () => {
  const peakKb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  appendFileSync(process.env.PEAK_RSS_FILE, `${JSON.stringify({ script: process.argv[1], peak_kb: peakKb })}\n`);
});
