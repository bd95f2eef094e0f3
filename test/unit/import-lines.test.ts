/**
 * The rules under `admin import-users`' hostile-file handling, without I/O: the line splitter
 * (`\n` only, CRLF, a leading BOM, strict UTF-8, 1 MiB per line) whatever the read chunks, and
 * `created_at` checked against the calendar. The scan for a name given twice, which the API's body
 * step shares: test/unit/json-names.test.ts. The CLI itself on such files:
 * test/processes/import-hostile-files.test.ts.
 */

import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { instantOf } from '#domain/user-transfer';
import { type FileLine, fileLines } from '../../admin/import-file';

/** The lines of `bytes` read in chunks of the given sizes (cycled). */
async function linesOf(bytes: Buffer, sizes: number[] = [bytes.length || 1], maxBytes?: number): Promise<FileLine[]> {
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = Math.max(1, sizes[i % sizes.length]!);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  const lines: FileLine[] = [];
  for await (const line of fileLines(Readable.from(chunks), maxBytes)) lines.push(line);
  return lines;
}
const outcomes = (lines: FileLine[]) => lines.map((line) => ('text' in line ? [line.number, line.text] : [line.number, line.failed]));

describe('fileLines', () => {
  it('splits on \\n only, drops the \\r of CRLF and the BOM of the first line, and keeps a last line without \\n', async () => {
    const text = '\ufeffa\r\nb\u2028c\u2029d\re\n\n\ufeffx\r\r\nlast';
    expect(outcomes(await linesOf(Buffer.from(text)))).toEqual([
      [1, 'a'],
      [2, 'b\u2028c\u2029d\re'],
      [3, ''],
      [4, '\ufeffx\r'],
      [5, 'last'],
    ]);
  });

  it('gives the same lines whatever the chunks the file arrives in', async () => {
    const bytes = Buffer.concat([
      Buffer.from('\ufeff{"a":"\u2028é"}\r\n'),
      Buffer.from([0xe2, 0x82, 0xac, 0x0a, 0xc3, 0x28, 0x0a]),
      Buffer.from(`${'z'.repeat(40)}\r\n${'w'.repeat(33)}\r\n\n`),
    ]);
    const whole = await linesOf(bytes, undefined, 32);
    expect(outcomes(whole)).toEqual([
      [1, '{"a":"\u2028é"}'],
      [2, '€'],
      [3, 'not valid UTF-8'],
      [4, 'line too long'],
      [5, 'line too long'],
      [6, ''],
    ]);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 12 }), async (sizes) => {
        expect(await linesOf(bytes, sizes, 32)).toEqual(whole);
      }),
    );
  });

  it('takes a line of exactly the limit, CRLF or not, and fails one byte more', async () => {
    const max = 16;
    const line = 'q'.repeat(max);
    expect(outcomes(await linesOf(Buffer.from(`${line}\n${line}\r\n${line}q\n${line}q\r\n\ufeff${line}\n`), [5], max))).toEqual([
      [1, line],
      [2, line],
      [3, 'line too long'],
      [4, 'line too long'],
      [5, 'line too long'],
    ]);
    expect(outcomes(await linesOf(Buffer.from(`\ufeff${line}\n`), [5], max))).toEqual([[1, line]]);
  });

  it('fails bytes that are not UTF-8 (lone continuation, overlong, surrogate, truncated) rather than replace them', async () => {
    for (const bad of [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0xff]]) {
      const lines = await linesOf(Buffer.concat([Buffer.from('"ok'), Buffer.from(bad), Buffer.from('"\nnext\n')]));
      expect(outcomes(lines)).toEqual([
        [1, 'not valid UTF-8'],
        [2, 'next'],
      ]);
    }
  });
});

describe('instantOf', () => {
  it('takes exactly the dates of the calendar: every day of 1900, 2000, 2023 and 2024 against Date.UTC', () => {
    for (const year of [1900, 2000, 2023, 2024]) {
      for (let month = 1; month <= 12; month++) {
        for (let day = 0; day <= 32; day++) {
          const text = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T12:00:00Z`;
          const real = new Date(Date.UTC(year, month - 1, day, 12)).getUTCDate() === day && day > 0;
          expect([text, instantOf(text)]).toEqual([text, real ? new Date(Date.UTC(year, month - 1, day, 12)).toISOString() : undefined]);
        }
      }
    }
  });

  it('refuses times and offsets that do not exist, and keeps the instant of those that do, in UTC', () => {
    for (const text of [
      '2026-01-01T24:00:00Z',
      '2026-01-01T25:00:00Z',
      '2026-01-01T00:60:00Z',
      '2026-01-01T00:00:60Z',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00+01:60',
      '2026-00-10T00:00:00Z',
      '2026-13-10T00:00:00Z',
      '9999-12-31T23:00:00-02:00',
      '2026-01-01T00:00:00',
      '2026-01-01',
      'yesterday',
    ]) {
      expect([text, instantOf(text)]).toEqual([text, undefined]);
    }
    expect(instantOf('2024-02-29T23:30:00-01:00')).toBe('2024-03-01T00:30:00.000Z');
    expect(instantOf('2026-01-01T00:00:00.123456789+05:30')).toBe('2025-12-31T18:30:00.123Z');
    expect(instantOf('2026-01-01T00:00Z')).toBe('2026-01-01T00:00:00.000Z');
  });
});
