/**
 * Each operation of the registry, over HTTP to the local server and as its Lambda handler in this
 * process, against its floor: the operation's own DynamoDB requests replayed with the bare SDK on a
 * twin user, after one hash at the service's setting when its body carries a password.
 */

import { hash } from '@node-rs/argon2';
import { actsOnExistingUser, OPERATIONS, operationPath, validBodyFor } from '#contract/operations';
import { localClient } from '../../local/dynamodb-local';
import { lambdaContext, proxyEvent } from '../../local/lambda-runtime';
import { handlerOf } from '../../local/server';
import { atMost, inRounds, type Measurement, over, recordRequests, replayer, type Target, timed, twinEmails } from '../kit';

/** The handler in process: at most this many milliseconds above its floor. */
const IN_PROCESS_MS = 1;
/** Over HTTP (the local server, a keep-alive connection): at most this many above the same floor. */
const HTTP_MS = 3;
const PASSWORD = 'correct horse battery staple';

export const measurement: Measurement = {
  title: 'each operation over HTTP and in process, against its DynamoDB requests replayed bare (plus its hash)',
  async run(env) {
    const { endpoint, stores, owner } = await env.dynamodb();
    const server = await env.server();
    const recorder = recordRequests(stores.client);
    const bare = localClient(endpoint);
    const replay = replayer(bare);
    // Users seeded alike for the module, its twin and the HTTP call: the same hash, so the same items.
    const storedHash = await hash(PASSWORD, { algorithm: 2, ...env.setting });
    const seed = (email: string) =>
      stores.users.createUser({ ownerId: owner.ownerId, email, passwordHash: storedHash, shouldResetPassword: false });
    const targets: Target[] = [];
    for (const op of OPERATIONS) {
      const handler = await handlerOf(op);
      const hashes = Object.keys(validBodyFor(op, 'x@example.com')).some((field) => field.includes('password'));
      const step = async () => {
        const { module, twin } = twinEmails(op);
        const overHttp = twinEmails(op).module;
        if (actsOnExistingUser(op)) for (const email of [module, twin, overHttp]) await seed(email);
        const http = await server.post(operationPath(op), validBodyFor(op, overHttp));
        const event = proxyEvent({
          path: operationPath(op),
          headers: { 'Content-Type': 'application/json', 'X-API-Key': owner.apiKey },
          body: JSON.stringify(validBodyFor(op, module)),
          stage: 'bench',
        });
        let requests: Awaited<ReturnType<typeof recorder.during>>['requests'] = [];
        const inProcess = await timed(async () => {
          const call = await recorder.during(() => handler(event, lambdaContext(op)));
          if (call.result.statusCode !== 200) throw new Error(`${op} answered ${call.result.statusCode} ${call.result.body}`);
          requests = call.requests;
        });
        const floor = await timed(async () => {
          if (hashes) await hash(PASSWORD, { algorithm: 2, ...env.setting });
          await replay(requests);
        });
        return { http, inProcess, floor };
      };
      // The key cache, the hour's key-use record and the JIT, before anything is timed.
      for (let i = 0; i < 5; i++) await step();
      const samples = await inRounds(env, op, step);
      const local = over(samples, 'inProcess', 'floor');
      const remote = over(samples, 'http', 'floor');
      targets.push(
        atMost(`${op} in process, above its floor`, 'ms', IN_PROCESS_MS, local.difference, local.floorMs),
        atMost(`${op} over HTTP, above its floor`, 'ms', HTTP_MS, remote.difference, remote.floorMs),
      );
    }
    bare.destroy();
    return targets;
  },
};
