/**
 * Import throughput (bench/import-throughput.ts): pre-hashed rows through importUsers, the function
 * `admin import-users` runs, against the fastest bare write of the same items in the same run.
 */

import type { ImportThroughput } from '../import-throughput';
import type { Measurement } from '../measurement';

export const importThroughput: Measurement<ImportThroughput> = {
  name: 'importThroughput',
  title: 'import: pre-hashed rows through importUsers, between bare BatchWriteItem runs of the same items',
  needs: ['dynamodb'],
  async run(context) {
    const { dynamodb } = context;
    // Loaded here: it brings the admin CLI's transfer code.
    const { importThroughput: measure } = await import('../import-throughput');
    const result = await measure({
      endpoint: dynamodb.endpoint,
      usersTableName: dynamodb.tables.usersTableName,
      ownerEmail: dynamodb.owner.email,
      ownerId: dynamodb.owner.ownerId,
      rows: context.scaled(6_000),
    });
    context.progress(
      `  import ${result.importUsersPerS} users/s, bare BatchWriteItem ${result.bareBatchWritePerS}/s (${result.importVsBare} ×), bare PutItem ${result.barePutPerS}/s`,
    );
    return result;
  },
  targets: () => ({}),
  render: (r) => `## Import throughput

${r.rows} pre-hashed rows through \`importUsers\` (what \`admin import-users\` runs: a conditional PutItem per user, ${r.concurrency} in flight) in ${r.importS} s: **${r.importUsersPerS} users/s**, ${r.importVsBare} × the fastest bare write of the same items in this run (BatchWriteItem of 25 with the SDK, ${r.concurrency} in flight, no service code: ${r.bareBatchWritePerS} items/s; runs before and after the import ${r.bareRunsPerS.join(' and ')}/s). The same items as bare conditional PutItems, one per item at the same concurrency: ${r.barePutPerS}/s (the import ${r.importVsBarePut} × that).`,
};
