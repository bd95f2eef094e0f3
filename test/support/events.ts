/** API Gateway (REST, v1 proxy) events and Lambda contexts, for calling handlers in-process. */

import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { lambdaContext, proxyEvent } from '../../local/lambda-runtime';

/** A POST with a JSON body (a string is sent as is; bytes base64-encoded, as API Gateway delivers them) and these headers. */
export const apiEvent = (body: unknown, headers: Record<string, string> = {}): APIGatewayProxyEvent =>
  proxyEvent({
    path: '/v1/op',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    stage: 'test',
  });

/** Calls a handler as Lambda would; returns status and parsed body. */
export async function invoke(
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number; body: string; headers?: unknown }>,
  body: unknown,
  apiKey: string | undefined,
) {
  const result = await handler(apiEvent(body, apiKey === undefined ? {} : { 'X-API-Key': apiKey }), lambdaContext('test'));
  return { status: result.statusCode, body: JSON.parse(result.body) as Record<string, unknown> };
}
