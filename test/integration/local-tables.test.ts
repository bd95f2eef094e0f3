/**
 * The local tables: created with the users table's stream, a users table kept from before it gains one,
 * and a stage kept from before the sign-in table gets one, with its TTL, while its users table loses its own.
 */

import { randomBytes } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ensureTables, localClient } from '../../local/dynamodb-local';

const client = localClient(process.env.DYNAMODB_ENDPOINT!);
const suffix = randomBytes(4).toString('hex');
const names = {
  usersTableName: `users-${suffix}`,
  ownersTableName: `owners-${suffix}`,
  idempotencyTableName: `idempotency-${suffix}`,
  signInTableName: `sign-in-${suffix}`,
  deletionsTableName: `deletions-${suffix}`,
};
const before = Object.fromEntries(Object.entries(names).map(([key, name]) => [key, `${name}-before`])) as typeof names;
afterAll(async () => {
  for (const name of [...Object.values(names), ...Object.values(before)])
    await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
  client.destroy();
});

describe('ensureTables', () => {
  it('gives a users table created before the lifecycle events its stream, and the ledger its TTL', async () => {
    await client.send(
      new CreateTableCommand({
        TableName: names.usersTableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
    await ensureTables(process.env.DYNAMODB_ENDPOINT!, names);
    const users = await client.send(new DescribeTableCommand({ TableName: names.usersTableName }));
    expect(users.Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    const owners = await client.send(new DescribeTableCommand({ TableName: names.ownersTableName }));
    expect(owners.Table?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: names.deletionsTableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ AttributeName: 'expires_at', TimeToLiveStatus: 'ENABLED' });
    // Idempotent.
    await ensureTables(process.env.DYNAMODB_ENDPOINT!, names);
  });

  it('a stage kept from before the sign-in table: the table is created with its TTL and no stream; the users table loses its TTL', async () => {
    // The users table as the layout before made it: stream and TTL on expires_at (for the sign-in state).
    await client.send(
      new CreateTableCommand({
        TableName: before.usersTableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: before.usersTableName,
        TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
      }),
    );
    await ensureTables(process.env.DYNAMODB_ENDPOINT!, before);
    const ttlOf = async (table: string) => (await client.send(new DescribeTimeToLiveCommand({ TableName: table }))).TimeToLiveDescription;
    expect((await ttlOf(before.usersTableName))?.TimeToLiveStatus).not.toBe('ENABLED');
    expect(await ttlOf(before.signInTableName)).toMatchObject({ AttributeName: 'expires_at', TimeToLiveStatus: 'ENABLED' });
    const signIn = await client.send(new DescribeTableCommand({ TableName: before.signInTableName }));
    expect(signIn.Table?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
    expect(signIn.Table?.KeySchema?.map((key) => key.AttributeName)).toEqual(['pk', 'sk']);
  });
});
