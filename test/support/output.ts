/** Capturing what the code under test prints: the JSON lines (logs, EMF metrics) it writes to stdout. */

import { jest } from '@jest/globals';

/**
 * Captures every line written to stdout into `lines` from now until `jest.restoreAllMocks()`.
 * JSON lines (what the logger and the metrics print) are kept from the test's output; anything
 * else still reaches the terminal.
 */
export function captureStdout(lines: string[]): void {
  const write = process.stdout.write.bind(process.stdout);
  jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    lines.push(...text.split('\n').filter(Boolean));
    return text.startsWith('{') ? true : write(chunk, ...rest);
  }) as never);
}
