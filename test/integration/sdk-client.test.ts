/**
 * The shared client with the SDK's per-call work trimmed (functions/shared/dynamodb.ts): every call
 * still carries the user agent the SDK builds, the first call's and every later one's the same,
 * and nothing else on the stack is gone; the middleware chain built once per command type still
 * sends each call's own input, concurrently too, and sees middleware added after it was built.
 * Retries and timeouts: test/hardening/sdk-retries.test.ts.
 */

import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from '@jest/globals';
import { createDocumentClient } from '../../functions/shared/dynamodb';
import { dependencies } from '../../functions/shared/pipeline';

const { config } = dependencies;

describe('the shared DynamoDB client, trimmed', () => {
  it('sends the SDK-built user agent on every call, concurrent first calls included', async () => {
    const db = createDocumentClient({ endpoint: config.dynamodbEndpoint });
    const seen: Record<string, string | undefined>[] = [];
    db.middlewareStack.add(
      (next) => async (args) => {
        const headers = (args.request as { headers: Record<string, string> }).headers;
        seen.push({ ua: headers['user-agent'], amz: headers['x-amz-user-agent'] });
        return next(args);
      },
      { step: 'finalizeRequest', name: 'userAgentProbe' },
    );
    const key = { pk: `sdk-client-${Math.random()}`, sk: 'PROFILE' };
    await Promise.all([
      db.send(new GetCommand({ TableName: config.usersTableName, Key: key })),
      db.send(new GetCommand({ TableName: config.usersTableName, Key: key })),
    ]);
    await db.send(new PutCommand({ TableName: config.usersTableName, Item: { ...key, kind: 'probe' } }));
    await db.send(
      new QueryCommand({
        TableName: config.usersTableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': key.pk },
      }),
    );
    expect(seen).toHaveLength(4);
    expect(seen[0]?.ua).toMatch(/^aws-sdk-js\/\S+ .*api\/dynamodb#/);
    expect(seen[0]?.amz).toMatch(/^aws-sdk-js\//);
    for (const headers of seen) expect(headers).toEqual(seen[0]);
    db.destroy();
  });

  it('drops only the SDK logger and rebuilds of the user agent: serialization, retries, signing and parsing stay', async () => {
    const db = createDocumentClient({ endpoint: config.dynamodbEndpoint });
    await db.send(new GetCommand({ TableName: config.usersTableName, Key: { pk: 'sdk-client-stack', sk: 'PROFILE' } }));
    const names = db.middlewareStack.identify().map((entry) => entry.split(' ')[0]);
    expect(names).not.toContain('loggerMiddleware');
    expect(names).not.toContain('getUserAgentMiddleware');
    expect(names).toEqual(
      expect.arrayContaining([
        'serializerMiddleware',
        'contentLengthMiddleware',
        'hostHeaderMiddleware',
        'recursionDetectionMiddleware',
        'reuseUserAgent',
        'retryMiddleware',
        'httpSigningMiddleware',
        'deserializerMiddleware',
      ]),
    );
    db.destroy();
  });

  it('reuses one chain per command type, yet each call sends its own input and sees middleware added later', async () => {
    const db = createDocumentClient({ endpoint: config.dynamodbEndpoint });
    const pk = `sdk-client-chain-${Math.random()}`;
    const items = Array.from({ length: 6 }, (_, i) => ({ pk, sk: `ITEM#${i}`, n: i, tags: new Set([`t${i}`]) }));
    // Concurrent calls of one command type, each with its own item.
    await Promise.all(items.map((Item) => db.send(new PutCommand({ TableName: config.usersTableName, Item }))));
    const got = await Promise.all(
      items.map((item) => db.send(new GetCommand({ TableName: config.usersTableName, Key: { pk, sk: item.sk }, ConsistentRead: true }))),
    );
    expect(got.map((result) => result.Item)).toEqual(items);

    // A middleware added once chains exist runs on the next call of a type already used, and is gone once removed.
    const bodies: string[] = [];
    db.middlewareStack.add(
      (next) => async (args) => {
        bodies.push(String((args.request as { body?: unknown }).body));
        return next(args);
      },
      { step: 'build', name: 'bodyProbe' },
    );
    const { Count } = await db.send(
      new QueryCommand({ TableName: config.usersTableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }),
    );
    await db.send(new GetCommand({ TableName: config.usersTableName, Key: { pk, sk: 'ITEM#5' } }));
    expect(Count).toBe(6);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toContain('ITEM#5');
    db.middlewareStack.remove('bodyProbe');
    await db.send(new GetCommand({ TableName: config.usersTableName, Key: { pk, sk: 'ITEM#4' } }));
    expect(bodies).toHaveLength(2);
    db.destroy();
  });
});
