/**
 * `npm run build:packages` (also run by `prepare`, so `npm install` of the repository builds it): each
 * entry of PACKAGES, the code the package.json `exports` hand to other projects, bundled by esbuild into
 * `dist/<name>/index.js` with its npm dependencies left as imports, and its type declarations written by
 * tsc beside it. `dist/` is not committed.
 */

import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = `${ROOT}dist`;

/** What is exported: `./<name>` in package.json `exports`, built from `<name>/index.ts`. */
export const PACKAGES = [{ name: 'client', source: 'client/index.ts', node: 'node20' }] as const;

export async function buildPackages(outdir = DIST): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  for (const entry of PACKAGES) {
    await build({
      entryPoints: { [`${entry.name}/index`]: `${ROOT}${entry.source}` },
      outdir,
      bundle: true,
      // npm dependencies stay imports, installed beside the package; only the entry's own code is bundled.
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: entry.node,
      legalComments: 'inline',
      logLevel: 'warning',
    });
  }
  const program = ts.createProgram(
    PACKAGES.map((entry) => `${ROOT}${entry.source}`),
    {
      declaration: true,
      emitDeclarationOnly: true,
      outDir: outdir,
      rootDir: ROOT,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      skipLibCheck: true,
    },
  );
  const emitted = program.emit();
  const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (problems.length > 0) {
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
    throw new Error(`type declarations failed:\n${ts.formatDiagnostics(problems, host)}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await buildPackages();
    console.log(`Built ${PACKAGES.map((entry) => `dist/${entry.name}`).join(', ')}`);
  } catch (error) {
    console.error(`build:packages failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
