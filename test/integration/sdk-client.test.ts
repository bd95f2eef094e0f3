/**
 * The shared client with the SDK's per-call work trimmed (functions/shared/dynamodb.ts): every call
 * still carries the user agent the SDK builds, the first call's and every later one's the same,
 * and nothing else on the stack is gone. Retries and timeouts: test/hardening/sdk-retries.test.ts.
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
});
