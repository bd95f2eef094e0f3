/**
 * The sign-in package as a tool's developer installs it, following its README literally: the
 * tarball packed from packages/sign-in, installed by npm on Node.js 20 into an empty folder outside
 * the repository with nothing else (no warning, no install script, at most the AWS DynamoDB
 * client's own footprint plus 2 MB plus the password blocklist changePassword ships, measured here in
 * another empty folder), the README's TypeScript
 * example (and the data contract's) compiled with the documented tsconfig by each TypeScript
 * version the docs name, and the README's example run on Node.js 20 and on the pinned 24 against
 * DynamoDB Local, signing in a user the service created. Then every scenario of the data contract's
 * section 2 through the installed package on Node.js 20: the 72-byte typo, a reset that wins
 * (forced), the waits and the limit under a fake clock, 300 parallel guesses, an unknown e-mail's
 * outcomes, changePassword and its one event, and the costly lane under a burst of ceiling hashes
 * (a stage-setting sign-in's latency, and the process's own peak memory); and a `switch` that misses
 * an outcome refused by each TypeScript.
 */

import { type SpawnOptions, spawn } from 'node:child_process';
import { pbkdf2Sync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { HASH_CEILINGS } from '#domain/password-hashes';
import { formatArgon2Setting } from '#platform/config';
import { LANE_OVERHEAD_MIB } from '#sign-in/domain/costly-lane';
import { fastestLockoutSeconds, UNTRUSTED_FAILURE_LIMIT } from '#sign-in/domain/sign-in-attempts';
import { processStores } from '#store/stores';
import { signInStateKey } from '#store/table-layout';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as resetUserPassword } from '../../functions/resetUserPassword/handler';
import { invoke } from '../support/events';
import { startTestDelivery } from '../support/lifecycle-events';
import { newOwner, uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';
import { ROOT, runScript } from '../support/processes';
import { withoutCookie } from '../support/sign-in-results';
import {
  installAlone,
  markedBlock,
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

  it("weighs at most the AWS DynamoDB client's own footprint plus 2 MB plus the blocklist, and no package has an install script", () => {
    const { bytes, packages, withInstallScripts } = installed;
    console.log(
      `sign-in installed alone: ${bytes} bytes, ${packages.length} packages; ` +
        `@aws-sdk/client-dynamodb alone: ${dynamodbAlone.bytes} bytes, ${dynamodbAlone.packages.length} packages; ` +
        `only with sign-in: ${packages.filter((p) => !dynamodbAlone.packages.includes(p)).join(', ')}`,
    );
    expect(packages).toContain(manifest.name);
    // changePassword checks new passwords against the service's own list, which ships with it (ADR 18).
    const blocklist = statSync(join(ROOT, 'functions/shared/domain/generated/blocklist.bin')).size;
    expect(bytes).toBeLessThanOrEqual(dynamodbAlone.bytes + 2_000_000 + blocklist);
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
const users = createSignIn({ descriptor: '.data/sign-in.json' });
export const n: number = (await users.signIn({ ownerId: 'o', email: 'e', password: 'p' })).outcome;
`,
    );
    const options = (JSON.parse(tsconfig) as { compilerOptions: object }).compilerOptions;
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...options, noEmit: true }, files: ['misuse.ts'] }));
    const run = tsc(installed.dir, version, 'misuse/tsconfig.json');
    rmSync(dir, { recursive: true, force: true });
    expect(run.status).not.toBe(0);
    expect(run.stdout).toContain("is not assignable to type 'DescriptorSource'");
    expect(run.stdout).toContain("is not assignable to type 'number'");
  });

  it.each(TYPESCRIPT_VERSIONS)('refuses, with TypeScript %s, a switch over the outcomes that misses one', (version) => {
    // The data contract's example with the `busy` case of the sign-in's switch left out, in a folder of its own for this test only.
    const contractExample = /<!-- sign-in example[^\n]*-->\n```ts\n([\s\S]*?)```/.exec(dataContract)![1]!;
    const missing = contractExample.replace(
      / {4}case 'busy':\n {6}return `busy: try again in \$\{result\.retryAfterSeconds\} seconds`;\n/,
      '',
    );
    expect(missing).not.toBe(contractExample);
    mkdirSync(join(installed.dir, 'missing'), { recursive: true });
    writeFileSync(join(installed.dir, 'missing', 'on-sign-in.ts'), missing);
    const options = (JSON.parse(tsconfig) as { compilerOptions: object }).compilerOptions;
    writeFileSync(
      join(installed.dir, 'missing', 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...options, noEmit: true }, files: ['on-sign-in.ts'] }),
    );
    const run = tsc(installed.dir, version, 'missing/tsconfig.json');
    rmSync(join(installed.dir, 'missing'), { recursive: true, force: true });
    expect(run.status).not.toBe(0);
    expect(run.stdout).toContain('error TS2366: Function lacks ending return statement');
  });
  // Run as written on Node.js 20, 22 and 24 against npm start: test/processes/sign-in-snippets.test.ts.
});

/**
 * On Node 20 the AWS SDK warns that its releases after January 2027 need Node 22, and any SDK client
 * says so when more requests wait for a socket than its 50 (the 300 parallel guesses): nothing else
 * may be on stderr.
 */
const SDK_NOTICES =
  /\(node:\d+\) Warning: NodeVersionSupportWarning[\s\S]*?show where the warning was created\)\n|@smithy\/node-http-handler:WARN - socket usage at capacity=50 and \d+ additional requests are enqueued\.\nSee \S+\nor increase socketAcquisitionWarningTimeout=\(millis\) in the NodeHttpHandler config\.\n/g;

/**
 * The tool's back end: one script, a scenario per run. It reads `{ scenario, ...input }` from its
 * argument and prints one JSON line. `connection` is what the data contract tells a developer to use.
 */
const TOOL_SCRIPT = `import { readFileSync } from 'node:fs';
import { createSignIn } from '${manifest.name}';
const input = JSON.parse(process.argv[2]);
let clock = Date.now();
const users = createSignIn({
  usersTable: input.usersTable,
  signInTable: input.signInTable,
  argon2Setting: input.argon2Setting,
  dynamodb: { endpoint: input.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } },
  ...(input.fakeClock && { now: () => clock }),
});
const { ownerId } = input;
const signIn = (email, password) => users.signIn({ ownerId, email, password });
const memory = (field) => Number(new RegExp('^' + field + ':\\\\s+(\\\\d+) kB$', 'm').exec(readFileSync('/proc/self/status', 'utf8'))[1]);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const timed = async (task) => { const start = performance.now(); await task(); return performance.now() - start; };
const scenarios = {
  async flow() {
    const { email, password, bcryptEmail, real, typo } = input;
    const outcomes = [];
    for (const attempt of [password, password + '!', password]) outcomes.push((await signIn(email, attempt)).outcome);
    for (const attempt of [typo, real]) outcomes.push((await signIn(bcryptEmail, attempt)).outcome);
    const refused = await users.changePassword({ ownerId, email: bcryptEmail, currentPassword: real, newPassword: 'password123' });
    const changed = await users.changePassword({ ownerId, email: bcryptEmail, currentPassword: real, newPassword: 'a brand new passphrase' });
    outcomes.push((await signIn(bcryptEmail, 'a brand new passphrase')).outcome, (await signIn(bcryptEmail, typo)).outcome);
    return { node: process.versions.node, outcomes, refused, changed };
  },
  async race() {
    return signIn(input.email, input.password);
  },
  async waits() {
    const { known, unknown, burstEmail } = input;
    const start = clock;
    const sequence = { known: [], unknown: [] };
    let lockedAfter;
    // 6 free guesses, then a throttled one and a counted one per wait: 194 to reach the limit.
    for (let attempt = 0; attempt < 200; attempt++) {
      const a = await signIn(known, 'guess ' + attempt);
      const b = await signIn(unknown, 'guess ' + attempt);
      sequence.known.push(a.outcome);
      sequence.unknown.push(b.outcome);
      if (a.outcome === 'locked') lockedAfter ??= (clock - start) / 1000;
      // The attacker's best: each guess the moment its wait ends.
      if (a.outcome === 'throttled') clock += a.retryAfterSeconds * 1000;
    }
    const burst = await Promise.all(Array.from({ length: 300 }, (_, i) => signIn(burstEmail, 'burst ' + i)));
    return { sequence, lockedAfter, burst: burst.map((r) => r.outcome) };
  },
  async costly() {
    const { quietEmail, quietPassword, costly } = input;
    const quiet = [];
    for (let i = 0; i < 12; i++) quiet.push(await timed(() => signIn(quietEmail, quietPassword)));
    const restKb = memory('VmRSS');
    let settled = false;
    const guesses = Promise.all(costly.map((email, i) => signIn(email, 'wrong guess ' + i))).finally(() => (settled = true));
    const burst = [];
    while (!settled || burst.length < 6) burst.push(await timed(() => signIn(quietEmail, quietPassword)));
    const outcomes = (await guesses).map((r) => r.outcome);
    return { quietMs: median(quiet.slice(2)), burstMs: median(burst), samples: burst.length, outcomes, restKb, peakKb: memory('VmHWM') };
  },
};
const result = await scenarios[input.scenario]();
await users.close();
console.log(JSON.stringify(result));
`;

/** Runs a scenario of the tool's script on Node 20 (where the machine has it); resolves with its JSON. */
function runTool(input: Record<string, unknown>, options: SpawnOptions = {}): Promise<Record<string, unknown>> {
  const full = {
    usersTable: config.usersTableName,
    signInTable: config.signInTableName,
    argon2Setting: formatArgon2Setting(config.argon2),
    endpoint: process.env.DYNAMODB_ENDPOINT!,
    ...input,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(nodeBinary(20), ['tool.mjs', JSON.stringify(full)], {
      cwd: installed.dir,
      env: strangerEnv(20),
      ...options,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || stderr.replace(SDK_NOTICES, '') !== '')
        reject(new Error(`tool.mjs ${String(input.scenario)}: exit ${code}\n${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

let owner: { ownerEmail: string; apiKey: string; ownerId: string };
const create = async (email: string, password: string) =>
  expect((await invoke(createUser, { user_email: email, user_password: password }, owner.apiKey)).status).toBe(200);
/** Imports users with these hashes through the admin CLI, as an operator does. */
async function importHashes(users: readonly { email: string; hash: string }[]) {
  const file = join(workdir, `import-${users[0]!.email}.jsonl`);
  writeFileSync(file, users.map((u) => JSON.stringify({ user_email: u.email, password_hash: u.hash })).join('\n'));
  const run = await runScript('admin/cli.ts', ['import-users', owner.ownerEmail, file], { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' });
  expect([run.code, run.stderr]).toEqual([0, '']);
}

describe('every scenario of the data contract, through the installed package on Node.js 20', () => {
  beforeAll(async () => {
    writeFileSync(join(installed.dir, 'tool.mjs'), TOOL_SCRIPT);
    const made = await newOwner('package');
    owner = { ...made, ownerId: (await stores.owners.findOwner(made.ownerEmail))!.ownerId };
  });

  it('a plain Node.js script signs in, answers must-reset for a typo after byte 72, and changes the password', async () => {
    const [email, bcryptEmail] = [uniqueEmail('package'), uniqueEmail('package-bcrypt')];
    await create(email, 'from the built module');
    const real = `${'correct horse battery staple '.repeat(3)}and a long tail`;
    await importHashes([{ email: bcryptEmail, hash: bcrypt.hashSync(real, 4) }]);
    const typo = `${real.slice(0, 72)}TYPO-after-byte-72`;
    const result = await runTool({
      scenario: 'flow',
      ownerId: owner.ownerId,
      email,
      password: 'from the built module',
      bcryptEmail,
      real,
      typo,
    });
    expect(Number((result.node as string).split('.')[0])).toBeGreaterThanOrEqual(20);
    expect(result.outcomes).toEqual(['ok', 'wrong', 'ok', 'must-reset', 'must-reset', 'ok', 'wrong']);
    expect(result.refused).toEqual({
      outcome: 'refused',
      reason: 'guessable',
      message: 'new_password is too easy to guess: choose another.',
    });
    // A change carries a fresh device cookie: withoutCookie checks it is there, then sets it aside.
    expect(withoutCookie(result.changed as { outcome: string })).toEqual({ outcome: 'changed' });
  }, 60_000);

  it('forced every run: a reset that lands while the old password is being verified wins, the sign-in answers wrong', async () => {
    const email = uniqueEmail('package-race');
    // bcrypt cost 14, verified in the costly lane at the lowest priority: over a second in which to reset.
    await importHashes([{ email, hash: bcrypt.hashSync('the old password', 14) }]);
    const signingIn = runTool({ scenario: 'race', ownerId: owner.ownerId, email, password: 'the old password' });
    const stateOf = async () =>
      (
        await stores.client.send(
          new GetCommand({ TableName: config.signInTableName, Key: signInStateKey(owner.ownerId, email), ConsistentRead: true }),
        )
      ).Item;
    // Counted means verifying now: reset then.
    await waitFor(async () => ((await stateOf())?.failures === 1 ? true : undefined), 30_000, 'the attempt counted');
    expect((await invoke(resetUserPassword, { user_email: email, new_password: 'the new password' }, owner.apiKey)).status).toBe(200);
    expect(await signingIn).toEqual({ outcome: 'wrong' });
  }, 120_000);

  it('the waits hold under a fake clock; an unknown e-mail answers the same 200 times; 300 parallel guesses verify six', async () => {
    const [known, unknown, burstEmail] = [uniqueEmail('package-known'), uniqueEmail('package-unknown'), uniqueEmail('package-burst')];
    await create(known, 'known password');
    await create(burstEmail, 'burst password');
    const result = (await runTool({ scenario: 'waits', fakeClock: true, ownerId: owner.ownerId, known, unknown, burstEmail })) as {
      sequence: { known: string[]; unknown: string[] };
      lockedAfter: number;
      burst: string[];
    };
    expect(result.sequence.unknown).toEqual(result.sequence.known);
    expect(result.sequence.known.filter((o) => o === 'wrong')).toHaveLength(UNTRUSTED_FAILURE_LIMIT);
    expect(new Set(result.sequence.known)).toEqual(new Set(['wrong', 'throttled', 'locked']));
    expect(result.lockedAfter).toBeGreaterThanOrEqual(24 * 3600);
    expect(result.lockedAfter).toBe(fastestLockoutSeconds());
    expect([result.burst.filter((o) => o === 'wrong').length, result.burst.filter((o) => o === 'throttled').length]).toEqual([6, 294]);
    const state = await stores.client.send(
      new GetCommand({ TableName: config.signInTableName, Key: signInStateKey(owner.ownerId, burstEmail), ConsistentRead: true }),
    );
    expect(state.Item?.failures).toBe(6);
  }, 300_000);

  describe('changePassword and the stream', () => {
    let delivery: Awaited<ReturnType<typeof startTestDelivery>>;
    beforeAll(async () => {
      delivery = await startTestDelivery();
    }, 60_000);
    afterAll(() => delivery?.stop());

    it('a blocklisted password is refused with the reason; a good one emits exactly one UserPasswordReset', async () => {
      const [bcryptEmail, marker] = [uniqueEmail('package-event'), uniqueEmail('package-marker')];
      const real = `${'correct horse battery staple '.repeat(3)}and a long tail`;
      await importHashes([{ email: bcryptEmail, hash: bcrypt.hashSync(real, 4) }]);
      const typo = `${real.slice(0, 72)}TYPO`;
      const email = uniqueEmail('package-other');
      await create(email, 'another password');
      const result = await runTool({
        scenario: 'flow',
        ownerId: owner.ownerId,
        email,
        password: 'another password',
        bcryptEmail,
        real,
        typo,
      });
      expect([result.refused, withoutCookie(result.changed as { outcome: string })]).toEqual([
        { outcome: 'refused', reason: 'guessable', message: 'new_password is too easy to guess: choose another.' },
        { outcome: 'changed' },
      ]);
      await create(marker, 'marker password');
      const of = (who: string) => delivery.events().filter((e) => e.detail.user_email === who && e.detail.owner_id === owner.ownerId);
      await waitFor(() => of(marker)[0], 30_000, "the marker's UserCreated");
      expect(of(bcryptEmail).map((e) => e['detail-type'])).toEqual(['UserCreated', 'UserPasswordReset']);
      expect(of(email).map((e) => e['detail-type'])).toEqual(['UserCreated']);
    }, 120_000);
  });

  it('8 parallel wrong guesses at ceiling hashes: a stage-setting sign-in within 2x its quiet time, memory within the bound', async () => {
    const argon2 = await argon2Hash('the ceiling password', { algorithm: 2, memoryCost: 262_144, timeCost: 10, parallelism: 8 });
    const bcrypt14 = bcrypt.hashSync('the ceiling password', 14);
    const pbkdf2 = `pbkdf2_sha256$2000000$ceilingsalt$${pbkdf2Sync('the ceiling password', 'ceilingsalt', 2_000_000, 32, 'sha256').toString('base64')}`;
    const ceilings = [argon2, argon2, argon2, bcrypt14, bcrypt14, bcrypt14, pbkdf2, pbkdf2].map((hash) => ({
      email: uniqueEmail('ceiling'),
      hash,
    }));
    await importHashes(ceilings);
    const quietEmail = uniqueEmail('quiet');
    await create(quietEmail, 'the quiet password');
    const result = (await runTool({
      scenario: 'costly',
      ownerId: owner.ownerId,
      quietEmail,
      quietPassword: 'the quiet password',
      costly: ceilings.map((c) => c.email),
    })) as { quietMs: number; burstMs: number; samples: number; outcomes: string[]; restKb: number; peakKb: number };
    // The bound the data contract states: at rest, plus one argon2 verification at the import's ceiling per place
    // (one place), plus four at the stage's setting on libuv's pool, plus 64 MiB for the worker thread and buffers.
    const boundKb = result.restKb + HASH_CEILINGS.argon2.memoryKiB + 4 * config.argon2.memoryCost + LANE_OVERHEAD_MIB * 1024;
    console.log(JSON.stringify({ ...result, boundKb, ratio: result.burstMs / result.quietMs }));
    expect(result.outcomes.every((o) => o === 'wrong' || o === 'busy')).toBe(true);
    expect(result.outcomes).toContain('wrong');
    expect(result.peakKb).toBeLessThanOrEqual(boundKb);
    expect(result.burstMs).toBeLessThanOrEqual(2 * result.quietMs);
  }, 300_000);
});
