/**
 * Which of the users table's stream records can mean a lifecycle event, described once as Lambda
 * event-filter patterns: the deployed event source mapping is given these patterns
 * (lib/constructs/lifecycle-events.ts), and `npm start`'s local delivery keeps a record only when
 * {@link passesRecordFilter} (the same patterns, matched here) does. So neither the consumer nor the
 * local delivery ever sees a sign-in's writes: its attempt state has its own sort key, and its one
 * write to a profile (the upgrade of a hash) carries the rehash mark in its new image, which every
 * other write to a profile removes. A filter pattern can read the new image; it cannot compare it
 * with the old one, so the mark is what tells them apart.
 *
 * Patterns are ORed. Within one, every field must match: a list of values matches a field equal to
 * one of them; `{ exists: false }` matches a field that is absent (Lambda's `exists` works on leaves
 * only: the attribute's type key, `S`, is the leaf).
 */

import { PROFILE_SK, REHASHED_AT_ATTRIBUTE, USERS_TABLE } from '#store/table-layout';

type Rule = readonly (string | { readonly exists: boolean })[];
/** A Lambda event-filter pattern, in the subset used here: nested objects whose leaves are rules. */
export interface FilterPattern {
  readonly [field: string]: FilterPattern | Rule;
}

const sortKey = USERS_TABLE.sortKey!.name;
const isProfile = { Keys: { [sortKey]: { S: [PROFILE_SK] } } };

/** The users table's records that reach the lifecycle-events consumer. */
export const LIFECYCLE_RECORD_PATTERNS: readonly FilterPattern[] = [
  // A profile created or changed, unless by a sign-in's upgrade of its hash (its new image carries the mark).
  { dynamodb: { ...isProfile, NewImage: { [REHASHED_AT_ATTRIBUTE]: { S: [{ exists: false }] } } } },
  // A profile deleted (no new image at all).
  { eventName: ['REMOVE'], dynamodb: isProfile },
];

/** Whether `value` (a record, or a part of one) matches `pattern`. */
export function matchesPattern(pattern: FilterPattern, value: unknown): boolean {
  const fields = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  return Object.entries(pattern).every(([name, rule]) => {
    const field = fields[name];
    if (!Array.isArray(rule)) return matchesPattern(rule as FilterPattern, field);
    return (rule as Rule).some((allowed) => (typeof allowed === 'string' ? field === allowed : (field !== undefined) === allowed.exists));
  });
}

/** Whether a stream record passes the event source mapping's filter: the one test the local delivery applies too. */
export const passesRecordFilter = (record: unknown): boolean =>
  LIFECYCLE_RECORD_PATTERNS.some((pattern) => matchesPattern(pattern, record));
