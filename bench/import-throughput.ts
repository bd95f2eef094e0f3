/**
 * Import throughput: pre-hashed rows through importUsers (the function `admin import-users` runs,
 * with its conditional put per user, IN_FLIGHT at a time), against the fastest bare write of the
 * same items in the same run: BatchWriteItem of 25 with the SDK, as many requests in flight as the
 * import keeps, no service code. Beside it, the bare conditional PutItem per item at the same
 * concurrency (the import's own request, without the import): what one request per user costs.
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { readPasswordSettings } from '#platform/config';
import { createDocumentClient } from '#store/client';
import { createUserTransferStore } from '#store/user-transfer-store';
import { IN_FLIGHT, importUsers } from '../admin/transfer-commands';
import { conditionalPut, FAKE_HASH, profileItem } from './floor';
import { round } from './stats';

export interface ImportThroughput {
  /** Rows in the import file, and items in each bare run. */
  readonly rows: number;
  /** Requests in flight: the import's conditional puts, the bare run's batches. */
  readonly concurrency: number;
  readonly importS: number;
  readonly importUsersPerS: number;
  /** Each bare run, before and after the import; the fastest is the yardstick. */
  readonly bareRunsPerS: number[];
  readonly bareBatchWritePerS: number;
  /** The import's users per second over the fastest bare run's items per second. */
  readonly importVsBare: number;
  /** The same items, one conditional PutItem each (the store's request), as many in flight. */
  readonly barePutPerS: number;
  readonly importVsBarePut: number;
}

const BATCH = 25;
const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });

export async function importThroughput(options: {
  endpoint: string;
  usersTableName: string;
  ownerEmail: string;
  ownerId: string;
  rows: number;
}): Promise<ImportThroughput> {
  const { endpoint, usersTableName, ownerEmail, ownerId, rows } = options;
  const db = createDocumentClient({ endpoint });
  const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
  try {
    /** `rows` items as the users store writes a profile (users-store.ts), for users no one else has; items per second. */
    const bareRun = async (write: (items: Record<string, unknown>[]) => Promise<unknown>, perRequest: number) => {
      const owner = `bare-${randomUUID()}`;
      const at = new Date().toISOString();
      const item = (i: number) => profileItem(owner, `bare-${i}@example.com`, at);
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < rows) {
            const first = next;
            next = Math.min(rows, next + perRequest);
            await write(Array.from({ length: next - first }, (_, i) => item(first + i)));
          }
        }),
      );
      return rows / ((performance.now() - started) / 1000);
    };
    const batchWrite = async (items: Record<string, unknown>[]) => {
      let requests = items.map((Item) => ({ PutRequest: { Item } }));
      while (requests.length > 0) {
        const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [usersTableName]: requests } }));
        requests = (UnprocessedItems?.[usersTableName] ?? []) as typeof requests;
      }
    };
    const putOne = ([item]: Record<string, unknown>[]) => conditionalPut(db, usersTableName, item!);

    const file = join(dir, 'users.jsonl');
    const tag = randomUUID().slice(0, 8);
    writeFileSync(
      file,
      Array.from(
        { length: rows },
        (_, i) => `${JSON.stringify({ user_email: `import-${tag}-${i}@example.com`, password_hash: FAKE_HASH })}\n`,
      ).join(''),
    );
    const context = {
      store: createUserTransferStore(db, usersTableName),
      ownerIdOf: async () => ownerId,
      ownerPolicyOf: async () => undefined,
      passwords: readPasswordSettings,
    };

    const before = await bareRun(batchWrite, BATCH);
    const started = performance.now();
    const { counts } = await importUsers([ownerEmail, file], () => context, { stdout: discard(), stderr: discard() });
    const importS = (performance.now() - started) / 1000;
    if (counts.imported !== rows) throw new Error(`import: ${JSON.stringify(counts)}, expected ${rows} imported`);
    const put = await bareRun(putOne, 1);
    const after = await bareRun(batchWrite, BATCH);
    const bare = Math.max(before, after);
    return {
      rows,
      concurrency: IN_FLIGHT,
      importS: round(importS, 2),
      importUsersPerS: round(rows / importS, 1),
      bareRunsPerS: [round(before, 1), round(after, 1)],
      bareBatchWritePerS: round(bare, 1),
      importVsBare: round(rows / importS / bare, 3),
      barePutPerS: round(put, 1),
      importVsBarePut: round(rows / importS / put, 3),
    };
  } finally {
    db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
