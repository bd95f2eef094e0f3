/** Each function bundled as the CDK construct bundles it (bench/bundle.ts), its package's size, and its cold import in fresh Node processes. */

import type { BundleResult, FUNCTIONS } from '../bundle';
import { atMost, type Measurement } from '../measurement';
import { table } from '../report';

const BYTES_LIMIT = 300_000;
const IMPORT_LIMIT_MS = 150;

export interface Bundles {
  /** Cold imports timed per function. */
  readonly imports: number;
  readonly functions: Record<(typeof FUNCTIONS)[number], BundleResult>;
}

export const bundles: Measurement<Bundles> = {
  name: 'bundles',
  title: 'bundles: esbuild as the CDK construct builds them, then cold imports each',
  needs: [],
  async run(context) {
    // Loaded here: it brings the CDK construct's settings (aws-cdk-lib).
    const { measureBundles } = await import('../bundle');
    const imports = context.scaled(10);
    return { imports, ...(await measureBundles(context.root, imports)) };
  },
  targets(r) {
    const all = Object.values(r.functions);
    const bytes = Math.max(...all.map((b) => b.bytes));
    const importMs = Math.max(...all.map((b) => b.importMsP50));
    return {
      bytes: atMost(`bundle <= ${BYTES_LIMIT.toLocaleString('en-US')} bytes each`, BYTES_LIMIT, bytes),
      importMs: atMost(`bundle import <= ${IMPORT_LIMIT_MS} ms p50 each`, IMPORT_LIMIT_MS, importMs),
    };
  },
  render: (r) => `## Bundles (esbuild as the CDK construct runs it; the native binding is installed beside, not counted)

The package is what the construct puts in the function's asset apart from the native argon2 binding: the bundle, its source map and the blocklist (\`generated/blocklist.bin\`); its zip size is each file deflated, with a zip's headers. The import is timed in a fresh Node process (${r.imports} each) and includes reading the blocklist.

${table(
  ['function', 'bytes', 'import ms p50 (fresh Node)', 'package bytes', 'package zipped bytes'],
  Object.entries(r.functions).map(([name, b]) => [
    name,
    `${b.bytes} (${(b.bytes / 1000).toFixed(1)} KB)`,
    b.importMsP50,
    b.packageBytes,
    b.packageZipBytes,
  ]),
)}`,
};
