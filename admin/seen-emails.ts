/**
 * The e-mails an import has seen, for its duplicate check, held mostly off the JavaScript heap: each
 * e-mail's SHA-256 (its first 16 bytes) in one growing buffer, and a map from the digest's first 30
 * bits (a small integer: no object per entry) to the entries that start so. Keyed by the e-mails
 * themselves, 100,000 of them grew the import's peak resident set by about 40 MB, as V8 sized its
 * heap to the live strings (test/slow/import-memory.test.ts).
 */

import { createHash } from 'node:crypto';

const DIGEST_BYTES = 16;

export function seenEmails() {
  let digests = Buffer.alloc(DIGEST_BYTES * 1024);
  const lines: number[] = [];
  const buckets = new Map<number, number | number[]>();
  return {
    /** The line `email` was first seen on; undefined the first time (it is then recorded as seen on `line`). */
    firstLine(email: string, line: number): number | undefined {
      const digest = createHash('sha256').update(email).digest();
      const bucket = digest.readUInt32LE(0) >>> 2;
      const held = buckets.get(bucket);
      const entries = held === undefined ? [] : typeof held === 'number' ? [held] : held;
      for (const entry of entries)
        if (digests.compare(digest, 0, DIGEST_BYTES, entry * DIGEST_BYTES, (entry + 1) * DIGEST_BYTES) === 0) return lines[entry];
      const entry = lines.length;
      if ((entry + 1) * DIGEST_BYTES > digests.length) {
        const grown = Buffer.alloc(digests.length * 2);
        digests.copy(grown);
        digests = grown;
      }
      digest.copy(digests, entry * DIGEST_BYTES, 0, DIGEST_BYTES);
      lines.push(line);
      buckets.set(bucket, held === undefined ? entry : [...entries, entry]);
      return undefined;
    },
  };
}
