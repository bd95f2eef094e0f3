/**
 * `npm run admin -- reapply-deletions --users-table NAME --since ISO-TIME [--deletions-table NAME]`:
 * after a restore from backup, deletes again (with their item collections) the users that the
 * deletion ledger says were deleted at or after the restore point. Prints one line of JSON.
 *
 * `--users-table` is the restored table. The ledger is the live stage's (`DeletionsTableName`
 * output; `--deletions-table` or DELETIONS_TABLE_NAME). Locally (the engine `npm start` uses:
 * DYNAMODB_ENDPOINT, else DYNAMODB_PORT, else port 8000) the ledger defaults to `deletions`. Safe to run twice.
 */

import { parseArgs } from 'node:util';
import { reapplyDeletions } from '#domain/deletions';
import { readRecoveryPeriodDays } from '#platform/config';
import { createDocumentClient } from '#store/client';
import { createCollectionEraser, createDeletionLedger } from '#store/deletion-ledger';
import { adminEndpoint, LOCAL_TABLES } from '#store/local-engine';
import { UsageError } from './key-commands';

export const REAPPLY_USAGE =
  '  reapply-deletions --users-table NAME --since ISO-TIME [--deletions-table NAME]   after a restore: delete again the users deleted since';

const parse = (args: string[]) =>
  parseArgs({
    args,
    allowPositionals: true,
    options: { 'users-table': { type: 'string' }, since: { type: 'string' }, 'deletions-table': { type: 'string' } },
  });

/** Runs the command with the arguments after its name; resolves with the line it printed. */
export async function reapplyDeletionsCommand(args: string[]): Promise<string> {
  const usage = 'usage: npm run admin -- reapply-deletions --users-table NAME --since ISO-TIME [--deletions-table NAME]';
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch {
    throw new UsageError(usage);
  }
  const { values, positionals } = parsed;
  const usersTable = values['users-table'];
  const since = values.since;
  if (!usersTable || !since || positionals.length > 0) throw new UsageError(usage);
  const at = Date.parse(since);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(since) || Number.isNaN(at)) throw new UsageError(`--since must be an ISO 8601 time, got "${since}"`);

  const deletionsTable = values['deletions-table'] ?? process.env.DELETIONS_TABLE_NAME;
  const db = createDocumentClient({ endpoint: adminEndpoint(deletionsTable !== undefined) });
  try {
    const ledger = createDeletionLedger(db, deletionsTable ?? LOCAL_TABLES.deletionsTableName, { retentionDays: readRecoveryPeriodDays() });
    const outcome = await reapplyDeletions(ledger, createCollectionEraser(db, usersTable), new Date(at).toISOString());
    const line = JSON.stringify({
      users_table: usersTable,
      since: outcome.since,
      deletions: outcome.deletions,
      users_deleted: outcome.usersDeleted,
      items_deleted: outcome.itemsDeleted,
    });
    process.stdout.write(`${line}\n`);
    return line;
  } finally {
    db.destroy();
  }
}
