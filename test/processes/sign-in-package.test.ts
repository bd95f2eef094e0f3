/**
 * The sign-in module as a tool gets it: built by `npm run build:packages` (what `npm install`'s
 * `prepare` runs) into dist/, imported through package.json `exports` from a plain Node.js ESM
 * script in another folder (on Node 20 where the machine has it), and type-checked by a consumer's
 * own tsc, with the data contract's example as the consumer's code.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { formatArgon2Setting } from '#platform/config';
import { processStores } from '#store/stores';
import { handler as createUser } from '../../functions/createUser/handler';
import { invoke } from '../support/events';
import { newOwner, uniqueEmail } from '../support/local';
import { ROOT, runScript } from '../support/processes';

const { config, stores } = processStores();
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, { types: string; import: string }>;
  dependencies: Record<string, string>;
};
const consumer = mkdtempSync(join(tmpdir(), 'tool-back-end-'));
/** The oldest Node.js the module promises, where the machine has one (Debian's, outside the project's pinned Node). */
const NODE = existsSync('/usr/bin/node') ? '/usr/bin/node' : process.execPath;

beforeAll(async () => {
  const built = await runScript('scripts/build-packages.ts', [], process.env);
  expect([built.code, built.stderr]).toEqual([0, expect.stringContaining('wrote dist/sign-in/index.js\nwrote dist/sign-in/index.d.ts\n')]);
  // The tool's back end: its own package, with this repository installed under its name.
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'tool-back-end', private: true, type: 'module' }));
  mkdirSync(join(consumer, 'node_modules'));
  symlinkSync(ROOT, join(consumer, 'node_modules', pkg.name), 'dir');
}, 120_000);

describe('the built sign-in entry', () => {
  it('is named in exports, and imports only Node built-ins and the dependencies installed with it', () => {
    expect(pkg.exports['./sign-in']).toEqual({ types: './dist/sign-in/index.d.ts', import: './dist/sign-in/index.js' });
    const code = readFileSync(join(ROOT, 'dist/sign-in/index.js'), 'utf8');
    const imported = new Set([...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!));
    expect([...imported].filter((name) => !name.startsWith('node:') && !(name in pkg.dependencies))).toEqual([]);
    expect([...imported].filter((name) => /middy|powertools|aws-cdk|aws-lambda/.test(name))).toEqual([]);
    const declarations = readFileSync(join(ROOT, 'dist/sign-in/index.d.ts'), 'utf8');
    expect([...declarations.matchAll(/from '([^']+)'/g)].map((m) => m[1])).toEqual(['@aws-sdk/client-dynamodb']);
  });

  it('a plain Node.js ESM script in another folder imports it and signs a user in', async () => {
    const owner = await newOwner('package');
    const ownerId = (await stores.owners.findOwner(owner.ownerEmail))!.ownerId;
    const email = uniqueEmail('package');
    expect((await invoke(createUser, { user_email: email, user_password: 'from the built module' }, owner.apiKey)).status).toBe(200);
    writeFileSync(
      join(consumer, 'sign-in.mjs'),
      `import { createSignIn } from '${pkg.name}/sign-in';
const [usersTable, argon2Setting, endpoint, ownerId, email, password] = process.argv.slice(2);
const users = createSignIn({
  usersTable,
  argon2Setting,
  dynamodb: { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } },
});
const outcomes = [];
for (const attempt of [password, password + '!', password]) outcomes.push((await users.signIn({ ownerId, email, password: attempt })).outcome);
console.log(JSON.stringify({ node: process.versions.node, outcomes }));
`,
    );
    const args = [
      config.usersTableName,
      formatArgon2Setting(config.argon2),
      process.env.DYNAMODB_ENDPOINT!,
      ownerId,
      email,
      'from the built module',
    ];
    const run = spawnSync(NODE, ['sign-in.mjs', ...args], { cwd: consumer, encoding: 'utf8', timeout: 60_000 });
    // On Node 20 the AWS SDK warns that its releases after January 2027 need Node 22: nothing else on stderr.
    const sdkNotice = /\(node:\d+\) Warning: NodeVersionSupportWarning[\s\S]*?show where the warning was created\)\n/;
    expect([run.status, run.stderr.replace(sdkNotice, '')]).toEqual([0, '']);
    const { node, outcomes } = JSON.parse(run.stdout) as { node: string; outcomes: string[] };
    expect(Number(node.split('.')[0])).toBeGreaterThanOrEqual(20);
    expect(outcomes).toEqual(['ok', 'wrong', 'ok']);
  }, 60_000);

  it("a consumer's tsc type-checks the data contract's example against the declarations, and refuses a misuse", () => {
    const page = readFileSync(join(ROOT, 'docs/data-contract.md'), 'utf8');
    const example = /<!-- sign-in example[^\n]*-->\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
    expect(example).toContain(`from '${pkg.name}/sign-in'`);
    writeFileSync(join(consumer, 'example.ts'), example!);
    writeFileSync(
      join(consumer, 'misuse.ts'),
      `import { createSignIn } from '${pkg.name}/sign-in';
const users = createSignIn({ usersTable: 'users' });
export const n: number = (await users.signIn({ ownerId: 'o', email: 'e', password: 'p' })).outcome;
`,
    );
    const tsc = (file: string) => {
      const tsconfig = join(consumer, `tsconfig.${file}.json`);
      const compilerOptions = {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
      };
      writeFileSync(tsconfig, JSON.stringify({ compilerOptions, files: [file] }));
      return spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], {
        cwd: consumer,
        encoding: 'utf8',
      });
    };
    const good = tsc('example.ts');
    expect([good.status, good.stdout]).toEqual([0, '']);
    const bad = tsc('misuse.ts');
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toContain("Property 'argon2Setting' is missing");
    expect(bad.stdout).toContain("is not assignable to type 'number'");
  }, 60_000);
});
