/**
 * The events file's sink on real files: a torn last line (a crash in the middle of an append) is
 * moved to `<file>.torn` before the next append, however long it is, and a whole file is left as
 * it is; files it creates are 0600.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { EVENT_SOURCE, type LifecycleEvent } from '#contract/lifecycle-events';
import type { DeletionLedger } from '#domain/deletions';
import { createFileSink, eventLine, setAsideTornLine } from '#events/file-sink';

const dir = mkdtempSync(join(tmpdir(), 'file-sink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fresh = () => join(dir, `events-${++files}.jsonl`);
const event = (email: string): LifecycleEvent => ({
  'detail-type': 'UserDeleted',
  source: EVENT_SOURCE,
  detail: { owner_id: 'o', user_email: email, white_label: false, occurred_at: '2026-01-01T00:00:00.000Z' },
});
/** The sink's ledger side is not what these tests look at: a ledger that holds nothing. */
const noLedger: DeletionLedger = { record: async () => undefined, since: async () => [] };

describe('the file sink', () => {
  it('sets a torn last line aside before its first append, with one warning, and appends on a line of its own', async () => {
    const file = fresh();
    const whole = eventLine(event('a@example.com'));
    writeFileSync(file, `${whole}{"detail-type":"UserDel`);
    const warnings: string[] = [];
    const sink = createFileSink(file, noLedger, (line) => warnings.push(line));
    await sink.publish([event('b@example.com')]);
    await sink.publish([event('c@example.com')]);
    expect(readFileSync(file, 'utf8')).toBe(`${whole}${eventLine(event('b@example.com'))}${eventLine(event('c@example.com'))}`);
    expect(readFileSync(`${file}.torn`, 'utf8')).toBe('{"detail-type":"UserDel\n');
    expect(warnings).toEqual([
      `${file} ended in a torn line (23 bytes, a crash during an append): moved to ${file}.torn; its event is written again.`,
    ]);
    expect((statSync(`${file}.torn`).mode & 0o777).toString(8)).toBe('600');
  });

  it('handles a torn line longer than its read chunk, and a file with no newline at all', async () => {
    const long = fresh();
    const whole = eventLine(event('a@example.com'));
    const torn = `{"x":"${'y'.repeat(200_000)}`;
    writeFileSync(long, `${whole}${torn}`);
    expect(await setAsideTornLine(long)).toContain(`(${torn.length} bytes`);
    expect(readFileSync(long, 'utf8')).toBe(whole);
    expect(readFileSync(`${long}.torn`, 'utf8')).toBe(`${torn}\n`);

    const only = fresh();
    writeFileSync(only, '{"detail-type"');
    expect(await setAsideTornLine(only)).toBeDefined();
    expect(readFileSync(only, 'utf8')).toBe('');
  });

  it('leaves a whole file, an empty one, a missing one and a directory alone; creates the file 0600', async () => {
    const file = fresh();
    writeFileSync(file, eventLine(event('a@example.com')));
    expect(await setAsideTornLine(file)).toBeUndefined();
    writeFileSync(file, '');
    expect(await setAsideTornLine(file)).toBeUndefined();
    expect(await setAsideTornLine(join(dir, 'missing.jsonl'))).toBeUndefined();
    const folder = fresh();
    mkdirSync(folder);
    expect(await setAsideTornLine(folder)).toBeUndefined();

    const created = fresh();
    await createFileSink(created, noLedger).publish([event('a@example.com')]);
    expect((statSync(created).mode & 0o777).toString(8)).toBe('600');
  });
});
