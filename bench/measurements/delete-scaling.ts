/**
 * deleteUser of a user holding n associated items (about 120 bytes each), at growing n: the handler in
 * process against its own requests replayed bare on a twin holding the same items. The figure is the
 * time per associated item, above the floor's.
 */

import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { operationPath } from '#contract/operations';
import { userPk } from '#store/table-layout';
import { localClient } from '../../local/dynamodb-local';
import { lambdaContext, proxyEvent } from '../../local/lambda-runtime';
import { handlerOf } from '../../local/server';
import { atMost, type Measurement, median, recordRequests, replayer, shown, spread, type Target, timed, twinEmails } from '../kit';

/** Per associated item, above the floor's time per item, at every size. */
const LIMIT_MS_PER_ITEM = 0.05;

export const measurement: Measurement = {
  title: 'deleteUser at growing numbers of associated items, against its requests replayed bare',
  async run(env) {
    const { endpoint, stores, owner, config } = await env.dynamodb();
    const handler = await handlerOf('deleteUser');
    const recorder = recordRequests(stores.client);
    const bare = localClient(endpoint);
    const replay = replayer(bare);
    const sizes = env.small ? [0, 25, 100] : [0, 25, 250, 2_500];
    const seed = async (email: string, items: number) => {
      await stores.users.createUser({
        ownerId: owner.ownerId,
        email,
        passwordHash: '$argon2id$v=19$m=7168,t=5,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        shouldResetPassword: false,
      });
      const pk = userPk(owner.ownerId, email);
      const puts = Array.from({ length: items }, (_, i) => ({
        PutRequest: { Item: { pk, sk: `DATA#${String(i).padStart(6, '0')}`, kind: 'note', body: 'x'.repeat(96) } },
      }));
      const batches = Array.from({ length: Math.ceil(items / 25) }, (_, b) => puts.slice(b * 25, (b + 1) * 25));
      for (let b = 0; b < batches.length; b += 8)
        await Promise.all(
          batches
            .slice(b, b + 8)
            .map((batch) => stores.client.send(new BatchWriteCommand({ RequestItems: { [config.usersTableName]: batch } }))),
        );
    };
    const targets: Target[] = [];
    for (const items of sizes) {
      const differences: number[] = [];
      const floors: number[] = [];
      for (let rep = 0; rep < env.size.rounds; rep++) {
        const { module, twin } = twinEmails(`delete-${items}`);
        await seed(module, items);
        await seed(twin, items);
        const event = proxyEvent({
          path: operationPath('deleteUser'),
          headers: { 'Content-Type': 'application/json', 'X-API-Key': owner.apiKey },
          body: JSON.stringify({ user_email: module }),
          stage: 'bench',
        });
        let requests: Awaited<ReturnType<typeof recorder.during>>['requests'] = [];
        const ms = await timed(async () => {
          const call = await recorder.during(() => handler(event, lambdaContext('deleteUser')));
          if (call.result.statusCode !== 200) throw new Error(`deleteUser answered ${call.result.statusCode}`);
          requests = call.requests;
        });
        const floor = await timed(() => replay(requests));
        differences.push(ms - floor);
        floors.push(floor);
      }
      if (items === 0)
        targets.push(shown('deleteUser without associated items, above its floor', 'ms', spread(differences), median(floors)));
      else
        targets.push(
          atMost(
            `deleteUser of ${items} associated items, above its floor, per item`,
            'ms',
            LIMIT_MS_PER_ITEM,
            spread(differences.map((d) => d / items)),
            median(floors) / items,
          ),
        );
    }
    bare.destroy();
    return targets;
  },
};
