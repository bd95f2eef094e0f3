/**
 * The import's duplicate check (admin/seen-emails.ts): exact over 200,000 distinct e-mails, among
 * which some share the first 30 bits of their digest (the check counts them: they take the same
 * slot of any table up to 2^30, so the probe passes an unequal digest), and every repeat answers
 * the line the e-mail was first seen on.
 */

import { createHash } from 'node:crypto';
import { expect, it } from '@jest/globals';
import { seenEmails } from '../../admin/seen-emails';

it('answers undefined for each new e-mail and the first line for each repeat, across shared buckets', () => {
  const seen = seenEmails();
  const emails = Array.from({ length: 200_000 }, (_, i) => `user-${i}@example.com`);
  const buckets = new Set<number>();
  let shared = 0;
  const wrong: string[] = [];
  for (const [line, email] of emails.entries()) {
    const bucket = createHash('sha256').update(email).digest().readUInt32LE(0) >>> 2;
    if (buckets.has(bucket)) shared++;
    buckets.add(bucket);
    if (seen.firstLine(email, line + 1) !== undefined) wrong.push(email);
  }
  expect(wrong).toEqual([]);
  expect(shared).toBeGreaterThan(0);
  for (const line of [0, 1, 4_095, 99_999, 199_999]) expect(seen.firstLine(emails[line]!, 300_000)).toBe(line + 1);
  expect(seen.firstLine('someone-else@example.com', 300_001)).toBeUndefined();
});
