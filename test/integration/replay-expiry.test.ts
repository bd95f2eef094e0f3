/**
 * An undelivered event lives no longer than its retention (UNDELIVERED_EVENT_DAYS, 14 days):
 * DynamoDB's TTL deletes an expired item only "typically within a few days", so replay-events
 * itself never publishes a kept event past its retention, and removes it. On DynamoDB Local, with
 * the real store, in a table of this file's own.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LifecycleEvent } from '#contract/lifecycle-events';
import { undeliveredEventId } from '#domain/undelivered-events';
import { replayUndelivered } from '#events/replay';
import { LOCAL_TABLES } from '#store/local-engine';
import { processStores } from '#store/stores';
import { createUndeliveredEventsStore } from '#store/undelivered-events-store';
import { ensureTables } from '../../local/dynamodb-local';
import { uniqueEmail } from '../support/local';

const TABLE = `undelivered-events-expiry-${process.pid}`;
const DAYS = 14;
const { stores } = processStores();
const store = createUndeliveredEventsStore(stores.client, TABLE, { retentionDays: DAYS });

beforeAll(async () => {
  await ensureTables(process.env.DYNAMODB_ENDPOINT!, { ...LOCAL_TABLES, undeliveredEventsTableName: TABLE });
});
afterAll(async () => {
  for (const { id } of await store.list()) await store.remove(id);
});

const created = (email: string): LifecycleEvent => ({
  'detail-type': 'UserCreated',
  source: 'user-management',
  detail: {
    owner_id: '7f0c1c1e-0000-4000-8000-0000000000bb',
    user_email: email,
    white_label: false,
    occurred_at: '2026-01-02T03:04:05.678Z',
    should_reset_password: false,
  },
});

describe('replay-events and the retention of kept events', () => {
  it('publishes what is within its 14 days, never what is past them, and removes the expired', async () => {
    // The replay's clock runs 30 days ahead of the real one. DynamoDB Local honours the table's TTL
    // in the background: an item whose expires_at is past in real time can vanish at any moment, so
    // every item here expires after the real now (the oldest 15 days ahead), and only the replay's
    // own clock sees some of them past their 14 days.
    // Whole seconds, as the TTL attribute counts: the 14-day edge falls exactly on it.
    const now = Math.floor(Date.now() / 1000) * 1000 + 30 * 86_400_000;
    const at = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString();
    const fresh = created(uniqueEmail('fresh'));
    const old = created(uniqueEmail('old'));
    const justExpired = created(uniqueEmail('edge'));
    await store.keep([
      { id: undeliveredEventId(old), event: old, changeId: '000000000000000000001', failure: 'EventRejected', keptAt: at(15) },
      {
        id: undeliveredEventId(justExpired),
        event: justExpired,
        changeId: '000000000000000000002',
        failure: 'EventRejected',
        keptAt: at(DAYS),
      },
      { id: undeliveredEventId(fresh), event: fresh, changeId: '000000000000000000003', failure: 'EventRejected', keptAt: at(DAYS - 0.01) },
    ]);
    const published: string[] = [];
    const sink = {
      publish: async (events: readonly LifecycleEvent[]) => {
        published.push(...events.map((event) => event.detail.user_email));
        return events.map(() => true);
      },
      recordDeletion: async () => {},
    };
    expect(await replayUndelivered(store, sink, { dryRun: true, retentionDays: DAYS, now })).toEqual({
      undelivered: 1,
      expired: 2,
      replayed: 0,
      failed: 0,
    });
    expect(await store.list()).toHaveLength(3);
    expect(await replayUndelivered(store, sink, { retentionDays: DAYS, now })).toEqual({
      undelivered: 1,
      expired: 2,
      replayed: 1,
      failed: 0,
    });
    expect(published).toEqual([fresh.detail.user_email]);
    expect(await store.list()).toEqual([]);
  });
});
