/**
 * The deployed stream consumer (functions/publishLifecycleEvents/handler.ts), called as Lambda calls
 * it with DynamoDB stream records, publishing over real HTTP to a stand-in for EventBridge's
 * PutEvents endpoint (AWS_ENDPOINT_URL_EVENTBRIDGE) and writing the ledger on DynamoDB Local.
 * A partial PutEvents failure must fail the batch from the first undelivered record.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { processStores } from '#store/stores';
import { userPk } from '#store/table-layout';
import { LOCAL_TABLES } from '../../local/local-engine';
import { uniqueEmail } from '../support/local';

const { stores } = processStores();

interface PutEventsRequest {
  Entries: { EventBusName: string; Source: string; DetailType: string; Detail: string; Time?: number }[];
}
const received: PutEventsRequest[] = [];
/** Indexes of entries the stand-in refuses in its next answer. */
let refuse: number[] = [];
let eventBridge: Server;
let handler: (event: DynamoDBStreamEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
const logged: string[] = [];

beforeAll(async () => {
  eventBridge = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const request = JSON.parse(body) as PutEventsRequest;
      received.push(request);
      const entries = request.Entries.map((_, index) =>
        refuse.includes(index) ? { ErrorCode: 'InternalFailure', ErrorMessage: 'refused by the test' } : { EventId: `event-${index}` },
      );
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ FailedEntryCount: entries.filter((e) => 'ErrorCode' in e).length, Entries: entries }));
    });
  });
  await new Promise<void>((resolve) => eventBridge.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_EVENTBRIDGE: `http://127.0.0.1:${(eventBridge.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    EVENT_BUS_NAME: 'user-management-test',
    DELETIONS_TABLE_NAME: LOCAL_TABLES.deletionsTableName,
    RECOVERY_PERIOD_DAYS: '7',
  });
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
  await new Promise((resolve) => eventBridge.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  refuse = [];
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

  it('a partial PutEvents failure fails the batch from the first refused record, so Lambda retries from there', async () => {
    const emails = [uniqueEmail('p1'), uniqueEmail('p2'), uniqueEmail('p3')];
    const records = emails.map((email) => record('INSERT', 'PROFILE', email, { new: profile(email, '$argon2id$x') }));
    refuse = [1];
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.dynamodb!.SequenceNumber }] });
    refuse = [];
    expect(await handler({ Records: records.slice(1) })).toEqual({ batchItemFailures: [] });
  });

  it('an unreachable bus fails the batch from its first record', async () => {
    const email = uniqueEmail('down');
    const records = [record('INSERT', 'PROFILE', email, { new: profile(email, '$argon2id$x') })];
    const port = process.env.AWS_ENDPOINT_URL_EVENTBRIDGE;
    await new Promise((resolve) => eventBridge.close(resolve));
    try {
      expect(await handler({ Records: records })).toEqual({
        batchItemFailures: [{ itemIdentifier: records[0]!.dynamodb!.SequenceNumber }],
      });
    } finally {
      await new Promise<void>((resolve) => eventBridge.listen(Number(new URL(port!).port), '127.0.0.1', resolve));
    }
  }, 30_000);

  it('logs counts and error names, never an e-mail, a hash or an event', () => {
    const text = logged.join('');
    expect(text).toContain('Lifecycle events delivered');
    expect(text).toContain('Lifecycle events not delivered');
    expect(text).not.toMatch(/@example\.com|argon2|detail/i);
  });
});
