/**
 * `npm start`'s delivery resumes from its checkpoint: writes made while it was down are delivered
 * once it is back, and events an append wrote just before the process died (its checkpoint not yet
 * saved) are not written twice. Events that keep failing are kept in the undelivered-events table,
 * and the local `admin replay-events` writes them to the events file.
 */

import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, jest } from '@jest/globals';
import { createOwner } from '#domain/owners';
import { createUser, deleteUser } from '#domain/users';
import { LOCAL_TABLES } from '#store/local-engine';
import { processStores } from '#store/stores';
import { userPk } from '#store/table-layout';
import { readEvents, startTestDelivery } from '../support/lifecycle-events';
import { uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { runScript } from '../support/processes';

// Each test starts a delivery, waits up to 5 s for an event, then starts another: jest's 5 s default
// is below its own waits, and CI's two loaded workers reached it (a failure, not a target).
jest.setTimeout(30_000);

const { config, stores } = processStores();

async function newCaller(tag: string) {
  const issued = await createOwner(stores.owners, uniqueEmail(tag), config);
  const owner = (await stores.owners.findOwner(issued.owner_email))!;
  return { ownerId: owner.ownerId, ownerEmail: owner.ownerEmail, keyId: issued.key_id };
}
const create = (caller: Awaited<ReturnType<typeof newCaller>>, email: string) =>
  createUser(stores.users, caller, { user_email: email, user_password: 'a checkpoint password' }, config);

/** The checkpoint as saved beside the events file. */
interface SavedCheckpoint {
  stream: string;
  shards: Record<string, string | null>;
  finished: string[];
  eventsBytes: number;
}

describe('local event delivery: a checkpoint that does not fit stops the start, in one line', () => {
  /** A delivery that wrote this test's own user's event and saved its checkpoint: a shard names a record, the file has a length. */
  async function savedCheckpoint() {
    const first = await startTestDelivery({ intervalMs: 100 });
    const email = uniqueEmail('fit');
    await create(await newCaller('fit-owner'), email);
    await waitFor(() => first.events().find((event) => event.detail.user_email === email), 5_000, 'its event');
    await first.stop();
    const checkpoint = `${first.file}.checkpoint`;
    const saved = JSON.parse(readFileSync(checkpoint, 'utf8')) as SavedCheckpoint;
    const [shard, sequence] = Object.entries(saved.shards).find(([, seq]) => seq !== null)!;
    return { file: first.file, checkpoint, saved, shard, sequence: sequence! };
  }
  const rewrite = (checkpoint: string, saved: SavedCheckpoint) => writeFileSync(checkpoint, JSON.stringify(saved));

  it('as saved, it resumes (the control for the cases below)', async () => {
    const { file } = await savedCheckpoint();
    const again = await startTestDelivery({ intervalMs: 100, file });
    await again.stop();
  });

  it('a sequence number beyond the last record of its shard', async () => {
    const { file, checkpoint, saved, shard } = await savedCheckpoint();
    rewrite(checkpoint, { ...saved, shards: { ...saved.shards, [shard]: '000000000000099999999' } });
    await expect(startTestDelivery({ intervalMs: 100, file })).rejects.toThrow(
      `${checkpoint} says events were delivered up to record 000000000000099999999 of shard ${shard}, which the stream does not hold (its records end before it: DynamoDB Local's data is older than the checkpoint, or the checkpoint was edited): restore the two together, or move ${checkpoint} away to deliver only the writes made from now on (the events of writes since it was saved are then not written).`,
    );
  });

  it('a shard the stream no longer has', async () => {
    const { file, checkpoint, saved, sequence } = await savedCheckpoint();
    const gone = 'shardId-00000000000000000000-0badc0de';
    rewrite(checkpoint, { ...saved, shards: { ...saved.shards, [gone]: sequence } });
    await expect(startTestDelivery({ intervalMs: 100, file })).rejects.toThrow(
      `${checkpoint} names shard ${gone} of the users table's stream, which the stream no longer has`,
    );
  });

  it('an events file shorter than the checkpoint says', async () => {
    const { file, checkpoint, saved } = await savedCheckpoint();
    const size = readFileSync(file).length;
    rewrite(checkpoint, { ...saved, eventsBytes: size + 100 });
    await expect(startTestDelivery({ intervalMs: 100, file })).rejects.toThrow(
      `${file} is ${size} bytes long, but its checkpoint ${checkpoint} says ${size + 100} were written (the file was truncated, replaced or restored from an older copy): restore the events file that belongs to the checkpoint, or move both away to start a new events file.`,
    );
  });

  it('an events file longer than the checkpoint says, by something that is not events', async () => {
    const { file, checkpoint, saved } = await savedCheckpoint();
    appendFileSync(file, 'not an event\n');
    await expect(startTestDelivery({ intervalMs: 100, file })).rejects.toThrow(
      `${file} holds 13 bytes after the ${saved.eventsBytes} its checkpoint ${checkpoint} accounts for, and they are not lifecycle events`,
    );
  });
});

describe('local event delivery: checkpoint', () => {
  it('delivers what was written while it was down, and never writes an event twice after a lost checkpoint', async () => {
    const first = await startTestDelivery({ intervalMs: 100 });
    const { file } = first;
    await first.stop();
    const checkpoint = `${file}.checkpoint`;
    const beforeDowntime = `${file}.saved`;
    copyFileSync(checkpoint, beforeDowntime);

    // Down: three users are created.
    const caller = await newCaller('checkpoint-owner');
    const emails = [uniqueEmail('down-1'), uniqueEmail('down-2'), uniqueEmail('down-3')];
    for (const email of emails) await create(caller, email);
    const mine = () => readEvents(file).filter((event) => event.detail.owner_id === caller.ownerId);

    const second = await startTestDelivery({ intervalMs: 100, file });
    await waitFor(() => (mine().length === 4 ? true : undefined), 5_000, 'the events written while it was down');
    await second.stop();
    expect(mine().map((event) => event.detail.user_email)).toEqual([caller.ownerEmail, ...emails]);

    // As if it had died after appending them but before saving its checkpoint: the old checkpoint is back.
    copyFileSync(beforeDowntime, checkpoint);
    const third = await startTestDelivery({ intervalMs: 100, file });
    const last = uniqueEmail('after-restart');
    await create(caller, last);
    // A sentinel written after everything under test: records reach the file in stream order, so once
    // its event is there, a second copy of any earlier one would be there too.
    const sentinel = uniqueEmail('sentinel');
    await create(caller, sentinel);
    await waitFor(() => (mine().some((event) => event.detail.user_email === sentinel) ? true : undefined), 5_000, 'the sentinel event');
    await third.stop();
    expect(mine().map((event) => event.detail.user_email)).toEqual([caller.ownerEmail, ...emails, last, sentinel]);
    expect(JSON.parse(readFileSync(checkpoint, 'utf8'))).toMatchObject({ stream: expect.stringContaining('/stream/') });
  }, 60_000);

  it('keeps events whose file stays unwritable; replay-events writes them, and records the deletion', async () => {
    const errors: string[] = [];
    // A directory where the file should be, from the start: every append fails.
    const file = join(mkdtempSync(join(tmpdir(), 'kept-')), 'events.jsonl');
    mkdirSync(file);
    const delivery = await startTestDelivery({ intervalMs: 100, keepAfterMs: 500, file, onError: (message) => errors.push(message) });
    const caller = await newCaller('kept-owner');
    const email = uniqueEmail('kept');
    try {
      await create(caller, email);
      await deleteUser(stores.users, caller, { user_email: email });
      await waitFor(() => errors.find((message) => message.startsWith('Lifecycle events kept for replay (EISDIR)')), 10_000, 'kept events');
    } finally {
      await delivery.stop();
      // Appends to a directory wrote nothing: the checkpoint records no length (it once recorded the directory's size).
      expect((JSON.parse(readFileSync(`${file}.checkpoint`, 'utf8')) as SavedCheckpoint).eventsBytes).toBe(0);
      rmSync(file, { recursive: true, force: true });
    }
    expect(errors[0]).toBe('Lifecycle events not delivered (EISDIR); retrying');
    expect(errors.find((m) => m.includes('kept'))).toMatch(/; once the cause is fixed, run: npm run admin -- replay-events$/);

    const env = { ...process.env, EVENTS_FILE: file, POWERTOOLS_LOG_LEVEL: 'SILENT' };
    const replay = await runScript('admin/cli.ts', ['replay-events'], env);
    expect([replay.code, replay.stderr]).toEqual([0, '']);
    const outcome = JSON.parse(replay.stdout) as { undelivered: number; replayed: number; failed: number };
    // A bound: the file also keeps what other test files' writes to the shared engine emitted meanwhile.
    expect(outcome.undelivered).toBeGreaterThanOrEqual(3);
    expect(outcome).toEqual({ undelivered: outcome.undelivered, replayed: outcome.undelivered, failed: 0 });
    const mine = readEvents(file).filter((event) => event.detail.owner_id === caller.ownerId);
    expect(mine.map((event) => [event['detail-type'], event.detail.user_email])).toEqual([
      ['UserCreated', caller.ownerEmail],
      ['UserCreated', email],
      ['UserDeleted', email],
    ]);
    const { Items = [] } = await stores.client.send(
      new QueryCommand({
        TableName: LOCAL_TABLES.deletionsTableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': userPk(caller.ownerId, email) },
        ConsistentRead: true,
      }),
    );
    expect(Items).toHaveLength(1);
    // Nothing left to replay.
    const again = await runScript('admin/cli.ts', ['replay-events', '--dry-run'], env);
    expect(JSON.parse(again.stdout)).toEqual({ undelivered: 0, replayed: 0, failed: 0 });
  }, 60_000);
});
