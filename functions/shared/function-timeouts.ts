import type { OperationName } from './schemas';

/**
 * Each operation's function timeout, read by the CDK stack (the deployed limit) and by the local
 * server (the Lambda context's deadline), so a request that times out deployed times out locally.
 * Every value stays under API Gateway's 29 s integration timeout, so the caller gets the
 * function's own answer (middy answers 500 ms before the limit).
 */
export const FUNCTION_TIMEOUT_SECONDS = {
  createUser: 10,
  resetUserPassword: 10,
  // A large item collection takes several batch rounds.
  deleteUser: 25,
} as const satisfies Record<OperationName, number>;
