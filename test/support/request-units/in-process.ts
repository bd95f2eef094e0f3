/**
 * Every operation's Lambda handler, called in this process as Lambda calls it. Import only after the
 * environment is set (the handlers read their configuration when they load).
 */

import type { Context } from 'aws-lambda';
import { OPERATIONS, type OperationName } from '#contract/operations';
import type { ApiHandler } from '#http/pipeline';
import { lambdaContext as baseLambdaContext } from '../../../local/lambda-runtime';
import { handlerOf } from '../../../local/server';

/** Every operation's handler, from the registry. */
const HANDLERS = Object.fromEntries(await Promise.all(OPERATIONS.map(async (name) => [name, await handlerOf(name)]))) as Record<
  OperationName,
  ApiHandler
>;

/** The operation's Lambda handler. */
export const handlerFor = (operationName: OperationName): ApiHandler => HANDLERS[operationName];

export const lambdaContext = (): Context => baseLambdaContext('bench');
