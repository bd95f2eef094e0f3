/**
 * last_used_at, to the hour: at most one conditional write per key per hour from each warm
 * function, never awaited by the request that caused it.
 */

import { logger } from '#platform/logger';
import { ExpiringLruCache } from '#platform/lru-cache';
import { type ApiKeyRecord, hourOf, type OwnerStore } from './key-check';

const MAX_REMEMBERED_KEYS = 1_000;
const HOUR_MS = 3_600_000;

/**
 * Returns the hook the key step calls for each accepted request. It remembers, per key, the
 * hour it last sent (or found stored on the record it resolved), so within an hour a warm
 * function sends one UpdateItem per key however many requests it serves, and none when
 * another function already recorded the hour. The memory is its own, not the key cache's:
 * it outlives the cache's refresh every API_KEY_CACHE_TTL_SECONDS.
 *
 * The write is started, not awaited: it runs beside the operation (which takes longer: a
 * hash, or a Query), so it neither delays nor fails the response. Its failure is logged by
 * name and not retried within the hour (the next hour, or another function, records the
 * use). Lambda freezes a function once it has answered; a write still in flight then
 * completes on the next invocation or is lost, which the hour's granularity tolerates.
 */
export function keyUseRecorder(store: Pick<OwnerStore, 'recordKeyUse'>): (key: ApiKeyRecord, now: number) => void {
  // By digest, the hour sent; an entry is of no use after an hour, and the least recently used goes first.
  const sent = new ExpiringLruCache<string>(MAX_REMEMBERED_KEYS, HOUR_MS);
  // The hour as last_used_at spells it, formatted once per hour rather than once per request.
  let hourStart = Number.NaN;
  let hour = '';
  return (key, now) => {
    if (!(now >= hourStart && now < hourStart + HOUR_MS)) {
      hourStart = now - (now % HOUR_MS);
      hour = hourOf(now);
    }
    if ((sent.get(key.digest, now) ?? '') >= hour || (key.lastUsedAt ?? '') >= hour) return;
    sent.set(key.digest, hour, now);
    store.recordKeyUse(key.digest, hour).catch((error: unknown) => {
      // By name only: a storage error's text may quote the request.
      logger.warn('Recording the key use failed', { key_id: key.keyId, error: error instanceof Error ? error.name : 'unknown' });
    });
  };
}
