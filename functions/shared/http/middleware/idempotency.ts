import { randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { MESSAGES } from '#contract/messages';
import {
  type IdempotencyClaim,
  type IdempotencyStore,
  isWellFormedIdempotencyKey,
  type KeySecrets,
  keySecrets,
  RECORD_LIFETIME_SECONDS,
} from '#domain/idempotency';
import { logger } from '#platform/logger';
import { ApiError, isApiError } from '../errors';
import { headerCount } from '../headers';
import { jsonResponse, REPLAYED_HEADER } from '../responses';
import type { AuthenticatedContext } from './api-key-auth';

/** Used only when the context cannot tell the function's remaining time (never on Lambda). */
const FALLBACK_IN_PROGRESS_MS = 30_000;
const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** What the idempotency steps keep on the request's context. */
export type IdempotentContext = AuthenticatedContext & {
  idempotency?: {
    readonly key: string;
    secrets?: KeySecrets;
    /** Set while this request holds the key's claim. */
    claim?: IdempotencyClaim;
    /** The recorded response, standing in for the operation (see pipeline.ts). */
    replay?: APIGatewayProxyResult;
  };
  /** How many Idempotency-Key values the request carried, counted before header normalisation. */
  idempotencyKeyCount?: number;
};

type Step = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, IdempotentContext>;

/**
 * The optional Idempotency-Key header, in two steps of the pipeline because the contract puts the
 * key's shape before the body and the look-up after validation:
 *
 * - `countKeys` (before header normalisation, which keeps only the last of a repeated header):
 *   counts the header's values, whatever the spelling of its name; it refuses nothing.
 * - `keyShape` (after authentication): a present header must be one value of 16 to 255 printable
 *   ASCII characters.
 * - `lookUp` (after validation, just before the operation): claims the key with one conditional
 *   write; a live record for it answers instead of the operation: the recorded response (same
 *   request), 422 (another request) or 409 (still running). Holding the claim, the request records
 *   its response when it ends, unless that is a 500: then the claim is dropped so a retry runs again.
 *
 * Without the header neither step does anything, and no DynamoDB call is added.
 */
export function idempotency(options: {
  store: IdempotencyStore;
  operation: string;
  /** The body as compared between requests (the password fields in NFC); default: as parsed and validated. */
  comparable?: (body: unknown) => unknown;
}): { countKeys: Step; keyShape: Step; lookUp: Step } {
  const { store, operation, comparable = (body: unknown) => body } = options;

  const record = async (context: IdempotentContext, response: APIGatewayProxyResult) => {
    const state = context.idempotency;
    const claim = state?.claim;
    if (!state?.secrets || !claim) return;
    state.claim = undefined;
    try {
      if (response.statusCode >= 500) {
        await store.releaseIdempotencyKey(claim);
        return;
      }
      const recorded = await store.completeIdempotencyKey(claim, {
        statusCode: response.statusCode,
        sealedBody: state.secrets.seal(response.body, claim.fingerprint),
        expiresAt: Math.floor(Date.now() / 1000) + RECORD_LIFETIME_SECONDS,
      });
      if (!recorded) logger.warn('Idempotency claim lost before the response was recorded', { operation });
    } catch (error) {
      // The operation's answer stands: a failed record leaves the claim to expire at the function's deadline.
      logger.warn('Idempotency record not written', { operation, error_name: (error as Error | undefined)?.name });
    }
  };

  return {
    countKeys: {
      before: ({ event, context }) => {
        context.idempotencyKeyCount = headerCount(event, IDEMPOTENCY_KEY_HEADER);
      },
    },

    keyShape: {
      before: ({ event, context }) => {
        const key = event.headers?.[IDEMPOTENCY_KEY_HEADER];
        const count = context.idempotencyKeyCount ?? 0;
        if (key === undefined && count === 0) return;
        // Two headers could be read two ways; refuse rather than pick one.
        if (key === undefined || count > 1 || !isWellFormedIdempotencyKey(key)) {
          throw new ApiError(400, MESSAGES.idempotencyKeyInvalid);
        }
        context.idempotency = { key };
      },
    },

    lookUp: {
      before: async ({ event, context }) => {
        const state = context.idempotency;
        if (!state) return;
        const secrets = keySecrets(context.owner.ownerId, state.key);
        const now = new Date();
        const claim: IdempotencyClaim = {
          ownerId: context.owner.ownerId,
          keyDigest: secrets.keyDigest,
          fingerprint: secrets.fingerprint(operation, comparable(event.body)),
          claimId: randomUUID(),
          inProgressUntil: now.getTime() + (context.getRemainingTimeInMillis?.() ?? FALLBACK_IN_PROGRESS_MS),
          expiresAt: Math.floor(now.getTime() / 1000) + RECORD_LIFETIME_SECONDS,
        };
        const result = await store.claimIdempotencyKey(claim, now);
        if (result.claimed) {
          Object.assign(state, { secrets, claim });
          return;
        }
        const found = result.record;
        if (found.fingerprint !== claim.fingerprint) throw new ApiError(422, MESSAGES.idempotencyKeyReused);
        if (found.state === 'in_progress') throw new ApiError(409, MESSAGES.idempotencyInProgress);
        state.replay = {
          statusCode: found.statusCode,
          headers: { 'content-type': 'application/json', [REPLAYED_HEADER]: 'true' },
          body: secrets.open(found.sealedBody, claim.fingerprint),
        };
      },
      after: async ({ context, response }) => {
        if (response) await record(context, response);
      },
      onError: async ({ context, error }) => {
        // A refusal the operation answered (404, 409, ...) is its response and is recorded as
        // error shaping will answer it; anything else becomes a 500, which is never recorded.
        const response = isApiError(error) ? jsonResponse(error.statusCode, { message: error.message }) : jsonResponse(500, {});
        await record(context, response);
      },
    },
  };
}
