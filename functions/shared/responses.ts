import type { APIGatewayProxyResult } from 'aws-lambda';

/** Every response, success or error, is JSON. */
export const jsonResponse = (statusCode: number, body: object): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
