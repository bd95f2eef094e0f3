import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Where a client finds DynamoDB Local: any credentials work there, and fixed
 * ones keep every local process (server, admin CLI, tests) on the same data.
 */
export const localConnection = (endpoint: string) => ({
  endpoint,
  region: process.env.AWS_REGION ?? 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

/**
 * One document client per process, configured through the SDK's public options only. Retries are
 * explicit: the SDK's standard mode (exponential backoff with full jitter) for throttling, 5xx and
 * timeouts, three attempts in all, each bounded so a request fails well inside API Gateway's 29 s
 * (the SDK only warns about an exceeded requestTimeout unless told to throw).
 */
export function createDocumentClient(options: { endpoint?: string | undefined; maxAttempts?: number } = {}) {
  const client = new DynamoDBClient({
    maxAttempts: options.maxAttempts ?? 3,
    retryMode: 'standard',
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
    ...(options.endpoint !== undefined && localConnection(options.endpoint)),
  });
  // The logger middleware copies every input and output through the sensitive-data filter for a
  // logger this service never configures; removing a middleware by its name is the stack's public API.
  client.middlewareStack.remove('loggerMiddleware');
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

export type DocumentClient = ReturnType<typeof createDocumentClient>;
