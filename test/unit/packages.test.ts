/**
 * The two packages (npm workspaces under packages/) as the repository ships them: each manifest is
 * publishable (not private, semver, Node.js 20+, ESM exports with types, no install script, only
 * its own dependencies); each workspace's build script writes its dist/ and `npm pack` ships that
 * and nothing else; each bundle imports Node built-ins and its own dependencies only; each
 * CHANGELOG's top entry is the package's version and names openapi.json's API version; and a data
 * file a bundled module reads is placed where the bundle finds it.
 */

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isOnBlocklist } from '#domain/password-policy';
import { buildPackage, PACKAGES } from '../../codegen/packages';
import { ROOT } from '../support/processes';

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  type?: string;
  engines?: Record<string, string>;
  exports?: unknown;
  types?: string;
  files?: string[];
  sideEffects?: boolean;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  workspaces?: string[];
}
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const manifestOf = (dir: string) => JSON.parse(read(`${dir}/package.json`)) as Manifest;
const root = manifestOf('.');
const openapiVersion = (JSON.parse(read('openapi.json')) as { info: { version: string } }).info.version;

const scratch: string[] = [];
const folder = (tag: string) => {
  const dir = mkdtempSync(join(tmpdir(), tag));
  scratch.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** npm in the repository, as a contributor runs it. */
const npm = (args: string[]) => {
  const run = spawnSync('npm', args, { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  if (run.status !== 0) throw new Error(`npm ${args.join(' ')} exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
  return run;
};

describe('the root package', () => {
  it('stays private, lists the workspaces, and ships nothing itself', () => {
    expect(root.private).toBe(true);
    // functions/shared is a private workspace: the sign-in package imports it by name and bundles it.
    expect(root.workspaces).toEqual(['packages/*', 'functions/shared']);
    expect(root.exports).toBeUndefined();
    expect(root.files).toBeUndefined();
    // `npm install` builds the packages the tests need, through each workspace's own build script.
    expect(root.scripts?.prepare).toBe('npm run -s build:packages');
    expect(root.scripts?.['build:packages']).toBe('npm run -s build --workspaces --if-present');
  });

  it('the shared workspace is private, ships nothing and builds nothing', () => {
    const shared = manifestOf('functions/shared');
    expect(shared.name).toBe('@white-label-user-management/shared');
    expect(shared.private).toBe(true);
    expect(shared.scripts).toBeUndefined();
  });

  it("openapi.json's info.version stays 1.0.0", () => {
    expect(openapiVersion).toBe('1.0.0');
  });
});

describe.each(PACKAGES.map((spec) => [spec.name, spec] as const))('the %s package', (_, spec) => {
  const manifest = manifestOf(spec.dir);
  let written: string[];

  beforeAll(() => {
    // The workspace's own build script, as the root's prepare runs it, into the workspace's dist/.
    const built = npm(['run', 'build', '--workspace', spec.dir]);
    written = [...built.stderr.matchAll(/^wrote (\S+)$/gm)].map((m) => m[1]!.slice(`${spec.dir}/`.length)).sort();
  }, 180_000);

  it('is publishable: not private, semver, Node.js 20+, ESM, exports with types, no install script', () => {
    expect(manifest.name).toBe(`@white-label-user-management/${spec.name}`);
    expect(manifest.private).toBeUndefined();
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.engines).toEqual({ node: '>=20' });
    expect(manifest.type).toBe('module');
    expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', import: './dist/index.js' } });
    expect(manifest.types).toBe('./dist/index.d.ts');
    expect(manifest.files).toEqual(['dist', 'CHANGELOG.md']);
    expect(manifest.sideEffects).toBe(false);
    expect(Object.keys(manifest.scripts ?? {})).toEqual(['build']);
    // A devDependency is only one of its own peers, at the peer's version (the sign-in package's optional SSM
    // client, which its descriptorFromSsm imports: installed for its type check and tests, never for a user).
    const peers = manifest.peerDependencies ?? {};
    for (const [name, version] of Object.entries(manifest.devDependencies ?? {}))
      expect([name, `^${version}`]).toEqual([name, peers[name]]);
  });

  it('its workspace build writes dist/, and npm pack ships exactly that, its manifest, README and CHANGELOG', () => {
    expect(written).toContain('dist/index.js');
    expect(written).toContain('dist/index.d.ts');
    const packed = JSON.parse(npm(['pack', '--dry-run', '--json', '--workspace', spec.dir]).stdout) as [{ files: { path: string }[] }];
    expect(packed[0].files.map((f) => f.path).sort()).toEqual(['CHANGELOG.md', 'README.md', ...written, 'package.json'].sort());
  });

  it('its bundle imports Node built-ins and its own dependencies only, and its declarations stand alone', () => {
    const bundle = read(`${spec.dir}/dist/index.js`);
    const imported = new Set(
      [...bundle.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm)].map(
        (m) => m[1] ?? m[2]!,
      ),
    );
    // Its dependencies, and the optional peer descriptorFromSsm imports (the AWS SDK's SSM client).
    const optionalPeers = Object.keys((manifest as { peerDependenciesMeta?: object }).peerDependenciesMeta ?? {});
    expect([...imported].filter((name) => !name.startsWith('node:')).sort()).toEqual(
      [...Object.keys(manifest.dependencies ?? {}), ...optionalPeers].sort(),
    );
    // No CommonJS left for a bundler's shim to load. The one exception is the costly lane's worker
    // (packages/sign-in/src/domain/verify-worker.ts): a CommonJS program kept as text and run by
    // `new Worker(source, { eval: true })`, so that its `require` calls run in the worker.
    const workerPrograms = bundle.match(/^var WORKER_PROGRAM = `[^`]*`;$/gm) ?? [];
    expect(workerPrograms.length).toBeLessThanOrEqual(1);
    // esbuild turns a `require` into its `__require` shim, which fails at run time in ESM.
    expect(bundle.replace(workerPrograms[0] ?? '', '')).not.toMatch(/\brequire\b|__require\b/);
    for (const file of written.filter((f) => f.endsWith('.d.ts'))) {
      const targets = [...read(`${spec.dir}/${file}`).matchAll(/(?:from |import\()['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      const packages = targets.filter((t) => !t.startsWith('./'));
      expect(packages.filter((t) => !(t in (manifest.dependencies ?? {})))).toEqual([]);
    }
  });

  it("its CHANGELOG's top entry is its version, and names the API version of openapi.json", () => {
    const changelog = read(`${spec.dir}/CHANGELOG.md`);
    expect(changelog).toContain('[Keep a Changelog](https://keepachangelog.com/');
    // The first released entry (an `Unreleased` section above it is allowed).
    const entries = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})\n([\s\S]*?)(?=^## |(?![\s\S]))/gm)];
    expect(entries.length).toBeGreaterThan(0);
    const [, version, , body] = entries[0]!;
    expect(version).toBe(manifest.version);
    expect(/API version (\d+\.\d+\.\d+)/.exec(body!)?.[1]).toBe(openapiVersion);
  });
});

describe('dependencies', () => {
  it('the client depends on openapi-fetch only, at an exact version', () => {
    const { dependencies } = manifestOf('packages/client');
    expect(Object.keys(dependencies ?? {})).toEqual(['openapi-fetch']);
    expect(dependencies?.['openapi-fetch']).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("the sign-in package depends on exactly the DynamoDB clients, @node-rs/argon2 and bcryptjs, at the service's versions", () => {
    const { dependencies } = manifestOf('packages/sign-in');
    const names = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/util-dynamodb', '@node-rs/argon2', 'bcryptjs'];
    expect(Object.keys(dependencies ?? {}).sort()).toEqual(names);
    for (const name of names) expect([name, dependencies?.[name]]).toEqual([name, root.dependencies?.[name]]);
  });
});

describe('a file a bundled module reads beside itself', () => {
  it("is placed where the bundle finds it: a bundle of the domain's blocklist check answers as the source does", async () => {
    const source = folder('data-file-');
    mkdirSync(join(source, 'src'));
    writeFileSync(
      join(source, 'src/index.ts'),
      `import { isOnBlocklist } from '${join(ROOT, 'functions/shared/domain/password-policy')}';\nexport const listed = (password: string): boolean => isOnBlocklist(password);\n`,
    );
    const out = folder('data-file-out-');
    const files = await buildPackage(ROOT, { name: 'fixture', dir: source, entry: 'src/index.ts', node: 'node20' }, out);
    expect(files).toEqual(['dist/generated/blocklist.bin', 'dist/index.d.ts', 'dist/index.js']);
    const passwords = ['password123', 'iloveyou2', 'a passphrase nobody has listed 7f3c9e', 'Password123'];
    const script = `const { listed } = await import(${JSON.stringify(join(out, 'dist/index.js'))}); console.log(JSON.stringify(${JSON.stringify(passwords)}.map(listed)));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: out, encoding: 'utf8' });
    expect([run.status, run.stderr]).toEqual([0, '']);
    const expected = passwords.map(isOnBlocklist);
    expect(expected).toContain(true);
    expect(JSON.parse(run.stdout)).toEqual(expected);
  }, 120_000);

  it('fails the build when the reading module is not listed, naming it', async () => {
    const source = folder('data-file-unlisted-');
    mkdirSync(join(source, 'src'));
    writeFileSync(join(source, 'src/index.ts'), "export const data = new URL('./data.bin', import.meta.url).href;\n");
    await expect(
      buildPackage(ROOT, { name: 'fixture', dir: source, entry: 'src/index.ts', node: 'node20' }, folder('out-')),
    ).rejects.toThrow(/fixture: the bundle holds .*src\/index\.ts, which reads a file beside itself; list it in DATA_FILES/);
  }, 120_000);
});
