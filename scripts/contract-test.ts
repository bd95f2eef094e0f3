/**
 * `npm run test:contract`: contract tests that Portman (@apideck/portman) generates from the OpenAPI
 * document a running API serves (`GET /openapi.json`), run by newman against that API.
 *
 * Set API_KEY to an owner's key (`npm start` prints the development owner's). The API is BASE_URL,
 * or the `baseUrl` that `npm start` wrote to `.data/sign-in.json`. Portman checks each operation's
 * 200 and, with the variations in {@link portmanConfig}, its 400 (fuzzed requests), 401, 404, 409,
 * 415 and 422: the status, the content type, a JSON body, and the body against the response's
 * schema. Prints every request and check, then the requests per status; exit 0 when every check
 * passed. `--report <file>` keeps newman's JSON report (it holds the key).
 */

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Portman 1.33 requires tslib at run time but lists it only among its devDependencies: the AWS SDK's copy is the one it finds.
const PORTMAN = join(dirname(createRequire(import.meta.url).resolve('@apideck/portman/package.json')), 'bin/portman');
const DESCRIPTOR = '.data/sign-in.json';

/** Portman's checks of one answer: its status, a JSON content type and body, the body against the response's schema. */
const checks = (code: number) => ({
  contractTests: [
    {
      statusCode: { enabled: true, code },
      contentType: { enabled: true },
      jsonBody: { enabled: true },
      schemaValidation: { enabled: true },
      headersPresent: { enabled: true },
    },
  ],
});
const body = (key: string, value: string) => ({ overwriteRequestBody: [{ key, value }] });
const header = (key: string, value: string) => ({ overwriteRequestHeaders: [{ key, value }] });
/** A request of the operations `target` names (an operationId, or `*::/*` for all), changed so that the answer is `response`. */
const variation = (target: string, response: number, name: string, changes: { overwrites?: object[]; fuzzing?: object[] }) => ({
  [target.includes('::') ? 'openApiOperation' : 'openApiOperationId']: target,
  openApiResponse: String(response),
  variations: [{ name, ...changes, tests: checks(response) }],
});
/** Each run's own user and Idempotency-Key (`{{runId}}`), so that a run against the same API again passes too. */
const taken = body('user_email', 'taken-{{runId}}@example.com');
const fuzz = { requiredFields: { enabled: true }, minLengthFields: { enabled: true }, maxLengthFields: { enabled: true } };

/**
 * What Portman generates: every operation's request from the document's example (a fresh
 * Idempotency-Key each), expecting its 200, in the document's order (create, reset, delete one
 * user); then the variations. Fuzzing drops required fields and goes past each length limit.
 */
const portmanConfig = {
  version: 1,
  globals: {
    collectionPreRequestScripts: [
      "if (!pm.collectionVariables.has('runId')) pm.collectionVariables.set('runId', pm.variables.replaceIn('{{$guid}}'));",
    ],
  },
  overwrites: [{ openApiOperation: '*::/*', ...header('Idempotency-Key', '{{$guid}}') }],
  tests: {
    contractTests: [{ openApiOperation: '*::/*', openApiResponse: '200', ...checks(200).contractTests[0] }],
    variationTests: [
      variation('*::/*', 401, 'Unknown API key', {
        overwrites: [{ overwriteRequestSecurity: { apiKey: { value: 'wlk_not-a-key-anyone-issued' } } }],
      }),
      variation('*::/*', 400, 'Invalid', { fuzzing: [{ requestBody: [fuzz], requestHeaders: [fuzz] }] }),
      variation('*::/*', 415, 'Not JSON', { overwrites: [header('Content-Type', 'text/plain')] }),
      variation('*::/*', 404, 'No such user', { overwrites: [body('user_email', 'nobody-{{runId}}@example.com')] }),
      variation('createUser', 200, 'Another user', { overwrites: [taken, header('Idempotency-Key', '{{runId}}')] }),
      variation('createUser', 409, 'Existing user', { overwrites: [taken] }),
      variation('resetUserPassword', 422, 'Idempotency-Key of another request', {
        overwrites: [taken, header('Idempotency-Key', '{{runId}}')],
      }),
      variation('deleteUser', 200, 'Another user', { overwrites: [taken] }),
    ],
  },
};

/** The part of newman's JSON report read here. */
export interface NewmanReport {
  readonly run: {
    readonly executions: readonly { readonly response?: { readonly code: number } }[];
    readonly stats: { readonly assertions: { readonly total: number; readonly failed: number } };
    readonly failures: readonly { readonly source?: { readonly name?: string }; readonly error: { readonly message: string } }[];
  };
}

/** How many requests got each status, as `200: 5, 400: 14`. */
export function requestsPerStatus(report: NewmanReport): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { response } of report.run.executions) {
    const status = String(response?.code ?? 'no response');
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

function baseUrl(): string {
  if (process.env.BASE_URL) return process.env.BASE_URL.replace(/\/+$/, '');
  if (existsSync(DESCRIPTOR)) return (JSON.parse(readFileSync(DESCRIPTOR, 'utf8')) as { baseUrl: string }).baseUrl;
  throw new Error(`Set BASE_URL to the API's address, or start the API with npm start (it writes ${DESCRIPTOR}).`);
}

function main(): number {
  const apiKey = process.env.API_KEY;
  if (!apiKey) throw new Error('Set API_KEY to an owner API key: npm start prints the development owner\'s ("export API_KEY=...").');
  const base = baseUrl();
  const reportArg = process.argv.indexOf('--report');
  const keep = reportArg === -1 ? undefined : resolve(process.argv[reportArg + 1] ?? 'contract-report.json');
  // Portman writes its working files (the key among them) under its working directory: a temporary one.
  const work = mkdtempSync(join(tmpdir(), 'contract-test-'));
  try {
    const report = join(work, 'report.json');
    const config = join(work, 'portman-config.json');
    writeFileSync(config, JSON.stringify(portmanConfig));
    const newman = { abortOnFailure: false, reporters: ['cli', 'json'], reporter: { json: { export: report } } };
    const args = ['-u', `${base}/openapi.json`, '-b', base, '-c', config, '-n'];
    spawnSync(process.execPath, [PORTMAN, ...args, '--newmanRunOptions', JSON.stringify(newman)], {
      cwd: work,
      env: { ...process.env, PORTMAN_API_KEY: apiKey },
      stdio: 'inherit',
    });
    if (!existsSync(report)) throw new Error(`Portman ran no tests against ${base} (its output is above).`);
    if (keep) copyFileSync(report, keep);
    const result = JSON.parse(readFileSync(report, 'utf8')) as NewmanReport;
    const perStatus = Object.entries(requestsPerStatus(result)).map(([status, count]) => `${status}: ${count}`);
    const { total, failed } = result.run.stats.assertions;
    console.log(`Requests per status: ${perStatus.join(', ')}. Checks: ${total - failed} passed, ${failed} failed.`);
    return failed === 0 && result.run.failures.length === 0 && total > 0 ? 0 : 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = main();
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 1;
  }
}
