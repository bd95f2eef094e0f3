/**
 * The e-mails an import has seen, for its duplicate check, held off the JavaScript heap: each
 * e-mail's SHA-256 (its first 16 bytes) and the line it was first seen on, in growing buffers, and
 * an open-addressed table of entry numbers keyed by the digest's first 32 bits (linear probing, at
 * most half full). No object per entry: keyed by the e-mails themselves, 100,000 of them grew the
 * import's peak resident set by about 40 MB, as V8 sized its heap to the live strings, and a Map
 * of entry numbers still held a few MB on the heap (test/slow/import-memory.test.ts).
 */

import { createHash } from 'node:crypto';

const DIGEST_BYTES = 16;
const EMPTY = -1;

export function seenEmails() {
  let digests = Buffer.alloc(DIGEST_BYTES * 1024);
  let lines = new Float64Array(1024);
  let slots = new Int32Array(2048).fill(EMPTY);
  let count = 0;

  /** The slot of `digest` (at `offset` in `source`): its own entry's, or the empty one where it would go. */
  const slotOf = (source: Buffer, offset: number) => {
    const mask = slots.length - 1;
    let slot = source.readUInt32LE(offset) & mask;
    for (let entry = slots[slot]!; entry !== EMPTY; entry = slots[slot]!) {
      if (digests.compare(source, offset, offset + DIGEST_BYTES, entry * DIGEST_BYTES, (entry + 1) * DIGEST_BYTES) === 0) break;
      slot = (slot + 1) & mask;
    }
    return slot;
  };
  const grow = () => {
    const grownDigests = Buffer.alloc(digests.length * 2);
    digests.copy(grownDigests);
    digests = grownDigests;
    const grownLines = new Float64Array(lines.length * 2);
    grownLines.set(lines);
    lines = grownLines;
    slots = new Int32Array(slots.length * 2).fill(EMPTY);
    for (let entry = 0; entry < count; entry++) slots[slotOf(digests, entry * DIGEST_BYTES)] = entry;
  };

  return {
    /** The line `email` was first seen on; undefined the first time (it is then recorded as seen on `line`). */
    firstLine(email: string, line: number): number | undefined {
      const digest = createHash('sha256').update(email).digest();
      const slot = slotOf(digest, 0);
      const held = slots[slot]!;
      if (held !== EMPTY) return lines[held];
      digest.copy(digests, count * DIGEST_BYTES, 0, DIGEST_BYTES);
      lines[count] = line;
      slots[slot] = count;
      count++;
      if (count === lines.length) grow();
      return undefined;
    },
  };
}
