/**
 * admin import-users' progress on stderr: a bar rewritten in place on a terminal (every 1,000
 * lines or 250 ms, with the share of the file read and the counts), a plain line every 10,000
 * lines otherwise. The CLI's own non-terminal lines are also seen in test/processes/user-transfer.test.ts.
 */

import { describe, expect, it } from '@jest/globals';
import { importProgress } from '../../admin/transfer-commands';

const counts = (lines: number) => ({ imported: lines - Math.floor(lines / 100), exists: 0, failed: Math.floor(lines / 100) });

function output(isTTY: boolean) {
  const written: string[] = [];
  return { out: { isTTY, write: (text: string) => written.push(text) }, written };
}

describe('import progress', () => {
  it('not on a terminal: one plain line every 10,000 lines, and nothing at the end', () => {
    const { out, written } = output(false);
    const progress = importProgress(out, 2_500_000);
    for (let line = 1; line <= 25_000; line++) progress.update(line, line * 100, counts(line));
    progress.done(25_000, 2_500_000, counts(25_000));
    expect(written).toEqual([
      '10000 lines read: 9900 imported, 0 exist, 100 failed\n',
      '20000 lines read: 19800 imported, 0 exist, 200 failed\n',
    ]);
  });

  it('on a terminal: a bar rewritten in place every 1,000 lines or 250 ms, and its line ended at the end', () => {
    const { out, written } = output(true);
    let now = 0;
    const progress = importProgress(out, 400_000, () => now);
    for (let line = 1; line <= 2_500; line++) progress.update(line, line * 100, counts(line));
    // The first line, then each thousandth: the clock did not move.
    expect(written).toEqual([
      `\r\x1b[K[${'.'.repeat(30)}]   0% 1 lines read: 1 imported, 0 exist, 0 failed`,
      `\r\x1b[K[${'#'.repeat(8)}${'.'.repeat(22)}]  25% 1000 lines read: 990 imported, 0 exist, 10 failed`,
      `\r\x1b[K[${'#'.repeat(15)}${'.'.repeat(15)}]  50% 2000 lines read: 1980 imported, 0 exist, 20 failed`,
    ]);
    now = 249;
    progress.update(2_501, 250_100, counts(2_501));
    expect(written).toHaveLength(3);
    now = 250;
    progress.update(2_502, 250_200, counts(2_502));
    expect(written.at(-1)).toBe(`\r\x1b[K[${'#'.repeat(19)}${'.'.repeat(11)}]  62% 2502 lines read: 2477 imported, 0 exist, 25 failed`);
    // A failure line on the same terminal wipes the bar first; once.
    progress.clear();
    progress.clear();
    expect(written.slice(4)).toEqual(['\r\x1b[K']);
    progress.done(4_000, 400_000, counts(4_000));
    expect(written.slice(5)).toEqual([`\r\x1b[K[${'#'.repeat(30)}] 100% 4000 lines read: 3960 imported, 0 exist, 40 failed`, '\n']);
  });
});
