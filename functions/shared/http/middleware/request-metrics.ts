import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { MESSAGES } from '#contract/messages';
import { CATALOGUE, type OperationName } from '#contract/operations';
import { FAILED_OUTCOME, metrics, REQUESTS_METRIC } from '#platform/metrics';

/** The contract's messages by text, so a refusal's reason is a fixed name (`refused:userExists`). */
const REASONS = new Map<string, string>(Object.entries(MESSAGES).map(([reason, message]) => [message, reason]));

/**
 * The outcome of a request: the operation's success word, `refused:<reason>` (the contract message's
 * name; `invalidRequest` for the messages that name a field or the password policy) or `failed`.
 */
export function outcomeOf(operation: OperationName, response: APIGatewayProxyResult | undefined | null): string {
  const status = response?.statusCode ?? 500;
  if (status < 400) return CATALOGUE[operation].successOutcome;
  if (status >= 500) return FAILED_OUTCOME;
  let message: unknown;
  try {
    message = (JSON.parse(response!.body) as { message?: unknown }).message;
  } catch {
    // Not the contract's shape: the status alone names it.
  }
  const reason = typeof message === 'string' ? REASONS.get(message) : undefined;
  return `refused:${reason ?? (status === 400 ? 'invalidRequest' : `status${status}`)}`;
}

/**
 * Counts every request once, after the error shaping has answered it, with the dimensions
 * `operation` and `outcome` only. The Powertools middleware registered before it flushes the line.
 */
export function requestMetrics(operation: OperationName): MiddlewareObj<unknown, APIGatewayProxyResult> {
  const count = (request: { response: APIGatewayProxyResult | undefined | null }) => {
    metrics.addDimension('operation', operation);
    metrics.addDimension('outcome', outcomeOf(operation, request.response));
    metrics.addMetric(REQUESTS_METRIC, MetricUnit.Count, 1);
  };
  return { after: count, onError: count };
}
