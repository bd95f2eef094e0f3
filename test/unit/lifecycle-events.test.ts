/** The one module that turns stream records into lifecycle events: which records make which event, with which fields and time. */

import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from '@jest/globals';
import { type UndeliveredEvent, undeliveredEventId } from '#domain/undelivered-events';
import { type ChangeRecord, deliverChanges, lifecycleEventOf } from '#events/lifecycle-events';

const profile = {
  pk: 'owner-1#jane@example.com',
  sk: 'PROFILE',
  owner_id: 'owner-1',
  user_email: 'jane@example.com',
  password_hash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
  should_reset_password: false,
  created_at: '2026-05-01T10:00:00.123Z',
  updated_at: '2026-05-01T10:00:00.123Z',
  create_id: '0b6f3c1e-2d4a-4f5b-9c8d-7e6f5a4b3c2d',
};
const change = (
  eventName: string,
  images: { old?: object; new?: object },
  at: number | Date = 1_777_629_600,
  sk = 'PROFILE',
): ChangeRecord => ({
  eventName,
  dynamodb: {
    ApproximateCreationDateTime: at,
    Keys: marshall({ pk: profile.pk, sk }),
    ...(images.old && { OldImage: marshall(images.old) }),
    ...(images.new && { NewImage: marshall(images.new) }),
    SequenceNumber: '100',
  },
});

describe('lifecycleEventOf', () => {
  it('INSERT of a profile: UserCreated with exactly the contract fields, at the time the service stored', () => {
    expect(lifecycleEventOf(change('INSERT', { new: { ...profile, should_reset_password: true } }))).toEqual({
      'detail-type': 'UserCreated',
      source: 'user-management',
      detail: {
        owner_id: 'owner-1',
        user_email: 'jane@example.com',
        white_label: false,
        occurred_at: '2026-05-01T10:00:00.123Z',
        should_reset_password: true,
      },
    });
  });

  it('INSERT of an imported user, created long ago: the event is at the import, not at the old creation time', () => {
    const imported = { ...profile, created_at: '2019-02-03T04:05:06.000Z', updated_at: '2026-05-02T08:00:00.000Z' };
    expect(lifecycleEventOf(change('INSERT', { new: imported }))?.detail.occurred_at).toBe('2026-05-02T08:00:00.000Z');
  });

  it('MODIFY: UserPasswordReset only when the hash changed', () => {
    const reset = { ...profile, password_hash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$bmV3', updated_at: '2026-05-02T08:00:00.000Z' };
    expect(lifecycleEventOf(change('MODIFY', { old: profile, new: reset }))).toEqual({
      'detail-type': 'UserPasswordReset',
      source: 'user-management',
      detail: { owner_id: 'owner-1', user_email: 'jane@example.com', white_label: false, occurred_at: '2026-05-02T08:00:00.000Z' },
    });
    expect(
      lifecycleEventOf(change('MODIFY', { old: profile, new: { ...profile, updated_at: '2026-05-03T00:00:00.000Z' } })),
    ).toBeUndefined();
  });

  it('MODIFY by a sign-in: no event for its count of failures or its rehash; a reset after a rehash is still one', () => {
    const counted = { ...profile, failed_sign_ins: 3 };
    expect(lifecycleEventOf(change('MODIFY', { old: profile, new: counted }))).toBeUndefined();
    expect(lifecycleEventOf(change('MODIFY', { old: counted, new: profile }))).toBeUndefined();
    const rehashed = {
      ...profile,
      password_hash: '$argon2id$v=19$m=7168,t=5,p=1$c2FsdA$cmVoYXNo',
      password_rehashed_at: '2026-05-02T09:00:00.000Z',
    };
    expect(lifecycleEventOf(change('MODIFY', { old: counted, new: rehashed }))).toBeUndefined();
    const reset = { ...rehashed, password_hash: '$argon2id$v=19$m=7168,t=5,p=1$c2FsdA$cmVzZXQ', updated_at: '2026-05-02T10:00:00.000Z' };
    expect(lifecycleEventOf(change('MODIFY', { old: rehashed, new: reset }))?.['detail-type']).toBe('UserPasswordReset');
  });

  it('REMOVE: UserDeleted at the stream time, never before the last write; owner accounts say white_label', () => {
    const deleted = lifecycleEventOf(change('REMOVE', { old: { ...profile, white_label: true } }, 1_777_629_660));
    expect(deleted).toEqual({
      'detail-type': 'UserDeleted',
      source: 'user-management',
      detail: { owner_id: 'owner-1', user_email: 'jane@example.com', white_label: true, occurred_at: '2026-05-01T10:01:00.000Z' },
    });
    // DynamoDB Local's minute-rounded time (a Date, from the Streams API) before the last write.
    const early = lifecycleEventOf(change('REMOVE', { old: profile }, new Date('2026-05-01T10:00:00.000Z')));
    expect(early?.detail.occurred_at).toBe('2026-05-01T10:00:00.123Z');
  });

  it('associated items and unknown changes make no event', () => {
    expect(lifecycleEventOf(change('INSERT', { new: { pk: profile.pk, sk: 'DOC#1' } }, 1, 'DOC#1'))).toBeUndefined();
    expect(lifecycleEventOf(change('REMOVE', { old: { pk: profile.pk, sk: 'DOC#1' } }, 1, 'DOC#1'))).toBeUndefined();
    expect(lifecycleEventOf(change('INSERT', {}))).toBeUndefined();
    expect(lifecycleEventOf(change('TTL', { old: profile }))).toBeUndefined();
  });

  it('nothing of the item beyond the contract fields reaches an event', () => {
    const text = JSON.stringify(lifecycleEventOf(change('INSERT', { new: { ...profile, api_key: 'wlk_secret', note: 'x' } })));
    expect(text).not.toMatch(/argon2|password_hash|create_id|wlk_|api_key|note|"pk"|"sk"/);
  });
});

describe('deliverChanges', () => {
  it('records each deletion before publishing, and reports the first undelivered record', async () => {
    const calls: string[] = [];
    const records = [
      change('INSERT', { new: profile }),
      { ...change('REMOVE', { old: profile }), dynamodb: { ...change('REMOVE', { old: profile }).dynamodb, SequenceNumber: '101' } },
    ];
    const result = await deliverChanges(records, {
      publish: async (events) => {
        calls.push(`publish ${events.map((e) => e['detail-type']).join(',')}`);
        return [true, false];
      },
      recordDeletion: async (deletion) => {
        calls.push(`ledger ${deletion.email} ${deletion.changeId}`);
      },
    });
    expect(calls).toEqual(['ledger jane@example.com 101', 'publish UserCreated,UserDeleted']);
    expect(result).toEqual({ delivered: 1, kept: 0, retryFrom: '101', failure: 'EventRejected' });
  });

  const removal = (sequence: string) => {
    const record = change('REMOVE', { old: profile });
    return { ...record, dynamodb: { ...record.dynamodb, SequenceNumber: sequence } };
  };

  it('tries a chunk again, for the rejected events only, up to `attempts` times', async () => {
    const published: string[][] = [];
    const result = await deliverChanges(
      [change('INSERT', { new: profile }), removal('102')],
      {
        publish: async (events) => {
          published.push(events.map((e) => e['detail-type']));
          return events.map((e) => published.length > 1 || e['detail-type'] === 'UserCreated');
        },
        recordDeletion: async () => undefined,
      },
      { attempts: 3, pauseMs: 1 },
    );
    expect(published).toEqual([['UserCreated', 'UserDeleted'], ['UserDeleted']]);
    expect(result).toEqual({ delivered: 2, kept: 0 });
  });

  it('keeps whole what fails every try, and goes on; stops at the first record when keeping fails too', async () => {
    const failing = {
      publish: async () => {
        throw Object.assign(new Error('no bus'), { name: 'ResourceNotFoundException' });
      },
      recordDeletion: async () => undefined,
    };
    const kept: UndeliveredEvent[] = [];
    const records = [change('INSERT', { new: profile }), removal('103')];
    const result = await deliverChanges(records, failing, { attempts: 2, pauseMs: 1, keep: async (events) => void kept.push(...events) });
    expect(result).toEqual({ delivered: 2, kept: 2, failure: 'ResourceNotFoundException' });
    expect(kept.map((k) => [k.event['detail-type'], k.changeId, k.failure])).toEqual([
      ['UserCreated', '100', 'ResourceNotFoundException'],
      ['UserDeleted', '103', 'ResourceNotFoundException'],
    ]);
    // The whole event, its contract fields only; the same event always has the same id.
    expect(kept[1]!.event).toEqual(lifecycleEventOf(removal('103')));
    expect(kept[1]!.id).toBe(undeliveredEventId(kept[1]!.event));
    expect(JSON.stringify(kept)).not.toMatch(/argon2|password_hash/);

    const stopped = await deliverChanges([removal('104')], failing, {
      keep: async () => {
        throw new Error('table gone');
      },
    });
    expect(stopped).toEqual({ delivered: 0, kept: 0, retryFrom: '104', failure: 'ResourceNotFoundException' });
  });
});
