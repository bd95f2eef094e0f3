/**
 * Each function as Lambda receives it: bundled with the esbuild settings of the CDK construct
 * (lib/constructs/handler-function.ts: ESM, minified, node24, source maps without sources, the
 * AWS SDK bundled with its credential chain aliased to the environment provider, only the native
 * argon2 binding external), then imported cold in fresh Node processes. Keep BUILD_OPTIONS in step
 * with the construct's `bundling` props; the aliases come from the construct itself.
 */

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BuildOptions, build } from 'esbuild';
import { BLOCKLIST_SOURCE, LAMBDA_ALIASES } from '../lib/constructs/handler-function';

/** What NodejsFunction passes to esbuild for the construct's props (arm64 changes nothing in the JavaScript). */
const BUILD_OPTIONS: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  // nodeModules: ['@node-rs/argon2'] becomes an external; externalModules: [] keeps the AWS SDK in.
  external: ['@node-rs/argon2'],
  alias: { ...LAMBDA_ALIASES },
  logLevel: 'error',
};

/** The environment a deployed function starts with (no endpoint: the real DynamoDB, never contacted on import). */
const LAMBDA_ENV = {
  USERS_TABLE_NAME: 'users',
  OWNERS_TABLE_NAME: 'owners',
  IDEMPOTENCY_TABLE_NAME: 'idempotency',
  SIGN_IN_TABLE_NAME: 'sign-in',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  POWERTOOLS_SERVICE_NAME: 'user-management',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  // The construct sets this on every function.
  NODE_OPTIONS: '--enable-source-maps',
};

/** Bundles `entry` as the construct does into `outfile`, with the password blocklist beside it (the construct's afterBundling). */
export async function bundleAsDeployed(root: string, entry: string, outfile: string): Promise<void> {
  // nodePaths: an entry outside the project (the bench's floor) resolves its packages from the project's.
  await build({ ...BUILD_OPTIONS, absWorkingDir: root, nodePaths: [join(root, 'node_modules')], entryPoints: [entry], outfile });
  mkdirSync(join(dirname(outfile), 'generated'), { recursive: true });
  copyFileSync(join(root, BLOCKLIST_SOURCE), join(dirname(outfile), 'generated', basename(BLOCKLIST_SOURCE)));
}

/**
 * A cold importer in `dir`: each call imports a bundle in a fresh Node process, in a deployed
 * function's environment (plus `env`), and returns the import's milliseconds. The asset installs
 * @node-rs/argon2 beside index.mjs; the project's node_modules, linked into `dir`, stands in for it.
 */
export function coldImporter(root: string, dir: string, env: NodeJS.ProcessEnv = {}): (file: string) => number {
  symlinkSync(resolve(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    'const t = performance.now(); await import(process.argv[2]); process.stdout.write(String(performance.now() - t));\n',
  );
  return (file) => {
    const child = spawnSync(process.execPath, [probe, pathToFileURL(file).href], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...LAMBDA_ENV, ...env },
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(`importing ${file} failed: ${child.stderr}`);
    return Number(child.stdout);
  };
}
