/**
 * The prose held to the repository (test/support/docs-truth.ts): docs/local.md's variables and
 * defaults, every admin command and option the docs show, every repository path and cited
 * section, and where every figure comes from. Each check is also run on an edited copy of the
 * repository, to show it fails on the mismatch it exists for.
 */

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_EVENTS_FILE } from '#events/file-sink';
import { formatArgon2Setting, readConfig, readPasswordPolicy, readPasswordSettings } from '#platform/config';
import { metricsNamespace } from '#platform/metrics';
import { localEngine } from '#store/local-engine';
import { checkAdminOptions, checkFigures, checkLocalVariables, checkPaths, checkSections } from '../support/docs-truth';
import { ROOT, runScript } from '../support/processes';

/** Runs `read` with these variables unset, so it sees the code's own defaults. */
function unset<T>(names: string[], read: () => T): T {
  const saved = names.map((name) => [name, process.env[name]] as const);
  for (const name of names) delete process.env[name];
  try {
    return read();
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}

/** Each variable's default as the code has it (a variable the table adds needs its line here). */
const CODE_DEFAULTS: Record<string, string> = {
  PORT:
    /const DEFAULT_PORT = (\d+);/.exec(readFileSync(join(ROOT, 'local/start.ts'), 'utf8'))?.[1] ??
    'DEFAULT_PORT not found in local/start.ts',
  DYNAMODB_PORT: String(localEngine({}).port),
  DYNAMODB_ENDPOINT: localEngine({}).external ? localEngine({}).endpoint : 'unset',
  PASSWORD_MIN_LENGTH: String(unset(['PASSWORD_MIN_LENGTH', 'PASSWORD_MAX_LENGTH'], readPasswordPolicy).minLength),
  PASSWORD_MAX_LENGTH: String(unset(['PASSWORD_MIN_LENGTH', 'PASSWORD_MAX_LENGTH'], readPasswordPolicy).maxLength),
  ARGON2_SETTING: formatArgon2Setting(unset(['ARGON2_SETTING'], readPasswordSettings).argon2),
  API_KEY_CACHE_TTL_SECONDS: String(unset(['API_KEY_CACHE_TTL_SECONDS'], readConfig).apiKeyCacheTtlMs / 1000),
  POWERTOOLS_LOG_LEVEL: unset(['POWERTOOLS_LOG_LEVEL', 'AWS_LAMBDA_LOG_LEVEL', 'LOG_LEVEL'], () => new Logger().getLevelName()),
  EVENTS_FILE: DEFAULT_EVENTS_FILE,
  PWNED_PASSWORDS_URL: unset(['PWNED_PASSWORDS_URL'], readConfig).pwnedPasswordsUrl ?? 'unset',
  POWERTOOLS_METRICS_NAMESPACE: metricsNamespace('local'),
};

/** Variables the configuration reads that are not for a person running `npm start`. */
const NOT_FOR_NPM_START: Record<string, string> = {
  USERS_TABLE_NAME: "npm start names its local tables itself; a deployed function gets the stack's",
  OWNERS_TABLE_NAME: "npm start names its local tables itself; a deployed function gets the stack's",
  IDEMPOTENCY_TABLE_NAME: "npm start names its local tables itself; a deployed function gets the stack's",
  DELETIONS_TABLE_NAME: "npm start names its local tables itself; a deployed function gets the stack's",
  UNDELIVERED_EVENTS_TABLE_NAME: "npm start names its local tables itself; a deployed function gets the stack's",
  EVENT_BUS_NAME: 'the deployed event consumer only (npm start writes EVENTS_FILE)',
  RECOVERY_PERIOD_DAYS: 'a stage setting (docs/deploy.md), handed to the deployed consumer',
  UNDELIVERED_EVENT_DAYS: 'a stage setting (docs/deploy.md), handed to the deployed consumer',
  POWERTOOLS_SERVICE_NAME: 'npm start sets it',
};

/**
 * Figures that are settings, limits or arithmetic, not measurements (exact text as written, and
 * why). Anything else with a unit the bench measures must come from bench/RESULTS.md or say when
 * it was measured.
 */
const NOT_MEASURED: Record<string, string> = {
  '500 ms': 'the function answers a looming Lambda timeout 500 ms before it (a setting)',
  '1 %': "the api-5xx-rate alarm's threshold",
  '30 %': "test/slow/import-memory.test.ts's bound on peak memory",
  '400 KB': "DynamoDB's item size limit",
  '1 KB': "DynamoDB's write unit (AWS's words, quoted in docs/capacity.md)",
  '4 KB': "DynamoDB's read unit (AWS's words, quoted in docs/capacity.md)",
  '1 MB': "the client package's installed-size target (test/processes/client-package.test.ts)",
  '100 requests/s': "prod's stage throttle, and the cost estimate's example load",
  '16 KB': "WAF's included body inspection",
  '300 ms': "npm start's stream-read and retry interval (a setting)",
  '250 ms': "the import progress bar's redraw interval",
  '8.5 MB': 'arithmetic: 85 bytes per e-mail seen, times 100,000 lines',
  '2 MB': 'arithmetic: 10,000 digests of 64 hex characters',
  '6 MB': "Lambda's payload limit",
  '10 MB': "API Gateway's payload limit",
  '300 KB': "the bench's bundle-size target",
  '1 MiB': "the import's line-length limit",
  '10,000 ms': 'the shortest function timeout, which bounds latencyAlarmP99Ms',
  '0.05 ms': "the password checks' CPU target",
  '50 MB': "Lambda's limit for a zipped deployment package",
  '20 %': "staging's X-Ray sampling rate (a stage setting)",
  '100 %': "dev's X-Ray sampling rate (a stage setting)",
  '256 MiB': "argon2's memory at the import ceiling, m=262,144 KiB (arithmetic)",
  '7 MiB': "the default argon2id setting's memory, m=7,168 KiB (arithmetic)",
  '64 MiB': "the sign-in's allowance for the costly lane's worker thread in its stated memory bound (sign-in-package.test.ts holds it)",
};

/** Variables a library reads by itself. */
const READ_BY_LIBRARIES: Record<string, string> = { POWERTOOLS_LOG_LEVEL: 'Powertools Logger' };

/** Paths a how-to tells the reader to create. */
const EXAMPLE_PATHS: Record<string, string> = { 'functions/suspendUser/handler.ts': 'CONTRIBUTING, "Adding an operation"' };

let help = '';
const claims: Record<string, number> = {};
beforeAll(async () => {
  const run = await runScript('admin/cli.ts', ['--help'], process.env);
  expect(run.code).toBe(0);
  help = run.stdout;
}, 60_000);

describe('the documents hold against the repository', () => {
  const hold = (name: string, result: { claims: number; problems: string[] }) => {
    claims[name] = result.claims;
    expect(result.problems).toEqual([]);
    expect(result.claims).toBeGreaterThan(0);
  };

  it("docs/local.md's variable table: every name the configuration reads, with its default", () =>
    hold('variables', checkLocalVariables(ROOT, CODE_DEFAULTS, NOT_FOR_NPM_START, READ_BY_LIBRARIES)));
  it('every admin command and option the docs show is in --help', () => hold('admin', checkAdminOptions(ROOT, help)));
  it('every repository path named in backticks exists', () => hold('paths', checkPaths(ROOT, EXAMPLE_PATHS)));
  it('every relative link and anchor resolves; every README section cited by name exists', () => hold('sections', checkSections(ROOT)));
  it('every figure with a unit the bench measures is in bench/RESULTS.md, dated, or a setting', () =>
    hold('figures', checkFigures(ROOT, NOT_MEASURED)));

  it('every command of --help answers `<command> --help` with the usage and exit 0', async () => {
    const commands = [...help.matchAll(/^ {2}([a-z][a-z-]+) /gm)].map((match) => match[1]!);
    expect(commands.length).toBeGreaterThanOrEqual(8);
    const runs = await Promise.all(commands.map((command) => runScript('admin/cli.ts', [command, '--help'], process.env)));
    expect(runs.map((run, i) => [commands[i], run.code, run.stdout, run.stderr])).toEqual(
      commands.map((command) => [command, 0, help, '']),
    );
  }, 120_000);
});

afterAll(() => {
  if (Object.keys(claims).length === 5) console.log(`docs-truth: ${JSON.stringify(claims)}`);
});

describe('each check fails on a document that says otherwise (an edited copy of the repository)', () => {
  const copies: string[] = [];
  afterAll(() => {
    for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  });

  /** The repository with these files edited: edited folders copied, the rest linked. */
  function editedCopy(edits: Record<string, (text: string) => string>): string {
    const root = mkdtempSync(join(tmpdir(), 'docs-truth-'));
    copies.push(root);
    const touched = new Set(Object.keys(edits).map((file) => file.split('/')[0]!));
    for (const entry of readdirSync(ROOT)) {
      if (entry === '.git') continue;
      if (touched.has(entry)) cpSync(join(ROOT, entry), join(root, entry), { recursive: true });
      else symlinkSync(join(ROOT, entry), join(root, entry));
    }
    for (const [file, edit] of Object.entries(edits)) {
      const before = readFileSync(join(root, file), 'utf8');
      const after = edit(before);
      expect(after).not.toBe(before);
      writeFileSync(join(root, file), after);
    }
    return root;
  }
  const replace = (from: string | RegExp, to: string) => (text: string) => text.replace(from, to);

  it('a default changed in docs/local.md', () => {
    const root = editedCopy({
      'docs/local.md': replace(
        '| `PORT`                                       | `3000`',
        '| `PORT`                                       | `3001`',
      ),
    });
    expect(checkLocalVariables(root, CODE_DEFAULTS, NOT_FOR_NPM_START, READ_BY_LIBRARIES).problems).toEqual([
      expect.stringMatching(/^docs\/local\.md:\d+: PORT defaults to 3000, the table says 3001$/),
    ]);
  });

  it('a variable the configuration reads and the table does not list', () => {
    const root = editedCopy({
      'functions/shared/platform/config.ts': (text) => `${text}\nexport const extra = () => process.env.SIGN_IN_LOCKOUT_MINUTES;\n`,
    });
    expect(checkLocalVariables(root, CODE_DEFAULTS, NOT_FOR_NPM_START, READ_BY_LIBRARIES).problems).toEqual([
      'docs/local.md: SIGN_IN_LOCKOUT_MINUTES is read by the configuration and not in the variable table',
    ]);
  });

  it('an admin option or command the docs show and --help does not', () => {
    const root = editedCopy({
      'docs/operations.md': (text) =>
        `${text}\n\`npm run -s admin -- issue-key a@example.com --colour\` and \`npm run admin -- rotate-all\`\n`,
    });
    expect(checkAdminOptions(root, help).problems).toEqual([
      expect.stringMatching(/^docs\/operations\.md:\d+: issue-key --colour is not in --help$/),
      expect.stringMatching(/^docs\/operations\.md:\d+: admin command rotate-all is not in --help$/),
    ]);
  });

  it('a path that moved, unless the line says where to', () => {
    const root = editedCopy({
      'docs/adr/0005-item-collection-delete.md': replace('`functions/shared/store/table-layout.ts`', '`functions/shared/table-layout.ts`'),
      'docs/adr/0007-key-last-use.md': replace(
        '`functions/shared/domain/key-use.ts`',
        '`functions/shared/key-use.ts` (moved to `functions/shared/domain/key-use.ts`)',
      ),
    });
    expect(checkPaths(root, EXAMPLE_PATHS).problems).toEqual([
      expect.stringMatching(/^docs\/adr\/0005-item-collection-delete\.md:\d+: `functions\/shared\/table-layout\.ts` does not exist$/),
    ]);
  });

  it('a README section renamed under a citation, and a link to a heading that is gone', () => {
    const root = editedCopy({
      'README.md': replace('## Owners and API keys', '## Owners and keys'),
      'docs/deploy.md': replace('## Edge limits', '## Limits at the edge'),
      // A citation by name, as a sentence of prose would make it.
      'docs/local.md': (text: string) => `${text}\nKeys: see the README, "Owners and API keys".\n`,
    });
    expect(checkSections(root).problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^docs\/local\.md:\d+: the README has no section "Owners and API keys"$/),
        expect.stringMatching(
          /^docs\/api-contract\.md:\d+: link to \.\.\/README\.md#owners-and-api-keys: no heading #owners-and-api-keys in README\.md$/,
        ),
        expect.stringMatching(
          /^docs\/adr\/0010-edge-limits-waf\.md:\d+: link to \.\.\/deploy\.md#edge-limits: no heading #edge-limits in docs\/deploy\.md$/,
        ),
      ]),
    );
  });

  it('a figure from no bench run, unless dated; a figure of the committed run passes', () => {
    // A figure the committed run printed (its first CPU-per-hash cell), whatever run is committed.
    const committed = readFileSync(join(ROOT, 'bench/RESULTS.md'), 'utf8').match(/\| m=\d+,t=\d,p=1 +\| (\d+\.\d+) /)![1];
    const root = editedCopy({
      'docs/operations.md': (text) =>
        `${text}\nA create costs 12.5 ms of CPU.\n\nA reset cost 13.5 ms (measured 2026-11-25).\n\nA hash is ${committed} ms at the default.\n`,
    });
    expect(checkFigures(root, NOT_MEASURED).problems).toEqual([
      expect.stringMatching(
        /^docs\/operations\.md:\d+: 12\.5 ms is not in bench\/RESULTS\.md, and its paragraph does not say when it was measured$/,
      ),
    ]);
  });
});
