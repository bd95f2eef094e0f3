/**
 * What the pre-traffic hook asks of a new version before CodeDeploy moves any traffic to it, and how
 * it judges the answer. Pure: the handler beside it invokes, this builds and judges.
 *
 * An API function gets a proxy event for its own operation carrying an API key shaped like an issued
 * one but issued to no one: it must answer the contract's 401. That answer needs the bundle to load,
 * its configuration to parse, the pipeline to run and the owners table to be read with the function's
 * role. What it cannot see: anything past authentication (validation, hashing, the users table, the
 * idempotency table, the 2xx paths) and anything of the API Gateway stage or the WAF.
 *
 * The stream consumer gets one stream record the event source mapping's filter drops (a sign-in
 * attempt item's write): it must succeed, report no failed item, and log that it delivered and kept
 * nothing, so the bus received nothing. That needs the bundle to load and its configuration to parse;
 * it cannot see EventBridge, the ledger or the undelivered-events table being written.
 */

import { randomBytes } from 'node:crypto';
import { MESSAGES } from '#contract/messages';
import { API_KEY_PREFIX } from '#domain/api-keys';

/** What the hook's function is told of its target (its environment, set by lib/constructs/release.ts). */
export type HookTarget = { readonly kind: 'api'; readonly path: string } | { readonly kind: 'consumer' };

/** Lambda's answer to a synchronous invocation, as the hook reads it. */
export interface InvocationAnswer {
  readonly functionError?: string | undefined;
  readonly payload: string;
  /** The invocation's log tail (LogType Tail), decoded. */
  readonly logTail: string;
}

/** An API key of the issued shape (prefix, 32 random bytes in base64url) that no owner holds. */
export const unknownApiKey = (): string => API_KEY_PREFIX + randomBytes(32).toString('base64url');

/** The request the new version is invoked with. */
export function hookEvent(target: HookTarget): unknown {
  if (target.kind === 'consumer') {
    return {
      Records: [
        {
          eventID: 'pre-traffic-hook',
          eventName: 'MODIFY',
          eventSource: 'aws:dynamodb',
          awsRegion: process.env.AWS_REGION ?? 'eu-west-1',
          dynamodb: {
            // Not a profile item: the mapping's filter drops it, and so must the consumer.
            Keys: { pk: { S: 'USER#pre-traffic-hook' }, sk: { S: 'SIGNIN#pre-traffic-hook' } },
            NewImage: { pk: { S: 'USER#pre-traffic-hook' }, sk: { S: 'SIGNIN#pre-traffic-hook' } },
            SequenceNumber: '0',
            SizeBytes: 1,
            StreamViewType: 'NEW_AND_OLD_IMAGES',
          },
        },
      ],
    };
  }
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': unknownApiKey() };
  return {
    resource: target.path,
    path: target.path,
    httpMethod: 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: '{}',
    isBase64Encoded: false,
    requestContext: {
      accountId: 'pre-traffic-hook',
      apiId: 'pre-traffic-hook',
      authorizer: null,
      httpMethod: 'POST',
      identity: { sourceIp: '127.0.0.1' },
      path: target.path,
      protocol: 'HTTP/1.1',
      requestId: `pre-traffic-hook-${randomBytes(8).toString('hex')}`,
      requestTimeEpoch: Date.now(),
      resourceId: 'pre-traffic-hook',
      resourcePath: target.path,
      stage: 'pre-traffic-hook',
    },
  };
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Why the answer is not the contract's, or undefined when it is. */
export function judge(target: HookTarget, answer: InvocationAnswer): string | undefined {
  if (answer.functionError) return `the new version failed the invocation (${answer.functionError})`;
  const payload = parse(answer.payload) as Record<string, unknown> | undefined;
  if (target.kind === 'api') {
    if (payload?.statusCode !== 401) return `expected status 401, got ${String(payload?.statusCode)}`;
    const body = parse(String(payload.body)) as Record<string, unknown> | undefined;
    if (JSON.stringify(body) !== JSON.stringify({ message: MESSAGES.unauthorized })) return 'the 401 body is not the contract message';
    return undefined;
  }
  const failures = payload?.batchItemFailures;
  if (!Array.isArray(failures) || failures.length !== 0) return 'the consumer did not report an empty batchItemFailures';
  // The consumer's own log line of the invocation: it published nothing and kept nothing.
  const delivered = answer.logTail
    .split('\n')
    .map((line) => parse(line.slice(line.indexOf('{'))) as Record<string, unknown> | undefined)
    .find((line) => line?.message === 'Lifecycle events delivered');
  if (!delivered) return "the consumer's 'Lifecycle events delivered' line is not in the invocation's log tail";
  if (delivered.records !== 1 || delivered.delivered !== 0 || delivered.kept !== 0)
    return `the consumer delivered or kept a filtered record (${JSON.stringify({ delivered: delivered.delivered, kept: delivered.kept })})`;
  return undefined;
}
