/**
 * The entries this repository ships to other codebases (package.json `exports`), built to plain
 * JavaScript and declarations in dist/: one bundle per entry with its npm dependencies left as
 * imports (the consumer installs them with this package), and one .d.ts that stands alone.
 * `npm run build:packages` runs it; `npm install` too (`prepare`), so an install from git builds it.
 */

import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';

/** One entry: its `exports` subpath, its source, and the oldest Node.js it runs on. */
export interface PackageEntry {
  readonly subpath: string;
  readonly source: string;
  readonly node: string;
  /** Data files the bundle reads beside itself at run time: copied from the source path to this path below the entry's folder. */
  readonly assets?: readonly { readonly from: string; readonly to: string }[];
}

/** Every entry; another is one line here and one in package.json `exports`. */
export const PACKAGE_ENTRIES: readonly PackageEntry[] = [
  {
    subpath: './sign-in',
    source: 'sign-in/index.ts',
    node: 'node20',
    // changePassword's blocklist, which password-policy.ts reads from generated/ beside the module.
    assets: [{ from: 'functions/shared/domain/generated/blocklist.bin', to: 'generated/blocklist.bin' }],
  },
  { subpath: './client', source: 'client/index.ts', node: 'node20' },
];

/** Where an entry's files go: dist/<subpath>/index.js and index.d.ts, as package.json `exports` names them. */
export const entryOutput = (root: string, entry: PackageEntry) => join(root, 'dist', entry.subpath, 'index');

/**
 * The declarations of an entry: its own .d.ts and those of the files beside it that it imports
 * (the client's generated contract types), keyed by their path below the entry's folder. Throws when
 * a declaration imports anything but npm packages and files of the entry's own folder: what the
 * consumer type-checks against must stand alone.
 */
function declarationsOf(root: string, source: string): Map<string, string> {
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
  const folder = dirname(join(root, source));
  const files = new Map<string, string>();
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(`${folder}/`)) continue;
    program.emit(file, (_, data) => files.set(relative(folder, file.fileName).replace(/\.ts$/, '.d.ts'), data));
  }
  const entry = basename(source).replace(/\.ts$/, '.d.ts');
  if (!files.has(entry)) throw new Error(`no declarations emitted for ${source}`);
  for (const [file, text] of files) {
    const outside = [...text.matchAll(/(?:from |import\()['"]([.#/][^'"]*)['"]/g)]
      .map((m) => m[1]!)
      .filter((target) => !target.startsWith('./') || !files.has(join(dirname(file), target).replace(/\.js$/, '.d.ts')));
    if (outside.length > 0)
      throw new Error(
        `${source}: the declarations of ${file} import ${outside.join(', ')}; declare the public types in the entry's own folder`,
      );
  }
  return files;
}

/** Builds every entry into dist/; returns the files written, relative to `root`. */
export async function buildPackages(root: string, entries: readonly PackageEntry[] = PACKAGE_ENTRIES, outRoot = root): Promise<string[]> {
  rmSync(join(outRoot, 'dist'), { recursive: true, force: true });
  const written: string[] = [];
  for (const entry of entries) {
    const out = entryOutput(outRoot, entry);
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
    written.push(relative(outRoot, `${out}.js`));
    for (const [file, text] of declarationsOf(root, entry.source)) {
      const target = join(dirname(out), file);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
      written.push(relative(outRoot, target));
    }
    for (const asset of entry.assets ?? []) {
      const target = join(dirname(out), asset.to);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(join(root, asset.from), target);
      written.push(relative(outRoot, target));
    }
  }
  return written;
}
