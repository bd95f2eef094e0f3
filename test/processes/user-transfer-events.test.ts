/**
 * docs/migration.md's outcomes, as lifecycle events: with the local delivery that `npm start` runs
 * writing to a file of its own, an import by the real admin CLI yields exactly one UserCreated per
 * imported user, shaped as an API create's, and none for `exists` lines, `failed` lines or a dry
 * run; no password, hash or line of the file reaches the events file.
 */

import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { processStores } from '#store/stores';
import { handler as createUser } from '../../functions/createUser/handler';
import { invoke } from '../support/events';
import { startTestDelivery } from '../support/lifecycle-events';
import { newOwner, uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { runScript } from '../support/processes';

const { stores } = processStores();
const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
const admin = (...args: string[]) => runScript('admin/cli.ts', args, env);
const dir = mkdtempSync(join(tmpdir(), 'transfer-events-'));
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let delivery: Awaited<ReturnType<typeof startTestDelivery>>;
beforeAll(async () => {
  delivery = await startTestDelivery();
}, 30_000);
afterAll(async () => {
  await delivery.stop();
  rmSync(dir, { recursive: true, force: true });
});

const django = (password: string) => {
  const salt = randomBytes(9).toString('hex');
  return `pbkdf2_sha256$1000$${salt}$${pbkdf2Sync(password, salt, 1000, 32, 'sha256').toString('base64')}`;
};
const fileOf = (name: string, lines: readonly (object | string)[]) => {
  const texts = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line)));
  const path = join(dir, name);
  writeFileSync(path, `${texts.join('\n')}\n`);
  return { path, texts };
};

it('one UserCreated per imported user, as an API create has; none for exists, failed or dry-run lines; no secret in the events', async () => {
  const owner = await newOwner('import-events');
  const ownerId = (await stores.owners.findOwner(owner.ownerEmail))!.ownerId;
  const ofOwner = () => delivery.events().filter((event) => event.detail.owner_id === ownerId);
  const about = (email: string) => ofOwner().filter((event) => event.detail.user_email === email);
  /** An API create after everything before it; its event shows the delivery has read that far, and the shape of an API create's. */
  const drain = async () => {
    const marker = uniqueEmail('marker');
    expect((await invoke(createUser, { user_email: marker, user_password: 'marker password' }, owner.apiKey)).status).toBe(200);
    return (await waitFor(() => about(marker)[0], 10_000, 'the marker’s UserCreated')).value;
  };

  // Already users of this owner: created through the API, one UserCreated each, before the import.
  const existing = [uniqueEmail('exists'), uniqueEmail('exists')];
  for (const user_email of existing) {
    expect((await invoke(createUser, { user_email, user_password: 'created through the API' }, owner.apiKey)).status).toBe(200);
  }

  // A dry run of users that are never imported.
  const dryEmails = [uniqueEmail('dry'), uniqueEmail('dry'), uniqueEmail('dry')];
  const secrets = ['dry run password one', 'imported password in clear', 'bcrypt password', 'django password', 'tiny pw'];
  const dryFile = fileOf('dry.jsonl', [
    { user_email: dryEmails[0], password_hash: bcrypt.hashSync(secrets[2]!, 4) },
    { user_email: dryEmails[1], user_password: secrets[0] },
    { user_email: dryEmails[2], password_hash: django(secrets[3]!) },
  ]);
  const dry = await admin('import-users', owner.ownerEmail, dryFile.path, '--dry-run');
  expect([dry.code, JSON.parse(dry.stdout)]).toEqual([0, { imported: 3, exists: 0, failed: 0 }]);

  // N new users (hashes of each kind, and passwords hashed at import), the existing ones, and failures.
  const imported = Array.from({ length: 8 }, (_, i) => ({ email: uniqueEmail('imported'), reset: i % 3 === 0 }));
  const failedEmails = [uniqueEmail('failed'), uniqueEmail('failed'), uniqueEmail('failed')];
  const hashes = imported.map((_, i) => (i % 2 === 0 ? bcrypt.hashSync(secrets[2]!, 4) : django(secrets[3]!)));
  const file = fileOf('mixed.jsonl', [
    ...imported.map((u, i) =>
      i === 7
        ? { user_email: u.email, user_password: secrets[1], should_reset_password: u.reset }
        : { user_email: u.email.toUpperCase(), password_hash: hashes[i], should_reset_password: u.reset },
    ),
    ...existing.map((user_email) => ({ user_email, password_hash: hashes[0] })),
    `{"user_email": "${failedEmails[0]}", "password_hash": "${hashes[1]}"`,
    { user_email: failedEmails[1], user_password: secrets[4] },
    { user_email: failedEmails[2], password_hash: hashes[0], should_reset_password: 'yes' },
    { user_email: imported[0]!.email, password_hash: hashes[1] },
    { user_email: owner.ownerEmail, password_hash: hashes[0] },
  ]);
  const startedAt = Date.now();
  const run = await admin('import-users', owner.ownerEmail, file.path, '--report', join(dir, 'mixed-report.jsonl'));
  const endedAt = Date.now();
  expect([run.code, JSON.parse(run.stdout)]).toEqual([1, { imported: 8, exists: 2, failed: 5 }]);

  const marker = await drain();
  for (const user of imported) {
    const events = about(user.email);
    expect(events).toEqual([
      {
        'detail-type': 'UserCreated',
        source: 'user-management',
        detail: {
          owner_id: ownerId,
          user_email: user.email,
          white_label: false,
          should_reset_password: user.reset,
          occurred_at: expect.stringMatching(ISO_MS),
        },
      },
    ]);
    expect(Object.keys(events[0]!).sort()).toEqual(Object.keys(marker).sort());
    expect(Object.keys(events[0]!.detail).sort()).toEqual(Object.keys(marker.detail).sort());
    const at = Date.parse(events[0]!.detail.occurred_at);
    expect(at >= startedAt && at <= endedAt).toBe(true);
  }
  // The existing users keep the one event of their API create; failed and dry-run e-mails have none.
  for (const email of existing) expect(about(email).map((event) => Date.parse(event.detail.occurred_at) < startedAt)).toEqual([true]);
  for (const email of [...failedEmails, ...dryEmails]) expect(about(email)).toEqual([]);
  // Everything this owner's events hold: its own account, the two API creates, the imports, the marker.
  expect(ofOwner().map((event) => event['detail-type'])).toEqual(Array(1 + existing.length + imported.length + 1).fill('UserCreated'));

  const written = readFileSync(delivery.file, 'utf8');
  for (const secret of [...secrets, ...hashes, ...file.texts, ...dryFile.texts]) expect(written).not.toContain(secret);
  expect(written).not.toMatch(/password_hash|user_password|\$2[aby]\$|pbkdf2_sha256|\$argon2/);
}, 60_000);
