/**
 * Each function bundled as the CDK construct bundles it (bench/bundle.ts), imported cold in a fresh
 * Node process, against its floor: the bare SDK's DynamoDB document client bundled alike, which every
 * function must load. In each round one import of the floor and of every function.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS } from '#contract/operations';
import { bundleAsDeployed, coldImporter } from '../bundle';
import { atMost, inRounds, type Measurement, over } from '../kit';

/** A function's cold import, at most this many milliseconds above the bare client's. */
const LIMIT_MS = 60;

export const measurement: Measurement = {
  title: 'cold import of each bundled function, against the bare SDK client bundled alike',
  async run(env) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
    try {
      const floorEntry = join(dir, 'floor.ts');
      writeFileSync(
        floorEntry,
        "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nimport { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\nexport const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));\n",
      );
      const files: Record<string, string> = { floor: join(dir, 'floor', 'index.mjs') };
      await bundleAsDeployed(env.root, floorEntry, files.floor!);
      for (const op of OPERATIONS) {
        files[op] = join(dir, op, 'index.mjs');
        await bundleAsDeployed(env.root, join(env.root, 'functions', op, 'handler.ts'), files[op]);
      }
      const importMs = coldImporter(env.root, dir);
      const samples = await inRounds(
        env,
        'cold imports',
        async () => Object.fromEntries(Object.entries(files).map(([name, file]) => [name, importMs(file)])),
        { rounds: env.size.rounds, perRound: env.small ? 2 : 4 },
      );
      return OPERATIONS.map((op) => {
        const { difference, floorMs } = over(samples, op, 'floor');
        return atMost(`${op}'s bundle imported cold, above the bare client's`, 'ms', LIMIT_MS, difference, floorMs);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
