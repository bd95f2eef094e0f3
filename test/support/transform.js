/**
 * Jest's transform for the TypeScript files: esbuild strips the types, nothing more. Native ESM out
 * for the tests (jest runs with --experimental-vm-modules: middy 7 is ESM-only), CommonJS where jest
 * requires a file itself (the global setup), with an inline source map so a failing assertion's
 * stack names the .ts line.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { transformSync, version } from 'esbuild';

const self = readFileSync(new URL(import.meta.url), 'utf8');

/** CommonJS has no `import.meta`: its `url` becomes the module's file URL (the only field the code reads). */
const COMMONJS = {
  format: 'cjs',
  define: { 'import.meta.url': '__import_meta_url' },
  banner: "const __import_meta_url = require('node:url').pathToFileURL(__filename).href;",
};

export default {
  // Jest's own cache keys on the source and the config; this file and esbuild's version change the output too.
  getCacheKey: (source, path, { configString }) =>
    createHash('sha256').update(`${version}\0${self}\0${path}\0${configString}\0${source}`).digest('hex'),
  process: (source, path, { supportsStaticESM }) => ({
    code: transformSync(source, {
      loader: 'ts',
      target: 'es2023',
      sourcemap: 'inline',
      sourcefile: path,
      ...(supportsStaticESM ? { format: 'esm' } : COMMONJS),
    }).code,
  }),
};
