import { readFileSync } from 'node:fs';

/** Each function's memory (MB), chosen by `npm run bench` from its measured CPU and wait (bench/lambda-memory.ts). */
export const LAMBDA_MEMORY_FILE = new URL('./lambda-memory.json', import.meta.url);

/**
 * The chosen sizes, checked: one per operation, each a size Lambda accepts (128 to 10,240 MB).
 * Read once at synth, so a bad file fails the synth, never a deploy.
 */
export function readLambdaMemory<Name extends string>(operations: readonly Name[]): Record<Name, number> {
  const chosen = JSON.parse(readFileSync(LAMBDA_MEMORY_FILE, 'utf8')) as Record<string, unknown>;
  const sizes = {} as Record<Name, number>;
  for (const operation of operations) {
    const size = chosen[operation];
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 128 || size > 10_240) {
      throw new Error(`lib/lambda-memory.json: ${operation} needs a memory size of 128 to 10240 MB, got ${JSON.stringify(size)}`);
    }
    sizes[operation] = size;
  }
  return sizes;
}
