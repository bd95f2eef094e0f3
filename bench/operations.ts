/**
 * The operations the bench measures: the registry's, each beside its SDK floor. An operation of the
 * registry without a floor here is not measured yet, and every report says so (UNMEASURED).
 */

import { type OperationName, OPERATIONS as REGISTRY } from '#contract/operations';

/**
 * Each operation's SDK floor, in the order their users need (deletes take the users put before them):
 * the bare work it is measured beside. The bench measures the registry's operations that have one.
 */
export const FLOOR_OF = {
  createUser: 'hashThenPut',
  resetUserPassword: 'hashThenUpdate',
  deleteUser: 'queryThenDelete',
} as const satisfies Partial<Record<OperationName, string>>;
/** An operation the bench measures. */
export type Operation = keyof typeof FLOOR_OF;
/** The operations the bench measures: the registry's, in route order, each that has a floor. */
export const OPERATIONS = REGISTRY.filter((op): op is Operation => Object.hasOwn(FLOOR_OF, op));
/** The registry's operations the bench does not measure yet (no floor above): every report names them. */
export const UNMEASURED: readonly OperationName[] = REGISTRY.filter((op) => !Object.hasOwn(FLOOR_OF, op));
