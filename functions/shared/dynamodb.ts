import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * One document client per process. Retries are explicit: the SDK's standard mode
 * (exponential backoff with full jitter) for throttling, 5xx and timeouts, three
 * attempts in all, each bounded so a request fails well inside API Gateway's 29 s
 * (the SDK only warns about an exceeded requestTimeout unless told to throw).
 */
export function createDocumentClient(options: { endpoint?: string | undefined; maxAttempts?: number } = {}) {
  const local = options.endpoint !== undefined;
  const client = new DynamoDBClient({
    maxAttempts: options.maxAttempts ?? 3,
    retryMode: 'standard',
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
    ...(local && {
      endpoint: options.endpoint,
      region: process.env.AWS_REGION ?? 'us-east-1',
      // DynamoDB Local accepts any credentials; fixed ones keep every local process on the same data.
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

export type DocumentClient = ReturnType<typeof createDocumentClient>;
