/** API Gateway (REST, v1 proxy) events and Lambda contexts, for calling handlers in-process. */

import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

export function apiEvent(body: unknown, headers: Record<string, string> = {}): APIGatewayProxyEvent {
  return {
    resource: '/v1/op',
    path: '/v1/op',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { requestId: randomUUID(), stage: 'test' } as APIGatewayProxyEvent['requestContext'],
  };
}

export function lambdaContext(timeoutMs = 10_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    awsRequestId: randomUUID(),
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:test',
    memoryLimitInMB: '1024',
    logGroupName: '/aws/lambda/test',
    logStreamName: 'test',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Calls a handler as Lambda would; returns status and parsed body. */
export async function invoke(
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number; body: string; headers?: unknown }>,
  body: unknown,
  apiKey: string | undefined,
) {
  const result = await handler(apiEvent(body, apiKey === undefined ? {} : { 'X-API-Key': apiKey }), lambdaContext());
  return { status: result.statusCode, body: JSON.parse(result.body) as Record<string, unknown> };
}
