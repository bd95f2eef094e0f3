/**
 * Lambda memory, modelled (bench/lambda-memory.ts) from each operation's CPU and wait as the Lambda
 * stand-in measured them (bench/measurements/service-share.ts), beside the catalogue's `memoryMb`,
 * which the stack deploys.
 */

import { CATALOGUE } from '#contract/operations';
import { chooseMemory, memoryModel } from '../lambda-memory';
import { holds, type Measurement } from '../measurement';
import { table } from '../report';
import { OPERATIONS, type Operation, serviceShare } from './service-share';

export interface LambdaMemory {
  /** The catalogue's `memoryMb` per operation, and the model's choice. */
  readonly catalogue: Record<Operation, number>;
  readonly chosen: Record<Operation, number>;
  /** Per operation, per size in MB: the modelled p50 latency and the cost per million requests. */
  readonly model: Record<Operation, Record<string, { readonly p50Ms: number; readonly usdPerMillion: number }>>;
}

const byOperation = <T>(fn: (op: Operation) => T) => Object.fromEntries(OPERATIONS.map((op) => [op, fn(op)])) as Record<Operation, T>;

export const lambdaMemory: Measurement<LambdaMemory> = {
  name: 'lambdaMemory',
  title: "Lambda memory: the model from the stand-in's CPU and wait per operation",
  needs: [],
  async run(context) {
    const { phases } = context.resultOf(serviceShare);
    // Each operation's CPU on its critical path and its wait (wall clock less CPU).
    const rows = memoryModel(
      byOperation((op) => ({ cpu_ms: phases[op].cpuMs, wait_ms: Math.max(0, phases[op].wallMsP50 - phases[op].cpuMs) })),
    );
    const catalogue = byOperation((op) => CATALOGUE[op].memoryMb as number);
    return {
      catalogue,
      chosen: chooseMemory(rows, catalogue) as Record<Operation, number>,
      model: byOperation((op) =>
        Object.fromEntries(
          rows
            .filter((row) => row.operation === op)
            .map((row) => [String(row.memory_mb), { p50Ms: row.p50_ms, usdPerMillion: row.usd_per_million }]),
        ),
      ),
    };
  },
  targets: (r) => ({
    catalogueIsChoice: holds(
      "the catalogue's Lambda memory is the model's choice",
      "the catalogue's memoryMb",
      OPERATIONS.map((op) => `${op} ${r.chosen[op]}`).join(', '),
      OPERATIONS.every((op) => r.catalogue[op] === r.chosen[op]),
    ),
  }),
  render: (r) => `## Lambda memory (arm64, model)

From each operation's CPU in the Lambda stand-in (one full vCPU at 1,769 MB, a proportional share below, no gain above for one thread) and wait (wall clock minus CPU); list prices as of writing: $0.0000133334 per GB-second, $0.20 per million requests, duration billed per started millisecond. Chosen per function: the lowest latency among the sizes within 5 % of the cheapest, unless the catalogue's size costs at most 10 % above the cheapest and that choice is not more than 5 % faster (then it stands). The stack deploys the catalogue's \`memoryMb\` (${OPERATIONS.map((op) => `${op} ${r.catalogue[op]}`).join(', ')}).

${table(
  ['memory MB', ...OPERATIONS.map((op) => `${op} p50 ms`), ...OPERATIONS.map((op) => `${op} $/million`)],
  Object.keys(r.model.createUser).map((mb) => {
    const mark = (op: Operation) => (String(r.chosen[op]) === mb ? ' (chosen)' : '');
    return [
      mb,
      ...OPERATIONS.map((op) => `${r.model[op][mb]?.p50Ms}${mark(op)}`),
      ...OPERATIONS.map((op) => r.model[op][mb]?.usdPerMillion),
    ];
  }),
)}`,
};
