// From openapi.json by `npm run client:types`; test/unit/client-types.test.ts fails while it is stale.

/** The operations, in the document's order. */
export const OPERATION_NAMES = ['createUser', 'resetUserPassword', 'deleteUser'] as const;

/** The refusals each operation can answer (every documented status but 200, and 429 and 500, which are retried). */
export const REFUSALS = {
  createUser: [400, 401, 403, 409, 413, 415, 417, 422, 431],
  resetUserPassword: [400, 401, 403, 404, 409, 413, 415, 417, 422, 431],
  deleteUser: [400, 401, 403, 404, 409, 413, 415, 417, 422, 431],
} as const;
