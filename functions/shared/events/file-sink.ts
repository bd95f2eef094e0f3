import { appendFile, open, truncate } from 'node:fs/promises';
import type { LifecycleEvent } from '#contract/lifecycle-events';
import type { DeletionLedger } from '#domain/deletions';
import type { EventSink } from '#events/lifecycle-events';

/** Where `npm start` and the local `admin replay-events` write events unless EVENTS_FILE says otherwise. */
export const DEFAULT_EVENTS_FILE = '.data/events.jsonl';

/** Events, hashes and digests are the owner's business only: files created owner-only (folders 0700). */
export const PRIVATE_FILE_MODE = 0o600;

/** One event as the events file holds it: a JSON object and a newline. */
export const eventLine = (event: LifecycleEvent) => `${JSON.stringify(event)}\n`;

/**
 * A crash in the middle of an append leaves a last line without its newline: the next append
 * would be glued to it and both lines would be unreadable. The torn bytes are moved to
 * `<file>.torn` (appended there, each followed by a newline) and the file cut back to its last
 * whole line. The torn event is not lost: its append never completed, so it is delivered again
 * (npm start resumes from its checkpoint, saved only after an append; a replay removes a kept
 * event only once appended). Resolves with a one-line warning when it repaired the file.
 */
export async function setAsideTornLine(eventsFile: string): Promise<string | undefined> {
  const file = await open(eventsFile, 'r').catch(() => undefined);
  if (!file) return undefined;
  let torn: Buffer;
  let keep: number;
  try {
    const stats = await file.stat();
    // Not a regular file (a directory in its place): the append fails and says so; nothing to repair.
    if (!stats.isFile() || stats.size === 0) return undefined;
    const size = stats.size;
    const last = Buffer.alloc(1);
    await file.read(last, 0, 1, size - 1);
    if (last[0] === 0x0a) return undefined;
    // Back to the last newline, a chunk at a time (a torn line is at most one event long).
    keep = 0;
    const chunk = Buffer.alloc(64 * 1024);
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - chunk.length);
      await file.read(chunk, 0, end - start, start);
      const at = chunk.subarray(0, end - start).lastIndexOf(0x0a);
      if (at !== -1) {
        keep = start + at + 1;
        break;
      }
      end = start;
    }
    torn = Buffer.alloc(size - keep);
    await file.read(torn, 0, torn.length, keep);
  } finally {
    await file.close();
  }
  await appendFile(`${eventsFile}.torn`, Buffer.concat([torn, Buffer.from('\n')]), { mode: PRIVATE_FILE_MODE });
  await truncate(eventsFile, keep);
  return `${eventsFile} ended in a torn line (${torn.length} bytes, a crash during an append): moved to ${eventsFile}.torn; its event is written again.`;
}

/**
 * The events file's own sink (npm start and a local `admin replay-events`), beside the EventBridge
 * sink: one JSON line per event, appended in one write to a file created 0600; deletions to the
 * ledger. Before its first append it sets a torn last line aside ({@link setAsideTornLine}),
 * telling `onWarning`.
 */
export function createFileSink(eventsFile: string, ledger: DeletionLedger, onWarning: (line: string) => void = () => undefined): EventSink {
  let checked = false;
  return {
    async publish(events) {
      if (!checked) {
        const warning = await setAsideTornLine(eventsFile);
        if (warning) onWarning(warning);
        checked = true;
      }
      await appendFile(eventsFile, events.map(eventLine).join(''), { mode: PRIVATE_FILE_MODE });
      return events.map(() => true);
    },
    recordDeletion: (deletion) => ledger.record(deletion),
  };
}
