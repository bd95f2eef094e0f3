/**
 * The packages this repository ships to other codebases (npm workspaces under packages/), built to
 * plain JavaScript and declarations in each package's dist/: one bundle per package with its npm
 * dependencies left as imports (the consumer installs them with the package), and declarations that
 * stand alone. The sign-in package's bundle holds the service's own password and sign-in rules
 * (functions/shared/domain, its DynamoDB adapter), so they live in one place and ship in one file.
 * Each workspace's `build` script runs it (scripts/build-packages.ts); the root's `prepare` runs those.
 */

import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';

/** One package: its folder (below the repository, or absolute), its entry below that, and the oldest Node.js it runs on. */
export interface PackageSpec {
  readonly name: string;
  readonly dir: string;
  readonly entry: string;
  readonly node: string;
}

/** Every package; another is one line here and a folder under packages/. */
export const PACKAGES: readonly PackageSpec[] = [
  { name: 'client', dir: 'packages/client', entry: 'src/index.ts', node: 'node20' },
  { name: 'sign-in', dir: 'packages/sign-in', entry: 'src/index.ts', node: 'node20' },
];

/**
 * Files a bundled module reads beside itself at run time (`new URL(..., import.meta.url)`), placed
 * where the bundle finds them: `to` is relative to the bundle, as the module's URL is to the module.
 * A bundled module that reads a file and is not listed here fails the build.
 */
export const DATA_FILES: readonly { readonly module: string; readonly file: string; readonly to: string }[] = [
  {
    module: 'functions/shared/domain/password-policy.ts',
    file: 'functions/shared/domain/generated/blocklist.bin',
    to: 'generated/blocklist.bin',
  },
];

/** Bundled modules that use `import.meta.url` to resolve modules, not to read a file beside themselves. */
export const NO_DATA_FILE: readonly string[] = [
  // Resolves @node-rs/argon2 and bcryptjs for the costly lane's worker threads (createRequire).
  'packages/sign-in/src/domain/verify-worker.ts',
];

/** What a package's bundle leaves as imports: the npm packages its manifest lists (dependencies and peers), with their subpaths. */
function externalsOf(dir: string): string[] {
  if (!existsSync(join(dir, 'package.json'))) return [];
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const names = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
  return names.flatMap((name) => [name, `${name}/*`]);
}

/** A package's dist/ folder. */
export const distOf = (root: string, spec: PackageSpec) => resolve(root, spec.dir, 'dist');

/**
 * The declarations of a package: its entry's .d.ts and those of the files beside it that it imports
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
  const program = ts.createProgram([resolve(root, source)], options);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length > 0)
    throw new Error(ts.formatDiagnostics(diagnostics, { ...ts.sys, getCanonicalFileName: (f) => f, getNewLine: () => '\n' }));
  const folder = dirname(resolve(root, source));
  const emitted = new Map<string, string>();
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(`${folder}/`)) continue;
    program.emit(file, (_, data) => emitted.set(relative(folder, file.fileName).replace(/\.ts$/, '.d.ts'), data));
  }
  const entry = basename(source).replace(/\.ts$/, '.d.ts');
  if (!emitted.has(entry)) throw new Error(`no declarations emitted for ${source}`);
  // Only what the entry's declarations import, file by file: the bundled rules' own declarations (src/domain, src/store) stay out.
  const files = new Map<string, string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    const text = emitted.get(file)!;
    files.set(file, text);
    const targets = [...text.matchAll(/(?:from |import\()['"]([.#/][^'"]*)['"]/g)].map((m) => m[1]!);
    const outside = targets.filter(
      (target) => !target.startsWith('./') || !emitted.has(join(dirname(file), target).replace(/\.js$/, '.d.ts')),
    );
    if (outside.length > 0)
      throw new Error(
        `${source}: the declarations of ${file} import ${outside.join(', ')}; declare the public types in the entry's own folder`,
      );
    pending.push(...targets.map((target) => join(dirname(file), target).replace(/\.js$/, '.d.ts')));
  }
  return files;
}

/**
 * Builds one package into `<outDir>/dist` (by default its own folder); returns the files written,
 * relative to `outDir`, sorted.
 */
export async function buildPackage(root: string, spec: PackageSpec, outDir = resolve(root, spec.dir)): Promise<string[]> {
  const dist = join(outDir, 'dist');
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  const source = resolve(root, spec.dir, spec.entry);
  const written: string[] = [];
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: [source],
    outfile: join(dist, 'index.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: spec.node,
    // npm dependencies stay imports (installed beside the package); the repository's own modules, the private
    // workspace @white-label-user-management/shared included, are bundled.
    external: externalsOf(resolve(root, spec.dir)),
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  });
  written.push(join(dist, 'index.js'));
  const bundledPackage = Object.keys(metafile.inputs).find((input) => input.includes('node_modules/'));
  if (bundledPackage) throw new Error(`${spec.name}: the bundle holds ${bundledPackage}; list its package in the package's dependencies`);
  for (const input of Object.keys(metafile.inputs)) {
    if (!readFileSync(resolve(root, input), 'utf8').includes('import.meta.url')) continue;
    if (NO_DATA_FILE.some((module) => resolve(root, module) === resolve(root, input))) continue;
    const data = DATA_FILES.find((d) => resolve(root, d.module) === resolve(root, input));
    if (!data) throw new Error(`${spec.name}: the bundle holds ${input}, which reads a file beside itself; list it in DATA_FILES`);
    const target = join(dist, data.to);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(resolve(root, data.file), target);
    written.push(target);
  }
  for (const [file, text] of declarationsOf(root, source)) {
    const target = join(dist, file);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    written.push(target);
  }
  return written.map((file) => relative(outDir, file)).sort();
}

/** The package named `name`, or a one-line error naming the known ones. */
export function packageNamed(name: string): PackageSpec {
  const spec = PACKAGES.find((p) => p.name === name);
  if (!spec) throw new Error(`no package ${JSON.stringify(name)}; the packages are ${PACKAGES.map((p) => p.name).join(', ')}`);
  return spec;
}
