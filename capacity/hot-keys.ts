/**
 * Hot keys: the items many requests of one owner, one key or one user reach, the most requests a
 * second that reach one such item before its partition's limit (1,000 write units and 3,000 read
 * units a second, a linear combination), and whether the per-key WAF limit keeps one key below it.
 */

import type { AwsFigures, StackSettings } from './model';
import { itemReadUnits, itemWriteUnits } from './request-units';

export interface HotItem {
  /** The item, as printed. */
  readonly item: string;
  /** The requests that reach it, as printed. */
  readonly reachedBy: string;
  /** Its size in bytes (DynamoDB's item-size rules), from the bench; null where the units are measured per request instead. */
  readonly bytes: number | null;
  /** Units one request takes on it where its own size does not give them (several items read, or units the bench measured). */
  readonly unitsPerRequest?: number;
  /** What one request that reaches it does to it. */
  readonly access: 'write' | 'strong-read' | 'eventual-read';
  /**
   * Operations (API methods, each with its own stage throttle) through which one API key reaches it;
   * 0 when no API key is in front of it (the sign-in runs in the tool's back end).
   */
  readonly methods: number;
  /** A bound on what reaches the item whatever one key sends (an API key's item is read once per warm environment per cache period). */
  readonly cap?: { readonly rps: number; readonly why: string };
}

export interface HotKeyRow {
  readonly hot: HotItem;
  /** Units one request that reaches the item consumes on it. */
  readonly units: number;
  /** Requests a second reaching the one item that its partition serves. */
  readonly partitionRps: number;
  /** What one API key can send a second through the WAF's per-key rate and the stage throttle; null when no key is in front. */
  readonly oneKeyRps: number | null;
  /** Whether one key stays below the partition's limit. */
  readonly keyBelowPartition: boolean | null;
}

/** Write units of one item written (a failed conditional write too: at least one), by AWS's rules (capacity/request-units.ts). */
export const writeUnitsOf = (bytes: number) => itemWriteUnits({ before: bytes, after: bytes });
/** Read units of one item: a strongly consistent read rounds to 4 KB, an eventually consistent one costs half. */
export const readUnitsOf = (bytes: number, consistent: boolean) => itemReadUnits(bytes, consistent ? 'strong' : 'eventual');

export function hotKeyRow(hot: HotItem, stack: StackSettings, aws: AwsFigures): HotKeyRow {
  const units =
    hot.unitsPerRequest ??
    (hot.access === 'write' ? writeUnitsOf(hot.bytes ?? 0) : readUnitsOf(hot.bytes ?? 0, hot.access === 'strong-read'));
  const partitionRps = (hot.access === 'write' ? aws.dynamoPartitionWrite : aws.dynamoPartitionRead) / units;
  const throughKey =
    hot.methods === 0 || !stack.waf ? null : Math.min(stack.wafKeyLimit / stack.wafWindowSeconds, stack.throttleRateLimit * hot.methods);
  const oneKeyRps = throughKey === null ? null : Math.min(throughKey, hot.cap?.rps ?? Infinity);
  return { hot, units, partitionRps, oneKeyRps, keyBelowPartition: oneKeyRps === null ? null : oneKeyRps < partitionRps };
}
