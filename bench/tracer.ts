/**
 * `npm run -s bench:tracer`: what Powertools Tracer would cost a function's cold start, measured
 * before adopting it. Each function is bundled twice as the CDK construct bundles it (bench/bundle.ts):
 * as it ships, and with Powertools Tracer imported and the DynamoDB client wrapped by
 * `captureAWSv3Client` (what recording DynamoDB calls as subsegments takes). Both are imported cold
 * in fresh Node processes, alternately, and the report gives each p50 and the median of the paired
 * differences. The budget is 20 ms of cold import (and 0.1 ms of CPU per request); over it, traces
 * stay as they are (docs/deploy.md says what they show).
 */

import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleAsDeployed, coldImporter, FUNCTIONS } from './bundle';
import { median, round } from './stats';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMPORTS = Number(process.env.BENCH_TRACER_IMPORTS ?? 20);

const dir = mkdtempSync(join(tmpdir(), 'wlum-tracer-'));
try {
  const importMs = coldImporter(ROOT, dir, { POWERTOOLS_TRACE_ENABLED: 'true' });
  const rows = [];
  for (const name of FUNCTIONS) {
    const plain = join(dir, name, 'plain.mjs');
    const traced = join(dir, name, 'traced.mjs');
    const handler = join(ROOT, 'functions', name, 'handler.ts');
    const wrapper = join(dir, `${name}-traced.ts`);
    writeFileSync(
      wrapper,
      [
        "import { Tracer } from '@aws-lambda-powertools/tracer';",
        "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
        "const tracer = new Tracer({ serviceName: 'user-management' });",
        'tracer.captureAWSv3Client(new DynamoDBClient({}));',
        `export * from ${JSON.stringify(handler)};`,
      ].join('\n'),
    );
    await bundleAsDeployed(ROOT, handler, plain);
    await bundleAsDeployed(ROOT, wrapper, traced);
    const a: number[] = [];
    const b: number[] = [];
    const diff: number[] = [];
    for (let i = 0; i < IMPORTS; i++) {
      // Alternate the order so that neither bundle always meets a warmer page cache.
      const [first, second] = i % 2 === 0 ? [plain, traced] : [traced, plain];
      const x = importMs(first);
      const y = importMs(second);
      const [p, t] = first === plain ? [x, y] : [y, x];
      a.push(p);
      b.push(t);
      diff.push(t - p);
    }
    rows.push({
      function: name,
      bytes_plain: statSync(plain).size,
      bytes_traced: statSync(traced).size,
      import_ms_p50_plain: round(median(a), 1),
      import_ms_p50_traced: round(median(b), 1),
      added_import_ms_p50: round(median(diff), 1),
    });
  }
  process.stdout.write(`${JSON.stringify({ imports: IMPORTS, budget_ms: 20, rows }, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
