/**
 * The shipped artifact, run as Lambda runs it: each synthesized function asset (index.mjs and the
 * arm64 argon2 binary that `cdk deploy` uploads) loaded by the registry's arm64 Node 24 under
 * qemu-user, against the suite's DynamoDB Local, one success and one refusal per operation.
 * Needs qemu-user-static (apt) and what scripts/arm64-runtime.sh fetches (run here when missing).
 * Its own jest project: `npm test -- --selectProjects arm64`; `.ci/run` runs it.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { type Case, EXAMPLE_OWNER_EMAIL, EXAMPLE_USER_EMAIL, GIVEN_NO_USER } from '#contract/define-operation';
import { actsOnExistingUser, DEFINITIONS } from '#contract/operations';
import { handler as createUserHandler } from '../../functions/createUser/handler';
import { OPERATIONS, type Operation } from '../../lib/user-management-stack';
import { proxyEvent } from '../../local/lambda-runtime';
import { synthAssets } from '../infra/synth';
import { invoke } from '../support/events';
import { newOwner, uniqueEmail } from '../support/local';
import { ROOT } from '../support/processes';

const QEMU = '/usr/bin/qemu-aarch64-static';

/** Calls the asset's handler with each event in turn, as Lambda would; prints the results as one JSON line. */
const HARNESS = `
import { readFileSync } from 'node:fs';
const [asset, eventsFile] = process.argv.slice(2);
const started = Date.now();
const { handler } = await import(asset);
const imported = Date.now() - started;
const results = [];
for (const event of JSON.parse(readFileSync(eventsFile, 'utf8'))) {
  const deadline = Date.now() + 60_000;
  const context = { awsRequestId: 'arm64', functionName: 'arm64', getRemainingTimeInMillis: () => deadline - Date.now() };
  const response = await handler(event, context);
  results.push({ statusCode: response.statusCode, body: JSON.parse(response.body) });
}
process.stdout.write(JSON.stringify({ arch: process.arch, node: process.version, imported, results }) + '\\n');
`;

let workDir: string;
let runtime: { node: string; sysroot: string };
let assets: Record<Operation, string>;

beforeAll(() => {
  if (!existsSync(QEMU)) throw new Error(`No ${QEMU}: apt-get install -y qemu-user-static (.ci/run does)`);
  const dir = join(ROOT, execFileSync(join(ROOT, 'scripts/arm64-runtime.sh'), { encoding: 'utf8' }).trim());
  runtime = { node: join(dir, 'node/bin/node'), sysroot: join(dir, 'sysroot') };
  workDir = mkdtempSync(join(tmpdir(), 'arm64-assets-'));
  writeFileSync(join(workDir, 'harness.mjs'), HARNESS);
  assets = synthAssets(join(workDir, 'cdk.out'));
}, 600_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** Runs one asset's handler on arm64 with these bodies, each under the given key. */
function runOnArm64(operation: Operation, calls: { body: unknown; apiKey: string }[]) {
  const eventsFile = join(workDir, `${operation}-events.json`);
  const events = calls.map(({ body, apiKey }) =>
    proxyEvent({
      path: `/v1/${operation}`,
      headers: { 'Content-Type': 'application/json', 'X-API-Key': apiKey },
      body: JSON.stringify(body),
    }),
  );
  writeFileSync(eventsFile, JSON.stringify(events));
  const output = execFileSync(
    QEMU,
    ['-L', runtime.sysroot, runtime.node, join(workDir, 'harness.mjs'), join(assets[operation], 'index.mjs'), eventsFile],
    {
      encoding: 'utf8',
      timeout: 240_000,
      // What Lambda gives the function: the stack's environment, and the role's credentials in variables.
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
        USERS_TABLE_NAME: process.env.USERS_TABLE_NAME,
        OWNERS_TABLE_NAME: process.env.OWNERS_TABLE_NAME,
        IDEMPOTENCY_TABLE_NAME: process.env.IDEMPOTENCY_TABLE_NAME,
        SIGN_IN_TABLE_NAME: process.env.SIGN_IN_TABLE_NAME,
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        POWERTOOLS_SERVICE_NAME: 'user-management-arm64',
        NODE_OPTIONS: '--enable-source-maps',
      },
    },
  );
  // stdout carries the harness's one result line beside the function's metric lines (CloudWatch EMF), as in Lambda.
  const lines = output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const result = lines.find((line) => 'results' in line);
  if (!result) throw new Error(`the harness printed no result:\n${output}`);
  return {
    ...(result as { arch: string; node: string; imported: number; results: { statusCode: number; body: unknown }[] }),
    metricLines: lines.filter((line) => '_aws' in line).length,
  };
}

it.each(OPERATIONS)(
  '%s: the asset loads its arm64 argon2 binary on Node 24 arm64 and answers a success and a refusal',
  async (operation) => {
    const { apiKey, ownerEmail } = await newOwner(`arm64-${operation}`);
    const email = uniqueEmail(`arm64-${operation.toLowerCase()}`);
    const password = 'correct horse battery staple';
    // The user the operation acts on, when it acts on one, created by the in-process handler.
    const existing = actsOnExistingUser(operation) ? [{ user_email: email, user_password: password }] : [];
    const made = await Promise.all(existing.map((body) => invoke(createUserHandler, body, apiKey)));
    expect(made.map(({ status, body }) => [status, body])).toEqual(existing.map((body) => [200, body]));
    // The module's documented success and its first documented refusal, about this test's users.
    const exampleUser = new RegExp(EXAMPLE_USER_EMAIL.replaceAll('.', '\\.'), 'gi');
    const nobody = uniqueEmail('nobody');
    const { docs } = DEFINITIONS[operation];
    const cases = [docs.success, docs.refusals[0]!].map(
      (documented: Case) =>
        JSON.parse(
          JSON.stringify([documented.request, documented.status, documented.response])
            .replaceAll(EXAMPLE_OWNER_EMAIL, ownerEmail)
            .replace(exampleUser, documented.given === GIVEN_NO_USER ? nobody : email),
        ) as [unknown, number, unknown],
    );
    const run = runOnArm64(
      operation,
      cases.map(([body]) => ({ body, apiKey })),
    );
    expect({ arch: run.arch, node: run.node.split('.')[0] }).toEqual({ arch: 'arm64', node: 'v24' });
    expect(run.results).toEqual(cases.map(([, statusCode, body]) => ({ statusCode, body })));
    // The metrics middleware loaded and flushed on arm64 too: one EMF line per request.
    expect(run.metricLines).toBe(cases.length);
  },
  300_000,
);
