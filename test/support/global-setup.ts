/**
 * Once per `npm test`: DynamoDB Local in memory on a free port, with the tables.
 * Workers inherit the environment set here. Against a deployed stage
 * (TEST_TARGET=staging) nothing local is started.
 */

import { LOCAL_TABLES } from '#store/local-engine';
import { ensureTables, startDynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../../local/free-port';
import { STAGING_VARIABLES } from './target-env';

export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_TARGET === 'staging') {
    const missing = STAGING_VARIABLES.filter((name) => !process.env[name]);
    if (missing.length > 0) {
      // A set-up mistake, not a failure of the suite: one line, no stack trace (jest would print eight frames).
      console.error(`The staging suite needs ${missing.join(', ')} in the environment (see docs/deploy.md, "Run the staging suite").`);
      process.exit(1);
    }
    return;
  }
  const { endpoint, process: child } = await startDynamoDbLocal({ port: await freePort(), optimizing: true });
  (globalThis as { dynamodbLocal?: typeof child }).dynamodbLocal = child;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.USERS_TABLE_NAME = LOCAL_TABLES.usersTableName;
  process.env.OWNERS_TABLE_NAME = LOCAL_TABLES.ownersTableName;
  process.env.IDEMPOTENCY_TABLE_NAME = LOCAL_TABLES.idempotencyTableName;
  process.env.SIGN_IN_TABLE_NAME = LOCAL_TABLES.signInTableName;
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  // One metric line per request would flood the output; metrics.test.ts and secrets.test.ts turn them on.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.POWERTOOLS_SERVICE_NAME = 'user-management-test';
  await ensureTables(endpoint, LOCAL_TABLES);
}
