/**
 * The sign-in package as a tool's developer installs it, following its README literally: the
 * tarball packed from packages/sign-in, installed by npm on Node.js 20 into an empty folder outside
 * the repository with nothing else (no warning, no install script, at most the AWS DynamoDB
 * client's own footprint plus 2 MB, measured here in another empty folder), the README's TypeScript
 * example (and the data contract's) compiled with the documented tsconfig by each TypeScript
 * version the docs name, and the README's example run on Node.js 20 and on the pinned 24 against
 * DynamoDB Local, signing in a user the service created.
 */

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { formatArgon2Setting } from '#platform/config';
import { processStores } from '#store/stores';
import { handler as createUser } from '../../functions/createUser/handler';
import { invoke } from '../support/events';
import { newOwner, uniqueEmail } from '../support/local';
import { ROOT } from '../support/processes';
import {
  installAlone,
  markedBlock,
  type NodeMajor,
  nodeBinary,
  npm,
  packWorkspace,
  strangerEnv,
  TYPES_NODE,
  TYPESCRIPT_VERSIONS,
  tsc,
} from '../support/stranger';

jest.setTimeout(600_000);
const { config, stores } = processStores();
const readme = readFileSync(join(ROOT, 'packages/sign-in/README.md'), 'utf8');
const clientsDoc = readFileSync(join(ROOT, 'docs/clients.md'), 'utf8');
const dataContract = readFileSync(join(ROOT, 'docs/data-contract.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(ROOT, 'packages/sign-in/package.json'), 'utf8')) as {
  name: string;
  dependencies: Record<string, string>;
};
const workdir = mkdtempSync(join(tmpdir(), 'sign-in-package-'));
const folders: string[] = [workdir];

let installed: ReturnType<typeof installAlone>;
let dynamodbAlone: ReturnType<typeof installAlone>;

beforeAll(async () => {
  const { tarball } = await packWorkspace('sign-in', workdir);
  const consumer = markedBlock(clientsDoc, 'consumer package.json');
  installed = installAlone('sign-in', consumer, [tarball]);
  dynamodbAlone = installAlone('dynamodb', consumer, [`@aws-sdk/client-dynamodb@${manifest.dependencies['@aws-sdk/client-dynamodb']}`]);
  folders.push(installed.dir, dynamodbAlone.dir);
}, 600_000);

afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('installed alone from its tarball by npm on Node.js 20', () => {
  it('npm runs on Node.js 20 and prints no warning (no EBADENGINE, no install script to approve)', () => {
    expect((JSON.parse(npm(installed.dir, ['version', '--json']).stdout) as { node: string }).node).toMatch(/^20\./);
    expect(installed.output).not.toMatch(/npm warn|EBADENGINE/i);
    expect(installed.output).toMatch(/added \d+ packages?/);
  });

  it("weighs at most the AWS DynamoDB client's own footprint plus 2 MB, and no package has an install script", () => {
    const { bytes, packages, withInstallScripts } = installed;
    console.log(
      `sign-in installed alone: ${bytes} bytes, ${packages.length} packages; ` +
        `@aws-sdk/client-dynamodb alone: ${dynamodbAlone.bytes} bytes, ${dynamodbAlone.packages.length} packages; ` +
        `only with sign-in: ${packages.filter((p) => !dynamodbAlone.packages.includes(p)).join(', ')}`,
    );
    expect(packages).toContain(manifest.name);
    expect(bytes).toBeLessThanOrEqual(dynamodbAlone.bytes + 2_000_000);
    expect(withInstallScripts).toEqual([]);
    expect(dynamodbAlone.withInstallScripts).toEqual([]);
    // Nothing of the service: no middy, Powertools, EventBridge or CDK.
    expect(packages.filter((p) => /middy|powertools|client-eventbridge|aws-cdk|constructs/.test(p))).toEqual([]);
  });
});

describe("the README's TypeScript example, compiled and run as the README says", () => {
  const example = markedBlock(readme, 'sign-in example');
  const tsconfig = markedBlock(readme, 'consumer tsconfig.json');

  beforeAll(() => {
    for (const version of ['5.9', '7.0']) expect(readme).toContain(version);
    const compiler = TYPESCRIPT_VERSIONS.find((v) => !v.startsWith('5.9'))!;
    npm(installed.dir, ['install', '--no-audit', '--no-fund', '--save-dev', `typescript@${compiler}`, TYPES_NODE]);
    writeFileSync(join(installed.dir, 'tsconfig.json'), tsconfig);
    writeFileSync(join(installed.dir, 'sign-in.ts'), example);
    // The data contract's example, as a tool's module beside it.
    const contractExample = /<!-- sign-in example[^\n]*-->\n```ts\n([\s\S]*?)```/.exec(dataContract)?.[1];
    expect(contractExample).toContain(`from '${manifest.name}'`);
    writeFileSync(join(installed.dir, 'on-sign-in.ts'), contractExample!);
  }, 300_000);

  it("uses the client doc's tsconfig", () => {
    expect(tsconfig).toBe(markedBlock(clientsDoc, 'consumer tsconfig.json'));
  });

  it.each(TYPESCRIPT_VERSIONS)('compiles under --strict with TypeScript %s, with the declarations of the tarball', (version) => {
    const run = tsc(installed.dir, version, 'tsconfig.json');
    expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
  });

  it.each(TYPESCRIPT_VERSIONS)('refuses a misuse with TypeScript %s', (version) => {
    const dir = join(installed.dir, 'misuse');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'misuse.ts'),
      `import { createSignIn } from '${manifest.name}';
const users = createSignIn({ usersTable: 'users' });
export const n: number = (await users.signIn({ ownerId: 'o', email: 'e', password: 'p' })).outcome;
`,
    );
    const options = (JSON.parse(tsconfig) as { compilerOptions: object }).compilerOptions;
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...options, noEmit: true }, files: ['misuse.ts'] }));
    const run = tsc(installed.dir, version, 'misuse/tsconfig.json');
    rmSync(dir, { recursive: true, force: true });
    expect(run.status).not.toBe(0);
    expect(run.stdout).toContain("Property 'argon2Setting' is missing");
    expect(run.stdout).toContain("is not assignable to type 'number'");
  });

  it.each([20, 24] as NodeMajor[])('runs on Node.js %i and signs in a user the service created', async (major) => {
    const owner = await newOwner('package');
    const ownerId = (await stores.owners.findOwner(owner.ownerEmail))!.ownerId;
    const email = uniqueEmail('package');
    const password = 'from the packed module';
    expect((await invoke(createUser, { user_email: email, user_password: password }, owner.apiKey)).status).toBe(200);
    const { AWS_PROFILE: _profile, ...env } = strangerEnv(major, {
      USERS_TABLE_NAME: config.usersTableName,
      ARGON2_SETTING: formatArgon2Setting(config.argon2),
      OWNER_ID: ownerId,
      // The AWS SDK's own variables: DynamoDB Local's address, a region and any credentials.
      AWS_ENDPOINT_URL_DYNAMODB: process.env.DYNAMODB_ENDPOINT!,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    const outcomes: string[] = [];
    for (const attempt of [password, `${password}!`, password]) {
      const run = spawnSync(nodeBinary(major), ['sign-in.js', email, attempt], {
        cwd: installed.dir,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      // On Node.js 20 the AWS SDK warns that its releases after January 2027 need Node.js 22: nothing else on stderr.
      const sdkNotice = /\(node:\d+\) Warning: NodeVersionSupportWarning[\s\S]*?show where the warning was created\)\n/;
      expect([run.status, run.stderr.replace(major === 20 ? sdkNotice : /^$/, '')]).toEqual([0, '']);
      outcomes.push(run.stdout);
    }
    expect(outcomes).toEqual(['ok\n', 'wrong\n', 'ok\n']);
  });
});
