/**
 * Import throughput: pre-hashed rows through importUsers (what `admin import-users` runs, its
 * conditional PutItem per user, IN_FLIGHT at a time) against its floor: the import's own requests
 * replayed bare on twin users, as many in flight.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { readPasswordSettings } from '#platform/config';
import { createDocumentClient } from '#store/client';
import { createUserTransferStore } from '#store/user-transfer-store';
import { IN_FLIGHT, importUsers } from '../../admin/transfer-commands';
import { localClient } from '../../local/dynamodb-local';
import { atMost, type Measurement, median, recordRequests, replayer, spread, timed, twinEmails, type WireRequest } from '../kit';

/** Per user imported, above the floor's time per user. */
const LIMIT_MS_PER_USER = 0.2;
const HASH = '$argon2id$v=19$m=7168,t=5,p=1$QUFBQUFBQUFBQUFBQUFBQQ$QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE';
const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });

export const measurement: Measurement = {
  title: 'import: pre-hashed rows through importUsers, against its requests replayed bare at the same concurrency',
  async run(env) {
    const { endpoint, owner, config } = await env.dynamodb();
    const db = createDocumentClient({ endpoint });
    const recorder = recordRequests(db);
    const bare = localClient(endpoint);
    const replay = replayer(bare);
    const rows = env.small ? 300 : 3_000;
    const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
    const context = {
      store: createUserTransferStore(db, config.usersTableName),
      ownerIdOf: async () => owner.ownerId,
      ownerPolicyOf: async () => undefined,
      passwords: readPasswordSettings,
    };
    try {
      const differences: number[] = [];
      const floors: number[] = [];
      for (let r = 0; r < env.size.rounds; r++) {
        const file = join(dir, `users-${r}.jsonl`);
        const { module } = twinEmails('import');
        const lines = Array.from({ length: rows }, (_, i) => `${JSON.stringify({ user_email: `${i}-${module}`, password_hash: HASH })}\n`);
        writeFileSync(file, lines.join(''), { mode: 0o600 });
        let requests: WireRequest[] = [];
        const ms = await timed(async () => {
          const call = await recorder.during(() =>
            importUsers([owner.email, file], () => context, { stdout: discard(), stderr: discard() as never }),
          );
          if (call.result.counts.imported !== rows)
            throw new Error(`import: ${JSON.stringify(call.result.counts)}, expected ${rows} imported`);
          requests = call.requests;
        });
        // The same requests on the twins, as many in flight as the import keeps.
        let next = 0;
        const floor = await timed(() =>
          Promise.all(
            Array.from({ length: IN_FLIGHT }, async () => {
              while (next < requests.length) await replay([requests[next++]!]);
            }),
          ),
        );
        differences.push((ms - floor) / rows);
        floors.push(floor / rows);
      }
      return [atMost('importUsers, above its floor, per user', 'ms', LIMIT_MS_PER_USER, spread(differences), median(floors))];
    } finally {
      db.destroy();
      bare.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
