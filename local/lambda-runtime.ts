/**
 * How the local side stands in for API Gateway and Lambda: the REST (v1 proxy)
 * event a function receives and the context it runs with. The local server, the
 * tests that call handlers in process and the benchmark all build them here.
 */

import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { CATALOGUE, isOperationName } from '#contract/operations';

/** The deployed timeout of the operation `functionName` names; the shortest one for any other name (tests, bench). */
export const functionTimeoutMs = (functionName: string): number =>
  1000 *
  (isOperationName(functionName)
    ? CATALOGUE[functionName].timeoutSeconds
    : Math.min(...Object.values(CATALOGUE).map((entry) => entry.timeoutSeconds)));

export interface ProxyRequest {
  readonly path: string;
  /** Header pairs in the caller's spelling and order (as in IncomingMessage.rawHeaders), or a plain record. */
  readonly headers?: readonly (readonly [string, string])[] | Readonly<Record<string, string>>;
  /**
   * The body: text, or raw bytes, which the event carries base64-encoded as API Gateway does for
   * the stage's binary media types (every request). Empty is `null`, as API Gateway passes it.
   */
  readonly body: string | Buffer | null;
  readonly sourceIp?: string;
  readonly protocol?: string;
  readonly stage?: string;
}

/** An API Gateway REST (v1 proxy) event for a POST to `path`. */
export function proxyEvent({
  path,
  headers = [],
  body,
  sourceIp = '127.0.0.1',
  protocol = 'HTTP/1.1',
  stage = 'local',
}: ProxyRequest): APIGatewayProxyEvent {
  const pairs: readonly (readonly [string, string])[] = Array.isArray(headers) ? headers : Object.entries(headers);
  // Maps, then own properties: a header named `toString` or `__proto__` must not meet Object.prototype.
  const single = new Map<string, string>();
  const multi = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    single.set(name, value);
    multi.set(name, [...(multi.get(name) ?? []), value]);
  }
  return {
    resource: path,
    path,
    httpMethod: 'POST',
    headers: Object.fromEntries(single),
    multiValueHeaders: Object.fromEntries(multi),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: body === null || body.length === 0 ? null : typeof body === 'string' ? body : body.toString('base64'),
    isBase64Encoded: Buffer.isBuffer(body) && body.length > 0,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: null,
      httpMethod: 'POST',
      identity: { sourceIp } as APIGatewayProxyEvent['requestContext']['identity'],
      path,
      protocol,
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: path,
      stage,
    },
  };
}

/** A Lambda context whose deadline is `timeoutMs` from now (by default the deployed function's timeout). */
export function lambdaContext(functionName: string, timeoutMs = functionTimeoutMs(functionName)): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    awsRequestId: randomUUID(),
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
