/**
 * DynamoDB calls per request, counted by an SDK middleware on the service's shared client while
 * the handlers are called in this process: with the key cache warm, and for a key's first call;
 * and the read and write capacity units they consumed, as DynamoDB Local reports them.
 */

import type { CallCount } from '../in-process';
import { holds, type Measurement } from '../measurement';
import { table } from '../report';
import { OPERATIONS, type Operation } from './service-share';

/**
 * The calls a warm request makes (CONTRIBUTING, "How a request flows"): the target. Every operation
 * of the registry is measured; one without an entry here is reported as having no target.
 */
const EXPECTED: Partial<Record<Operation, number>> = { createUser: 1, resetUserPassword: 1, deleteUser: 3 };
const TARGETED = OPERATIONS.filter((op) => EXPECTED[op] !== undefined);
const UNTARGETED = OPERATIONS.filter((op) => EXPECTED[op] === undefined);

export interface DdbCalls {
  readonly warm: Record<Operation, CallCount>;
  readonly firstCallWithKey: Record<Operation, CallCount>;
}

const calls = (count: CallCount) =>
  `${count.total} (${Object.entries(count.byCommand)
    .map(([name, n]) => `${n} ${name}`)
    .join(' + ')})`;

const units = (count: CallCount) => `${count.capacityUnits.read}, ${count.capacityUnits.write}`;

export const ddbCalls: Measurement<DdbCalls> = {
  name: 'ddbCalls',
  title: 'in process: DynamoDB calls per operation',
  needs: ['dynamodb'],
  async run(context) {
    const inProcess = await import('../in-process');
    return inProcess.ddbCalls(inProcess.callCounter(), context.dynamodb.owner.email, context.dynamodb.owner.apiKey);
  },
  targets: (r) => ({
    warm: holds(
      `DynamoDB calls: ${TARGETED.map((op) => `${op} ${EXPECTED[op]}`).join(', ')}`,
      TARGETED.map((op) => EXPECTED[op]).join(', '),
      TARGETED.map((op) => r.warm[op].total).join(', '),
      TARGETED.every((op) => r.warm[op].total === EXPECTED[op]),
      `a key's first call adds ${OPERATIONS.map((op) => r.firstCallWithKey[op].total - r.warm[op].total).join('/')}` +
        (UNTARGETED.length > 0
          ? `; no target for ${UNTARGETED.join(', ')} (measured: ${UNTARGETED.map((op) => r.warm[op].total).join(', ')})`
          : ''),
    ),
  }),
  render: (r) => `## DynamoDB calls per request

Capacity units as DynamoDB Local reports them (ReturnConsumedCapacity, every table the request touched): a read is 1 per 4 KB of item for a consistent read, half that for an eventually consistent one; a write is 1 per 1 KB.

${table(
  ['operation', 'warm key cache', 'capacity units (read, write)', 'first call with a key', 'capacity units (read, write)'],
  OPERATIONS.map((op) => [op, calls(r.warm[op]), units(r.warm[op]), calls(r.firstCallWithKey[op]), units(r.firstCallWithKey[op])]),
)}`,
};
