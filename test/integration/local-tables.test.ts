/** The local tables: created with the users table's stream, and a users table kept from before it gains one. */

import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
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
afterAll(async () => {
  for (const name of Object.values(names)) await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
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
});
