/**
 * `npm start`: DynamoDB Local (or DYNAMODB_ENDPOINT), the tables, a development
 * owner, and the handlers behind a local HTTP server.
 */

import type { ChildProcess } from 'node:child_process';
import { ensureTables, LOCAL_TABLES, startDynamoDbLocal } from './dynamodb-local';

const DEV_OWNER_EMAIL = 'dev-owner@example.com';

process.env.USERS_TABLE_NAME ??= LOCAL_TABLES.usersTableName;
process.env.OWNERS_TABLE_NAME ??= LOCAL_TABLES.ownersTableName;
process.env.IDEMPOTENCY_TABLE_NAME ??= LOCAL_TABLES.idempotencyTableName;
process.env.POWERTOOLS_SERVICE_NAME ??= 'user-management-local';

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  let dynamodb: ChildProcess | undefined;
  if (!process.env.DYNAMODB_ENDPOINT) {
    const started = await startDynamoDbLocal({ port: Number(process.env.DYNAMODB_PORT ?? 8000), dataDir: '.data/dynamodb' });
    dynamodb = started.process;
    process.env.DYNAMODB_ENDPOINT = started.endpoint;
    console.error(`DynamoDB Local on ${started.endpoint} (data in .data/dynamodb)`);
  }
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  await ensureTables(endpoint, {
    usersTableName: process.env.USERS_TABLE_NAME!,
    ownersTableName: process.env.OWNERS_TABLE_NAME!,
    idempotencyTableName: process.env.IDEMPOTENCY_TABLE_NAME!,
  });

  // Imported only now: the handlers read their configuration when they load.
  const { dependencies } = await import('../functions/shared/pipeline');
  const { createOwner } = await import('../functions/shared/owners');
  const { createLocalServer, API_PREFIX } = await import('./server');

  if (await dependencies.repository.findOwner(DEV_OWNER_EMAIL)) {
    console.error(`Development owner ${DEV_OWNER_EMAIL} exists; its key was printed when it was created.`);
    console.error(`Issue another with: npm run admin -- issue-key ${DEV_OWNER_EMAIL}`);
  } else {
    const issued = await createOwner(dependencies.repository, DEV_OWNER_EMAIL, dependencies.config.passwordPolicy);
    console.log(`Created development owner ${issued.owner_email}. Its API key, shown this once:`);
    console.log(`  export API_KEY=${issued.api_key}`);
  }

  const server = createLocalServer();
  server.listen(port, '127.0.0.1', () => console.log(`Listening on http://127.0.0.1:${port}${API_PREFIX}`));

  const stop = () => {
    server.close();
    server.closeAllConnections();
    dynamodb?.kill();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
