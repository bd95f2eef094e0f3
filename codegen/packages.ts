/**
 * The entries this repository ships to other codebases (package.json `exports`), built to plain
 * JavaScript and declarations in dist/: one bundle per entry with its npm dependencies left as
 * imports (the consumer installs them with this package), and one .d.ts that stands alone.
 * `npm run build:packages` runs it; `npm install` too (`prepare`), so an install from git builds it.
 */

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';

/** One entry: its `exports` subpath, its source, and the oldest Node.js it runs on. */
export interface PackageEntry {
  readonly subpath: string;
  readonly source: string;
  readonly node: string;
}

/** Every entry; another is one line here and one in package.json `exports`. */
export const PACKAGE_ENTRIES: readonly PackageEntry[] = [{ subpath: './sign-in', source: 'sign-in/index.ts', node: 'node20' }];

/** Where an entry's files go: dist/<subpath>/index.js and index.d.ts, as package.json `exports` names them. */
export const entryOutput = (root: string, entry: PackageEntry) => join(root, 'dist', entry.subpath, 'index');

/** The declarations of `source` alone; throws when they import anything but npm packages (they must stand alone). */
function declarationsOf(root: string, source: string): string {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const options: ts.CompilerOptions = { ...config.options, noEmit: false, declaration: true, emitDeclarationOnly: true, types: ['node'] };
  const program = ts.createProgram([join(root, source)], options);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length > 0)
    throw new Error(ts.formatDiagnostics(diagnostics, { ...ts.sys, getCanonicalFileName: (f) => f, getNewLine: () => '\n' }));
  let text: string | undefined;
  const wanted = source.replace(/\.ts$/, '.d.ts');
  program.emit(program.getSourceFile(join(root, source)), (file, data) => {
    if (file.endsWith(wanted)) text = data;
  });
  if (text === undefined) throw new Error(`no declarations emitted for ${source}`);
  const local = [...text.matchAll(/(?:from |import\()['"]([.#/][^'"]*)['"]/g)].map((m) => m[1]);
  if (local.length > 0)
    throw new Error(`${source}: its declarations import ${local.join(', ')}; declare the public types in the entry itself`);
  return text;
}

/** Builds every entry into dist/; returns the files written, relative to `root`. */
export async function buildPackages(root: string, entries: readonly PackageEntry[] = PACKAGE_ENTRIES): Promise<string[]> {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const written: string[] = [];
  for (const entry of entries) {
    const out = entryOutput(root, entry);
    mkdirSync(dirname(out), { recursive: true });
    await build({
      absWorkingDir: root,
      entryPoints: [entry.source],
      outfile: `${out}.js`,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: entry.node,
      // npm dependencies stay imports (installed beside this package); the repository's own modules are bundled.
      packages: 'external',
      legalComments: 'none',
      logLevel: 'warning',
    });
    writeFileSync(`${out}.d.ts`, declarationsOf(root, entry.source));
    written.push(relative(root, `${out}.js`), relative(root, `${out}.d.ts`));
  }
  return written;
}
