import type { APIGatewayProxyResult } from 'aws-lambda';

/** Every response, success or error, is JSON. */
export const jsonResponse = (statusCode: number, body: object, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
