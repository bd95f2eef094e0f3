/**
 * What the docs claim about the code, held to the code: docs/local.md's variables and defaults
 * (test/support/docs-truth.ts), every repository path, link and cited section, every command and
 * `--option` the docs show against the help of the command it is written with
 * (test/support/docs-options.ts). No wording or figure is checked (ADR 29). Each check is also run
 * on an edited copy of the repository, to show it fails on the mismatch it exists for.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_EVENTS_FILE } from '#events/file-sink';
import { formatArgon2Setting, readConfig, readPasswordPolicy, readPasswordSettings } from '#platform/config';
import { metricsNamespace } from '#platform/metrics';
import { localEngine } from '#store/local-engine';
import { commandUsage, usageCommands } from '../../admin/command-usage';
import { checkOptions, type HelpTexts, helpTexts, scriptOptions } from '../support/docs-options';
import { checkLocalVariables, checkPaths, checkSections, editedCopy } from '../support/docs-truth';
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
  SITE_PORT:
    /const DEFAULT_SITE_PORT = (\d+);/.exec(readFileSync(join(ROOT, 'local/demo.ts'), 'utf8'))?.[1] ??
    'DEFAULT_SITE_PORT not found in local/demo.ts',
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
  SIGN_IN_TABLE_NAME: "npm start names its local tables itself; a deployed function gets the stack's",
  DELETIONS_TABLE_NAME: "npm start names its local tables itself; a deployed function gets the stack's",
  UNDELIVERED_EVENTS_TABLE_NAME: "npm start names its local tables itself; a deployed function gets the stack's",
  EVENT_BUS_NAME: 'the deployed event consumer only (npm start writes EVENTS_FILE)',
  RECOVERY_PERIOD_DAYS: 'a stage setting (docs/deploy.md), handed to the deployed consumer',
  UNDELIVERED_EVENT_DAYS: 'a stage setting (docs/deploy.md), handed to the deployed consumer',
  POWERTOOLS_SERVICE_NAME: 'npm start sets it',
};

/** Variables a library reads by itself. */
const READ_BY_LIBRARIES: Record<string, string> = { POWERTOOLS_LOG_LEVEL: 'Powertools Logger' };

/** Paths a how-to tells the reader to create, or a command writes. */
const EXAMPLE_PATHS: Record<string, string> = {
  'functions/suspendUser/handler.ts': 'CONTRIBUTING, "Adding an operation"',
  'functions/shared/contract/operations/suspendUser.ts': 'CONTRIBUTING, "Adding an operation"',
  'bench/RESULTS.json': 'written by npm run bench and committed with a bench run; absent until the first such run',
};

let help: HelpTexts;
const claims: Record<string, number> = {};
beforeAll(async () => {
  help = await helpTexts(ROOT);
}, 120_000);

describe('the documents hold against the repository', () => {
  const hold = (name: string, result: { claims: number; problems: string[] }) => {
    claims[name] = result.claims;
    expect(result.problems).toEqual([]);
    expect(result.claims).toBeGreaterThan(0);
  };

  it("docs/local.md's variable table: every name the configuration reads, with its default", () =>
    hold('variables', checkLocalVariables(ROOT, CODE_DEFAULTS, NOT_FOR_NPM_START, READ_BY_LIBRARIES)));
  it('every repository path named in backticks exists', () => hold('paths', checkPaths(ROOT, EXAMPLE_PATHS)));
  it('every relative link and anchor resolves; every README section cited by name exists', () => hold('sections', checkSections(ROOT)));
  it("every --option the docs show is an option of the command it is written with (admin's per command)", () =>
    hold('options', checkOptions(ROOT, help)));

  it("`<command> --help` prints that command's part of the usage and exits 0", async () => {
    const commands = usageCommands(help.admin);
    expect(commands.length).toBeGreaterThanOrEqual(11);
    for (const command of commands) expect(commandUsage(help.admin, command)).toMatch(new RegExp(`^usage: npm run admin -- ${command}\\b`));
    const run = await runScript('admin/cli.ts', ['export-users', '--help'], process.env);
    expect([run.code, run.stdout, run.stderr]).toEqual([0, `${commandUsage(help.admin, 'export-users')}\n`, '']);
    expect(run.stdout).toContain('--output');
    expect(run.stdout).not.toContain('--report');
  }, 60_000);
});

afterAll(() => {
  if (Object.keys(claims).length === 4) console.log(`docs-options: ${JSON.stringify(claims)}`);
});

describe('each check fails on a document that says otherwise (an edited copy of the repository)', () => {
  const copies: (() => void)[] = [];
  afterAll(() => {
    for (const remove of copies) remove();
  });
  const copy = (edits: Record<string, (text: string) => string>) => {
    const edited = editedCopy(ROOT, edits);
    copies.push(edited.remove);
    return edited.root;
  };
  const replace = (from: string | RegExp, to: string) => (text: string) => {
    expect(text).toMatch(from);
    return text.replace(from, to);
  };

  it('a default changed in docs/local.md', () => {
    const root = copy({
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
    const root = copy({
      'functions/shared/platform/config.ts': (text) => `${text}\nexport const extra = () => process.env.SIGN_IN_LOCKOUT_MINUTES;\n`,
    });
    expect(checkLocalVariables(root, CODE_DEFAULTS, NOT_FOR_NPM_START, READ_BY_LIBRARIES).problems).toEqual([
      'docs/local.md: SIGN_IN_LOCKOUT_MINUTES is read by the configuration and not in the variable table',
    ]);
  });

  it('a path that moved, unless the line says where to', () => {
    const root = copy({
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
    const root = copy({
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

  describe('options, each held to its own command', () => {
    it("another command's option (export-users --output renamed --report, import-users' option)", () => {
      const root = copy({
        'README.md': replace(
          'export-users owner@acme.example --output acme-users.jsonl',
          'export-users owner@acme.example --report acme-users.jsonl',
        ),
      });
      expect(checkOptions(root, help).problems).toEqual([
        expect.stringMatching(
          /^README\.md:\d+: --report \(command line\) is not an option of admin export-users \(admin export-users --help\)$/,
        ),
      ]);
    });

    it('an option renamed in prose (--min-length written alone, its paragraph naming the command)', () => {
      const root = copy({ 'docs/api-contract.md': replace('set `--min-length 15` then', 'set `--minimum-length 15` then') });
      expect(checkOptions(root, help).problems).toEqual([
        expect.stringMatching(/^docs\/api-contract\.md:\d+: --minimum-length \(prose\) is not an option of admin set-password-policy/),
      ]);
    });

    it('an option on a continuation line (a line ending in \\ goes on)', () => {
      const root = copy({
        'docs/operations.md': replace(
          '--since 2026-03-01T10:00:00Z \\\n  --deletions-table "$(output DeletionsTableName)"',
          '--since 2026-03-01T10:00:00Z \\\n  --ledger-table "$(output DeletionsTableName)"',
        ),
      });
      expect(checkOptions(root, help).problems).toEqual([
        expect.stringMatching(/^docs\/operations\.md:\d+: --ledger-table \(command line\) is not an option of admin reapply-deletions/),
      ]);
    });

    it('an option of a script that does not read it, an unknown admin command (with or without options), an option with no command', () => {
      const root = copy({
        'CONTRIBUTING.md': replace('npm run bench -- --small       #', 'npm run bench -- --fast        #'),
        'docs/local.md': (text) =>
          `${text}\n\n## More\n\nRun \`npm run admin -- rotate-all --now\`.\n\n## Last\n\nPass \`--colour\` for colour.\n`,
      });
      expect(checkOptions(root, help).problems).toEqual([
        expect.stringMatching(/^docs\/local\.md:\d+: admin command rotate-all is not in --help$/),
        expect.stringMatching(/^docs\/local\.md:\d+: --colour is written with no command before it in its section$/),
        // The options bench's file reads, as the check finds them (--json, --small and more).
        expect.stringMatching(
          new RegExp(
            `^CONTRIBUTING\\.md:\\d+: --fast \\(command line\\) is not an option of bench \\(the options bench's file reads \\(${scriptOptions(ROOT, 'bench')!.join(' ')}\\)\\)$`,
          ),
        ),
        expect.stringMatching(
          /^docs\/local\.md:\d+: --now \(command line\) is not an option of admin rotate-all: admin command rotate-all is not in --help$/,
        ),
      ]);
    });
  });
});
