/**
 * Restore safety on DynamoDB Local: copy the users table as a restore from backup would, delete users
 * on the live table (the stream records them in the deletion ledger), then run
 * `npm run admin -- reapply-deletions` against the copy: those users are gone again, with their item
 * collections; users deleted before the restore point, or back since, are left alone.
 */

import { randomBytes } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LOCAL_TABLES } from '#store/local-engine';
import { processStores } from '#store/stores';
import { userPk } from '#store/table-layout';
import { ensureTables, localClient } from '../../local/dynamodb-local';
import { ownerWithId, seedAssociatedData } from '../hardening/support/world';
import { apiClient } from '../support/http-client';
import { startTestDelivery } from '../support/lifecycle-events';
import { startLocalServer, uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { runScript } from '../support/processes';
import { scanAll } from '../support/scan';

const { stores } = processStores();
const { client } = stores;
const restored = `users-restored-${randomBytes(4).toString('hex')}`;
let server: Awaited<ReturnType<typeof startLocalServer>>;
let delivery: Awaited<ReturnType<typeof startTestDelivery>>;

// Starting the delivery skips the stream's history, which the whole suite's writes make long.
beforeAll(async () => {
  delivery = await startTestDelivery();
  server = await startLocalServer();
}, 60_000);
afterAll(async () => {
  await server.close();
  await delivery.stop();
  const raw = localClient(process.env.DYNAMODB_ENDPOINT!);
  await raw.send(new DeleteTableCommand({ TableName: restored })).catch(() => undefined);
  for (const suffix of ['owners', 'idempotency']) {
    await raw.send(new DeleteTableCommand({ TableName: `${restored}-${suffix}` })).catch(() => undefined);
  }
  raw.destroy();
});

/** Every item of one owner's users, from a users table. */
const itemsOf = (table: string, ownerId: string) =>
  scanAll(client, {
    TableName: table,
    FilterExpression: 'begins_with(pk, :owner)',
    ExpressionAttributeValues: { ':owner': `${ownerId}#` },
    ConsistentRead: true,
  });

const collectionIn = async (table: string, ownerId: string, email: string) =>
  (
    await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': userPk(ownerId, email) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

const reapply = (since: string) =>
  runScript('admin/cli.ts', ['reapply-deletions', '--users-table', restored, '--since', since], {
    ...process.env,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });

describe('admin reapply-deletions', () => {
  it('deletes again, from a restored copy, the users deleted after the restore point, with their item collections', async () => {
    const owner = await ownerWithId('restore');
    const api = apiClient(server.baseUrl, owner.apiKey);
    const [gone1, gone2, kept, earlier] = ['gone-1', 'gone-2', 'kept', 'earlier'].map((tag) => uniqueEmail(tag));
    for (const email of [gone1!, gone2!, kept!, earlier!]) {
      expect((await api('/v1/createUser', { user_email: email, user_password: 'restorable user' })).status).toBe(200);
      await seedAssociatedData(owner.ownerId, email, 30);
    }
    const ledgerHas = async (email: string) =>
      (
        await client.send(
          new QueryCommand({
            TableName: LOCAL_TABLES.deletionsTableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': userPk(owner.ownerId, email) },
            ConsistentRead: true,
          }),
        )
      ).Items?.length;

    // Deleted, then back, before the restore point: the copy holds the user that came back.
    expect((await api('/v1/deleteUser', { user_email: earlier })).status).toBe(200);
    await waitFor(
      () => delivery.events().find((e) => e.detail.user_email === earlier && e['detail-type'] === 'UserDeleted'),
      5_000,
      'UserDeleted',
    );
    expect((await api('/v1/createUser', { user_email: earlier, user_password: 'came back later' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));

    // The restore point, and the copy of the table as it was then (a restore makes a new table).
    const restorePoint = new Date().toISOString();
    await ensureTables(process.env.DYNAMODB_ENDPOINT!, {
      usersTableName: restored,
      ownersTableName: `${restored}-owners`,
      idempotencyTableName: `${restored}-idempotency`,
      signInTableName: `${restored}-sign-in`,
    });
    const snapshot = await itemsOf(LOCAL_TABLES.usersTableName, owner.ownerId);
    for (let i = 0; i < snapshot.length; i += 25) {
      await client.send(
        new BatchWriteCommand({ RequestItems: { [restored]: snapshot.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }),
      );
    }
    expect(await itemsOf(restored, owner.ownerId)).toHaveLength(snapshot.length);

    // After the restore point, on the live table: two users deleted.
    for (const email of [gone1!, gone2!]) expect((await api('/v1/deleteUser', { user_email: email })).status).toBe(200);
    for (const email of [gone1!, gone2!]) {
      await waitFor(
        () => delivery.events().find((e) => e.detail.user_email === email && e['detail-type'] === 'UserDeleted'),
        5_000,
        'UserDeleted',
      );
    }
    expect(await ledgerHas(gone1!)).toBe(1);
    expect(await ledgerHas(earlier!)).toBe(1);

    const result = await reapply(restorePoint);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const line = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(line).toMatchObject({ users_table: restored, since: restorePoint, users_deleted: 2, items_deleted: 62 });

    expect(await collectionIn(restored, owner.ownerId, gone1!)).toEqual([]);
    expect(await collectionIn(restored, owner.ownerId, gone2!)).toEqual([]);
    expect(await collectionIn(restored, owner.ownerId, kept!)).toHaveLength(31);
    expect(await collectionIn(restored, owner.ownerId, earlier!)).toHaveLength(1);

    // Safe to run again; and a restore point given too early never removes a user who came back.
    const again = await reapply(new Date(Date.parse(restorePoint) - 60 * 60_000).toISOString());
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ users_deleted: 0, items_deleted: 0 });
    expect(await collectionIn(restored, owner.ownerId, earlier!)).toHaveLength(1);
    expect(await collectionIn(restored, owner.ownerId, kept!)).toHaveLength(31);
  }, 120_000);

  it('refuses a missing table or a time that is not ISO 8601, in one line on stderr', async () => {
    const missing = await runScript('admin/cli.ts', ['reapply-deletions', '--since', '2026-01-01T00:00:00Z'], process.env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('usage: npm run admin -- reapply-deletions --users-table NAME --since ISO-TIME');
    const badTime = await reapply('yesterday');
    expect(badTime.code).not.toBe(0);
    expect(badTime.stderr.trim()).toBe('--since must be an ISO 8601 time, got "yesterday"');
  }, 60_000);
});
