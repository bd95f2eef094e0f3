import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { build } from 'esbuild';
import { CATALOGUE, DEFINITIONS } from '#contract/operations';
import { ARGON2_ARM64_BINARY, ARGON2_PACKAGE, BLOCKLIST_SOURCE } from '../../lib/constructs/handler-function';
import { OPERATIONS, type Operation } from '../../lib/user-management-stack';
import { synthAssets } from './synth';

// The real-bundling synths of the test run (esbuild + npm install into each asset): the second one
// with the network cut off and another output directory, deeper in the file system.
let outdir: string;
let offlineOutdir: string;
const assetDirs = {} as Record<Operation, string>;
const offlineAssetDirs = {} as Record<Operation, string>;
let offlineError: unknown;

/** Every proxy variable npm and Node read, pointed at a closed port: no package can come from the network. */
const NO_NETWORK = Object.fromEntries(
  ['https_proxy', 'http_proxy', 'HTTPS_PROXY', 'HTTP_PROXY', 'npm_config_proxy', 'npm_config_https_proxy'].map((name) => [
    name,
    'http://127.0.0.1:9',
  ]),
);

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'user-management-assets-'));
  Object.assign(assetDirs, synthAssets(outdir));
  const saved = { ...process.env };
  offlineOutdir = mkdtempSync(join(tmpdir(), 'user-management-assets-offline-'));
  try {
    Object.assign(process.env, NO_NETWORK, { npm_config_fetch_retries: '0' });
    Object.assign(offlineAssetDirs, synthAssets(join(offlineOutdir, 'some', 'deeper', 'cdk.out')));
  } catch (error) {
    offlineError = error;
  } finally {
    process.env = saved;
  }
}, 300_000);

afterAll(() => {
  for (const dir of [outdir, offlineOutdir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

it('synth works with the registry unreachable (warm npm cache), and the asset hashes ignore the output directory', () => {
  expect(offlineError).toBeUndefined();
  const hashes = (dirs: Record<Operation, string>) => OPERATIONS.map((operation) => basename(dirs[operation]));
  expect(hashes(offlineAssetDirs)).toEqual(hashes(assetDirs));
  for (const operation of OPERATIONS) expect(hashes(assetDirs)[OPERATIONS.indexOf(operation)]).toMatch(/^asset\.[0-9a-f]{64}$/);
});

const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);
const EM_X86_64 = 62;
const EM_AARCH64 = 183;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

/** The ELF machine of a file, or undefined when the file is not ELF. */
function elfMachine(path: string): number | undefined {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    if (readSync(fd, header, 0, 20, 0) < 20) return undefined;
  } finally {
    closeSync(fd);
  }
  if (!header.subarray(0, 4).equals(ELF_MAGIC)) return undefined;
  return header[5] === 2 ? header.readUInt16BE(18) : header.readUInt16LE(18);
}

/** Module specifiers the bundle imports (static and dynamic import), as esbuild's parser sees them. */
async function importedSpecifiers(file: string): Promise<string[]> {
  const result = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    external: ['*'],
    logLevel: 'silent',
  });
  const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports);
  return [
    ...new Set(imports.filter((entry) => entry.kind === 'import-statement' || entry.kind === 'dynamic-import').map((entry) => entry.path)),
  ];
}

describe.each(OPERATIONS)('%s asset', (operation) => {
  it('holds the linux-arm64 glibc argon2 binary and no binary for any other machine', () => {
    const dir = assetDirs[operation];
    const binary = join(dir, ARGON2_ARM64_BINARY);
    expect(existsSync(binary)).toBe(true);
    expect(elfMachine(binary)).toBe(EM_AARCH64);
    const elfFiles = filesUnder(dir)
      .map((path) => ({ path: relative(dir, path), machine: elfMachine(path) }))
      .filter((file) => file.machine !== undefined);
    expect(elfFiles).toEqual([{ path: ARGON2_ARM64_BINARY, machine: EM_AARCH64 }]);
    expect(elfFiles.some((file) => file.machine === EM_X86_64)).toBe(false);
  });

  it('installs only the argon2 package and its arm64 binding; everything else is bundled', () => {
    const packages = readdirSync(join(assetDirs[operation], 'node_modules', '@node-rs'));
    expect(packages.sort()).toEqual([ARGON2_PACKAGE.split('/')[1], 'argon2-linux-arm64-gnu']);
    expect(readdirSync(join(assetDirs[operation], 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['@node-rs']);
    expect(existsSync(join(assetDirs[operation], 'package-lock.json'))).toBe(false);
  });

  it('is one ESM bundle exporting "handler", importing only Node built-ins and argon2, with a source map', async () => {
    const dir = assetDirs[operation];
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    // The function's Handler is index.handler: the export must exist under that name.
    expect(code).toMatch(
      /export\s*\{[^}]*\bas handler\b[^}]*\}|export\s*\{[^}]*\bhandler\b[^}]*\}|export\s+(?:const|function|let|var)\s+handler\b/,
    );
    const builtins = new Set(builtinModules);
    const external = (await importedSpecifiers(join(dir, 'index.mjs'))).filter(
      (specifier) => !specifier.startsWith('node:') && !builtins.has(specifier),
    );
    expect(external).toEqual([ARGON2_PACKAGE]);
    const map = JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as { sourcesContent?: unknown };
    expect(map.sourcesContent).toBeUndefined();
    // The SDK's default credential chain is aliased to the environment provider, and the bundle stays small.
    const sources = (map as unknown as { sources: string[] }).sources;
    expect(sources.filter((source) => /credential-provider-(node|sso|ini|imds|process|web-identity)/.test(source))).toEqual([]);
    expect(sources.some((source) => source.includes('credential-provider-env'))).toBe(true);
    // Paths relative to the project, whatever the output directory: the asset hash cannot depend on it.
    expect(sources).toContain(`functions/${operation}/handler.ts`);
    expect(sources.filter((source) => source.startsWith('..') || source.startsWith('/'))).toEqual([]);
    expect(statSync(join(dir, 'index.mjs')).size).toBeLessThanOrEqual(300_000);
    expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
  });

  it("carries its own operation's module, validator and messages, and no other operation's", () => {
    const dir = assetDirs[operation];
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    const { sources } = JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as { sources: string[] };
    const own = (name: Operation) => [
      `functions/shared/contract/operations/${name}.ts`,
      `functions/shared/contract/generated/validators/${name}.ts`,
    ];
    for (const source of own(operation)) expect(sources).toContain(source);
    expect(code).toContain(JSON.stringify(CATALOGUE[operation].failureMessage));
    for (const other of OPERATIONS.filter((name) => name !== operation)) {
      expect(sources.filter((source) => own(other).includes(source))).toEqual([]);
      const messages = Object.values(DEFINITIONS[other].messages).filter(
        (message) => !Object.values(DEFINITIONS[operation].messages).includes(message),
      );
      expect(messages.filter((message) => code.includes(JSON.stringify(message)))).toEqual([]);
    }
    // The registry of every operation stays out: a new operation changes no other function's bundle.
    expect(sources).not.toContain('functions/shared/contract/operations.ts');
  });

  it("carries none of the sign-in's code: nothing of the sign-in package, which no API function runs", () => {
    const { sources } = JSON.parse(readFileSync(join(assetDirs[operation], 'index.mjs.map'), 'utf8')) as { sources: string[] };
    expect(sources.filter((source) => source.startsWith('packages/'))).toEqual([]);
  });

  it('carries the password blocklist in generated/ beside index.mjs, byte for byte the generated file', () => {
    const carried = join(assetDirs[operation], 'generated', basename(BLOCKLIST_SOURCE));
    expect(existsSync(carried)).toBe(true);
    expect(readFileSync(carried).equals(readFileSync(BLOCKLIST_SOURCE))).toBe(true);
  });
});

describe('stream consumer asset', () => {
  /** The consumer's asset: the one bundle that logs its deliveries (the synth writes every function's asset to outdir). */
  const consumerAssetDir = () =>
    readdirSync(outdir)
      .filter((name) => name.startsWith('asset.'))
      .map((name) => join(outdir, name))
      .find(
        (dir) => existsSync(join(dir, 'index.mjs')) && readFileSync(join(dir, 'index.mjs'), 'utf8').includes('Lifecycle events delivered'),
      );

  it('is one ESM bundle exporting "handler" with no installed package (it hashes nothing)', async () => {
    const dir = consumerAssetDir()!;
    expect(dir).toBeDefined();
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(code).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}|export\s+(?:const|function|let|var)\s+handler\b/);
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
    expect(existsSync(join(dir, 'generated'))).toBe(false);
    const builtins = new Set(builtinModules);
    const external = (await importedSpecifiers(join(dir, 'index.mjs'))).filter(
      (specifier) => !specifier.startsWith('node:') && !builtins.has(specifier),
    );
    expect(external).toEqual([]);
    expect(statSync(join(dir, 'index.mjs')).size).toBeLessThanOrEqual(300_000);
  });
});
