import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { OperationDefinition } from '#contract/define-operation';
import { MESSAGES } from '#contract/messages';
import { FAILED_OUTCOME, metrics, REQUESTS_METRIC } from '#platform/metrics';

/** What the metrics need of an operation: its name, its success word, its own messages. */
export type MeasuredOperation = Pick<OperationDefinition, 'name' | 'entry' | 'messages'>;

/** The contract's messages by text (the shared ones and the operation's own), so a refusal's reason is a fixed name (`refused:userExists`). */
const reasons = (operation: MeasuredOperation) =>
  new Map<string, string>(Object.entries({ ...MESSAGES, ...operation.messages }).map(([reason, message]) => [message, reason]));
const REASONS = new WeakMap<MeasuredOperation, Map<string, string>>();

/**
 * The outcome of a request: the operation's success word, `refused:<reason>` (the contract message's
 * name; `invalidRequest` for the messages that name a field or the password policy) or `failed`.
 */
export function outcomeOf(operation: MeasuredOperation, response: APIGatewayProxyResult | undefined | null): string {
  const status = response?.statusCode ?? 500;
  if (status < 400) return operation.entry.successOutcome;
  if (status >= 500) return FAILED_OUTCOME;
  let message: unknown;
  try {
    message = (JSON.parse(response!.body) as { message?: unknown }).message;
  } catch {
    // Not the contract's shape: the status alone names it.
  }
  if (!REASONS.has(operation)) REASONS.set(operation, reasons(operation));
  const reason = typeof message === 'string' ? REASONS.get(operation)!.get(message) : undefined;
  return `refused:${reason ?? (status === 400 ? 'invalidRequest' : `status${status}`)}`;
}

/**
 * Counts every request once, after the error shaping has answered it, with the dimensions
 * `operation` and `outcome` only. The Powertools middleware registered before it flushes the line.
 */
export function requestMetrics(operation: MeasuredOperation): MiddlewareObj<unknown, APIGatewayProxyResult> {
  const count = (request: { response: APIGatewayProxyResult | undefined | null }) => {
    metrics.addDimension('operation', operation.name);
    metrics.addDimension('outcome', outcomeOf(operation, request.response));
    metrics.addMetric(REQUESTS_METRIC, MetricUnit.Count, 1);
  };
  return { after: count, onError: count };
}
