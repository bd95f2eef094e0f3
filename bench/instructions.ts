/**
 * Instruction counts per request, which stay the same whatever else the machine does: run this
 * under `valgrind --tool=callgrind` twice with different counts and divide the difference by the
 * extra requests (start-up, imports and warm-up cancel out). Needs DynamoDB Local with the tables
 * (DYNAMODB_ENDPOINT, USERS_TABLE_NAME, OWNERS_TABLE_NAME, IDEMPOTENCY_TABLE_NAME set).
 *
 * Bundle it first, so that neither a TypeScript loader nor module resolution varies between runs:
 *
 *   npx esbuild bench/instructions.ts --bundle --platform=node --format=esm --external:@node-rs/argon2 \
 *     --outfile=node_modules/.cache/instr.mjs \
 *     --banner:js="import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"
 *   valgrind --tool=callgrind --callgrind-out-file=cg.put.220 node node_modules/.cache/instr.mjs put 220
 *
 * Modes: `put` (PutItem through the service's shared client), `delete` (the deleteUser handler in
 * process, whole pipeline, for a user that does not exist: API key from the warm cache, one Query,
 * the access log line at INFO).
 */

import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';

const [mode = 'put', countArg = '20'] = process.argv.slice(2);
const count = Number(countArg);
const WARM_UP = 20;

const { processStores } = await import('#store/stores');

const { config, stores } = processStores();
const { createOwner } = await import('#domain/owners');
const { apiEvent, handlerFor, lambdaContext } = await import('./in-process');

let once: () => Promise<boolean>;
if (mode === 'put') {
  const table = config.usersTableName;
  let i = 0;
  once = async () => {
    await stores.client.send(
      new PutCommand({ TableName: table, Item: { pk: `INSTR#${i++}`, sk: 'PROFILE', user_email: 'jane@example.com', flag: false } }),
    );
    return true;
  };
} else if (mode === 'delete') {
  const owner = await createOwner(stores.owners, `instr-${randomUUID().slice(0, 8)}@example.com`, config);
  const handler = handlerFor('deleteUser');
  once = async () => {
    const event = apiEvent('deleteUser', owner.api_key, { user_email: 'nobody@example.com' });
    return (await handler(event, lambdaContext())).statusCode === 404;
  };
} else throw new Error(`unknown mode ${mode}`);

let failed = 0;
for (let i = 0; i < WARM_UP + count; i++) if (!(await once())) failed++;
process.stderr.write(`${mode} ${count}: failed ${failed}\n`);
process.exit(failed === 0 ? 0 : 1);
