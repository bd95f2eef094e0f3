import type { APIGatewayProxyResult } from 'aws-lambda';

/** Every response, success or error, is JSON. */
export const jsonResponse = (statusCode: number, body: object, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** The response header that marks the recorded response of an earlier request with the same Idempotency-Key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
