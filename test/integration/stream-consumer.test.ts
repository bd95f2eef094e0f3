/**
 * The deployed stream consumer (functions/publishLifecycleEvents/handler.ts), called as Lambda calls
 * it with DynamoDB stream records, publishing over real HTTP to a stand-in for EventBridge's
 * PutEvents endpoint (AWS_ENDPOINT_URL_EVENTBRIDGE) and writing the ledger on DynamoDB Local.
 * A refused entry is tried again; an event refused every try is kept whole in the undelivered-events
 * table (on DynamoDB Local, a table of this file's own) and counted for its alarm, and
 * `admin replay-events`, as run against a deployed stage, publishes it and empties the table.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { LOCAL_TABLES } from '#store/local-engine';
import { processStores } from '#store/stores';
import { userPk } from '#store/table-layout';
import { ensureTables } from '../../local/dynamodb-local';
import { uniqueEmail } from '../support/local';
import { runScript } from '../support/processes';
import { scanAll } from '../support/scan';

const { stores } = processStores();

interface PutEventsRequest {
  Entries: { EventBusName: string; Source: string; DetailType: string; Detail: string; Time?: number }[];
}
const received: PutEventsRequest[] = [];
/** Indexes of entries the stand-in refuses, in its next `refuseTimes` answers. */
let refuse: number[] = [];
let refuseTimes = Number.POSITIVE_INFINITY;
let eventBridge: Server;
let handler: (event: DynamoDBStreamEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
const logged: string[] = [];
const savedEnv: NodeJS.ProcessEnv = {};
/** This file's own undelivered-events table: the replay below publishes everything in it. */
const UNDELIVERED_TABLE = `undelivered-events-consumer-${process.pid}`;

beforeAll(async () => {
  eventBridge = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const request = JSON.parse(body) as PutEventsRequest;
      received.push(request);
      const refusing = refuseTimes-- > 0;
      const entries = request.Entries.map((_, index) =>
        refusing && refuse.includes(index)
          ? { ErrorCode: 'InternalFailure', ErrorMessage: 'refused by the test' }
          : { EventId: `event-${index}` },
      );
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ FailedEntryCount: entries.filter((e) => 'ErrorCode' in e).length, Entries: entries }));
    });
  });
  await new Promise<void>((resolve) => eventBridge.listen(0, '127.0.0.1', resolve));
  Object.assign(savedEnv, process.env);
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_EVENTBRIDGE: `http://127.0.0.1:${(eventBridge.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    EVENT_BUS_NAME: 'user-management-test',
    DELETIONS_TABLE_NAME: LOCAL_TABLES.deletionsTableName,
    UNDELIVERED_EVENTS_TABLE_NAME: UNDELIVERED_TABLE,
    RECOVERY_PERIOD_DAYS: '7',
    // The undelivered-events count is an EMF line on stdout (the global set-up turns metrics off).
    POWERTOOLS_METRICS_DISABLED: 'false',
  });
  await ensureTables(process.env.DYNAMODB_ENDPOINT!, { ...LOCAL_TABLES, undeliveredEventsTableName: UNDELIVERED_TABLE });
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    jest.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      logged.push(text);
      return text.startsWith('{') ? true : write(chunk, ...rest);
    }) as never);
  }
  const { logger } = await import('#platform/logger');
  logger.setLogLevel('DEBUG');
  ({ handler } = await import('../../functions/publishLifecycleEvents/handler'));
});

afterAll(async () => {
  jest.restoreAllMocks();
  // The next test file in this worker gets the environment this one found (metrics off again).
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  await new Promise((resolve) => eventBridge.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  refuse = [];
  refuseTimes = Number.POSITIVE_INFINITY;
});

const ownerId = '7f0c1c1e-0000-4000-8000-000000000001';
let sequence = 1_000;
/** A stream record as Lambda delivers it (images in AttributeValue form, time in epoch seconds). */
function record(
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  sk: string,
  email: string,
  images: { old?: object; new?: object },
): DynamoDBRecord {
  const keys = { pk: userPk(ownerId, email), sk };
  return {
    eventName,
    eventSource: 'aws:dynamodb',
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
      Keys: marshall(keys) as never,
      ...(images.new && { NewImage: marshall({ ...keys, ...images.new }) as never }),
      ...(images.old && { OldImage: marshall({ ...keys, ...images.old }) as never }),
      SequenceNumber: String(++sequence).padStart(21, '0'),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}
const profile = (email: string, hash: string, extra: object = {}) => ({
  owner_id: ownerId,
  user_email: email,
  password_hash: hash,
  should_reset_password: false,
  created_at: '2026-01-02T03:04:05.678Z',
  updated_at: '2026-01-02T03:04:05.678Z',
  ...extra,
});

/** What the undelivered-events table holds, oldest first. */
const undelivered = async () =>
  (await scanAll(stores.client, { TableName: UNDELIVERED_TABLE, ConsistentRead: true })).sort((a, b) =>
    String(a.change_id).localeCompare(String(b.change_id)),
  );
const ledgerOf = async (email: string) =>
  (
    await stores.client.send(
      new QueryCommand({
        TableName: LOCAL_TABLES.deletionsTableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': userPk(ownerId, email) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

describe('stream consumer', () => {
  it('publishes each profile change to the bus with source, detail-type and detail; associated items publish nothing', async () => {
    const email = uniqueEmail('consumer');
    const before = profile(email, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA');
    const after = profile(email, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$bmV3', { updated_at: '2026-01-02T03:05:00.000Z' });
    const records = [
      record('INSERT', 'PROFILE', email, { new: before }),
      record('INSERT', 'DOC#1', email, { new: { body: 'associated' } }),
      record('MODIFY', 'PROFILE', email, { old: before, new: after }),
      // An update that leaves the hash alone is not a reset.
      record('MODIFY', 'PROFILE', email, { old: after, new: { ...after, updated_at: '2026-01-02T03:06:00.000Z' } }),
      record('REMOVE', 'DOC#1', email, { old: { body: 'associated' } }),
      record('REMOVE', 'PROFILE', email, { old: after }),
    ];
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
    const entries = received.flatMap((request) => request.Entries);
    expect(entries.map((entry) => [entry.EventBusName, entry.Source, entry.DetailType])).toEqual([
      ['user-management-test', 'user-management', 'UserCreated'],
      ['user-management-test', 'user-management', 'UserPasswordReset'],
      ['user-management-test', 'user-management', 'UserDeleted'],
    ]);
    expect(JSON.parse(entries[0]!.Detail)).toEqual({
      owner_id: ownerId,
      user_email: email,
      white_label: false,
      occurred_at: '2026-01-02T03:04:05.678Z',
      should_reset_password: false,
    });
    expect(entries.map((entry) => entry.Detail).join()).not.toMatch(/argon2|password_hash|DOC#1/);

    const { Items = [] } = await stores.client.send(
      new QueryCommand({
        TableName: LOCAL_TABLES.deletionsTableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': userPk(ownerId, email) },
        ConsistentRead: true,
      }),
    );
    expect(Items).toHaveLength(1);
    expect(Items[0]!.expires_at).toBe(Math.ceil(Date.parse(Items[0]!.deleted_at as string) / 1000) + 7 * 86_400);
  });

  it('a refused entry is tried again, alone, within the invocation', async () => {
    const emails = [uniqueEmail('p1'), uniqueEmail('p2'), uniqueEmail('p3')];
    const records = emails.map((email) => record('INSERT', 'PROFILE', email, { new: profile(email, '$argon2id$x') }));
    refuse = [1];
    refuseTimes = 1;
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(received.map((request) => request.Entries.map((entry) => JSON.parse(entry.Detail).user_email))).toEqual([emails, [emails[1]]]);
    expect(await undelivered()).toEqual([]);
  });

  it('an event refused every try is kept whole and counted; replay-events publishes it, its deletion in the ledger', async () => {
    const email = uniqueEmail('kept');
    const records = [
      record('INSERT', 'PROFILE', email, { new: profile(email, '$argon2id$x') }),
      record('REMOVE', 'PROFILE', email, { old: profile(email, '$argon2id$x') }),
    ];
    refuse = [0, 1];
    const emfBefore = logged.length;
    // Delivery moves on: nothing for Lambda to retry, nothing for the dead-letter queue.
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(received).toHaveLength(3);
    const kept = await undelivered();
    expect(kept.map((item) => [JSON.parse(item.event as string)['detail-type'], item.change_id, item.failure])).toEqual([
      ['UserCreated', records[0]!.dynamodb!.SequenceNumber, 'EventRejected'],
      ['UserDeleted', records[1]!.dynamodb!.SequenceNumber, 'EventRejected'],
    ]);
    expect(JSON.parse(kept[1]!.event as string)).toEqual({
      'detail-type': 'UserDeleted',
      source: 'user-management',
      detail: { owner_id: ownerId, user_email: email, white_label: false, occurred_at: expect.any(String) },
    });
    // Kept for UNDELIVERED_EVENT_DAYS (14) after it was kept, then DynamoDB's TTL removes it.
    expect(kept[0]!.expires_at).toBe(Math.ceil(Date.parse(kept[0]!.kept_at as string) / 1000) + 14 * 86_400);
    expect(JSON.stringify(kept)).not.toMatch(/argon2|password_hash/);
    const emf = logged
      .slice(emfBefore)
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line));
    expect(emf).toEqual([expect.objectContaining({ undeliveredEvents: 2 })]);
    // One dimension set, the one the alarm names (test/hardening/alarm-metrics.test.ts matches them).
    expect(emf[0]._aws.CloudWatchMetrics[0].Dimensions).toEqual([['consumer']]);
    expect(emf[0].consumer).toBe('lifecycle-events');

    // The bus works again: the operator replays, as against a deployed stage.
    refuse = [];
    received.length = 0;
    const replay = () =>
      runScript(
        'admin/cli.ts',
        [
          'replay-events',
          '--undelivered-events-table',
          UNDELIVERED_TABLE,
          '--event-bus',
          'user-management-test',
          '--deletions-table',
          LOCAL_TABLES.deletionsTableName,
        ],
        { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' },
      );
    const first = await replay();
    expect([first.code, JSON.parse(first.stdout), first.stderr]).toEqual([0, { undelivered: 2, replayed: 2, failed: 0 }, '']);
    const entries = received.flatMap((request) => request.Entries);
    expect(entries.map((entry) => [entry.EventBusName, entry.DetailType, JSON.parse(entry.Detail).user_email])).toEqual([
      ['user-management-test', 'UserCreated', email],
      ['user-management-test', 'UserDeleted', email],
    ]);
    expect(JSON.parse(entries[1]!.Detail)).toEqual(JSON.parse(kept[1]!.event as string).detail);
    expect(await undelivered()).toEqual([]);
    expect(await ledgerOf(email)).toHaveLength(1);
    // Run again: nothing left.
    const second = await replay();
    expect([second.code, JSON.parse(second.stdout)]).toEqual([0, { undelivered: 0, replayed: 0, failed: 0 }]);
  }, 60_000);

  it('an unreachable bus: the batch is kept for replay, not lost', async () => {
    const email = uniqueEmail('down');
    const records = [record('INSERT', 'PROFILE', email, { new: profile(email, '$argon2id$x') })];
    const port = process.env.AWS_ENDPOINT_URL_EVENTBRIDGE;
    await new Promise((resolve) => eventBridge.close(resolve));
    try {
      expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
      const kept = await undelivered();
      expect(kept.map((item) => [JSON.parse(item.event as string).detail.user_email, item.failure])).toEqual([[email, expect.any(String)]]);
      await stores.client.send(new DeleteCommand({ TableName: UNDELIVERED_TABLE, Key: { pk: kept[0]!.pk } }));
    } finally {
      await new Promise<void>((resolve) => eventBridge.listen(Number(new URL(port!).port), '127.0.0.1', resolve));
    }
  }, 60_000);

  it('logs counts and error names, never an e-mail, a hash or an event', () => {
    // The EMF lines are metrics, not log lines: they carry a count and no dimension.
    const text = logged.join('');
    expect(text).toContain('Lifecycle events delivered');
    expect(text).toContain('Lifecycle events kept for replay');
    expect(text).not.toMatch(/@example\.com|argon2|detail/i);
    expect(text).not.toContain(ownerId);
  });
});
