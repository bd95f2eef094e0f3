/**
 * The one request pipeline every operation runs through, built once per cold start:
 * access log and metrics → error shaping → one X-API-Key only (and Idempotency-Key counted) → header
 * normalisation → API key → Idempotency-Key shape → body → schema → idempotency look-up → operation.
 */

import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { OperationDefinition } from '#contract/define-operation';
import type { OperationName } from '#contract/operations';
import { keyUseRecorder } from '#domain/key-use';
import { withNfcPasswords } from '#domain/password-policy';
import type { Owner } from '#domain/users';
import type { Config } from '#platform/config';
import { logger } from '#platform/logger';
import { metrics } from '#platform/metrics';
import { pwnedPasswordsCheck } from '#platform/pwned-passwords';
import { processStores, type Stores } from '#store/stores';
import { accessLog } from './middleware/access-log';
import { apiKeyAuth, refuseRepeatedApiKey } from './middleware/api-key-auth';
import { type IdempotentContext, idempotency } from './middleware/idempotency';
import { parseBody } from './middleware/parse-body';
import { requestMetrics } from './middleware/request-metrics';
import { shapeErrors } from './middleware/shape-errors';
import { type CompiledValidator, validateBody } from './middleware/validate-body';

// Configuration is read and checked, and the stores built, once: at cold start.
const { config, stores } = processStores();
// One per process, shared by the operations it serves: last_used_at is written once an hour per key.
const recordKeyUse = keyUseRecorder(stores.owners);
// The stage's online password check, when it has one (off by default).
const breachCheck = config.pwnedPasswordsUrl ? pwnedPasswordsCheck(config.pwnedPasswordsUrl) : undefined;

/** What an operation receives once the pipeline has authenticated and validated the request. */
export interface OperationInput<Body> {
  readonly body: Body;
  readonly owner: Owner;
  readonly stores: Stores;
  readonly config: Config;
}

export interface OperationSpec<Body> {
  /** The operation's module (functions/shared/contract/operations/<name>.ts): its failure message answers anything unexpected. */
  readonly contract: OperationDefinition<OperationName>;
  /** Its generated validator (functions/shared/contract/generated/validators/<name>.ts). */
  readonly compiled: CompiledValidator;
  readonly run: (input: OperationInput<Body>) => Promise<APIGatewayProxyResult>;
}

/** A Lambda handler for API Gateway REST (v1 proxy) events. */
export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Wraps an operation in the shared pipeline; the result is the Lambda handler. */
export function operation<Body>(spec: OperationSpec<Body>): ApiHandler {
  const { contract } = spec;
  const { name, policyFields } = contract;
  // Two bodies that set the same password in different Unicode normal forms are the same request.
  const idempotent = idempotency({
    store: stores.idempotency,
    operation: name,
    comparable: (body) => withNfcPasswords(body, policyFields),
  });
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, IdempotentContext>({ timeoutEarlyInMillis: 500 })
    // Never the event, whatever POWERTOOLS_LOGGER_LOG_EVENT says: it holds the API key and passwords.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    // Flushes the request's counter last, after the access log and the error shaping.
    .use(logMetrics(metrics))
    .use(accessLog(name))
    .use(requestMetrics(contract))
    .use(shapeErrors(contract.entry.failureMessage))
    .use(refuseRepeatedApiKey())
    .use(idempotent.countKeys)
    .use(httpHeaderNormalizer())
    // A key cache per operation, as each deployed function has its own; the key's operations are checked against its name.
    .use(apiKeyAuth({ owners: stores.owners, ttlMs: config.apiKeyCacheTtlMs, operation: name, onAccepted: recordKeyUse }))
    .use(idempotent.keyShape)
    .use(parseBody())
    .use(validateBody(contract, spec.compiled, config.passwordPolicy, { breachCheck }))
    .use(idempotent.lookUp)
    // A replayed response stands in for the operation, so the access log and error shaping still see it.
    .handler(
      async (event, context) => context.idempotency?.replay ?? spec.run({ body: event.body as Body, owner: context.owner, stores, config }),
    );
  // The pipeline adds `owner` to the context; callers pass Lambda's plain one.
  return handler as unknown as ApiHandler;
}
