/**
 * `npm run mutation:docs`: the docs checks run against mismatches injected on purpose, each into a
 * scratch copy of the repository (or an in-memory edit the check accepts), to show that each check
 * catches what it exists for. Prints a table (injection, check, caught or not) and exits 1 when any
 * injection is not caught, or when a check does not pass on the unedited repository first.
 *
 * The figures' committed run is bench/RESULTS.json when it exists, else the fixture
 * test/fixtures/bench-results.json (the committed 2026-11-25 run's figures the docs quote).
 * The contract rows' own injections (a row's clause broken in the service, a clause added to the
 * document) run contract-rows.test.ts in a full scratch copy, which starts its own DynamoDB Local.
 */

import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { usageCommands } from '../admin/command-usage';
import { checkFigures, figureEdit, readRegistry, readSources, registeredFigure, valueAt } from '../codegen/figures';
import {
  contractRows,
  expectedBody,
  catalogue as messageCatalogue,
  messageProblems,
  quotedMessages,
  rowMismatch,
} from '../test/support/contract-doc';
import { checkOptions, type HelpTexts, helpTexts } from '../test/support/docs-options';
import { editedCopy } from '../test/support/docs-truth';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
type Edits = Record<string, (text: string) => string>;

/** An edit that must find its text. */
const replace = (from: string, to: string) => (text: string) => {
  if (!text.includes(from)) throw new Error(`the injection's text is not there: ${JSON.stringify(from.slice(0, 80))}`);
  return text.replace(from, to);
};

const FIXTURE = 'test/fixtures/bench-results.json';
const runFile = existsSync(join(ROOT, 'bench/RESULTS.json')) ? 'bench/RESULTS.json' : FIXTURE;
const run = readFileSync(join(ROOT, runFile), 'utf8');
/** The figures checks see this run as bench/RESULTS.json. */
const withRun: Edits = runFile === FIXTURE ? { 'bench/RESULTS.json': () => run } : {};

interface Result {
  readonly injection: string;
  readonly check: string;
  readonly caught: boolean;
  readonly detail: string;
}

/** The problems a check finds in a scratch copy with these edits. */
async function inCopy(edits: Edits, check: (root: string) => Promise<string[]> | string[]): Promise<string[]> {
  const copy = editedCopy(ROOT, edits);
  try {
    return await check(copy.root);
  } finally {
    copy.remove();
  }
}

/** The messages the code answers in `root`: the shared messages, each operation module's own, and the gateway responses' text. */
async function codeCatalogue(root: string): Promise<string[]> {
  const messages = (await import(pathToFileURL(join(root, 'functions/shared/contract/messages.ts')).href)) as Record<string, unknown>;
  const registry = (await import(pathToFileURL(join(root, 'functions/shared/contract/operations.ts')).href)) as {
    DEFINITIONS: Record<string, { messages: Record<string, string> }>;
  };
  const operations = Object.values(registry.DEFINITIONS).map((definition) => definition.messages);
  return messageCatalogue({ ...messages, operations }, [readFileSync(join(root, 'lib/constructs/api.ts'), 'utf8')]);
}
let adminCommands: string[] = [];
const messageCheck = async (root: string) =>
  messageProblems(quotedMessages(readFileSync(join(root, 'docs/api-contract.md'), 'utf8'), adminCommands), await codeCatalogue(root));

/** The repository's files (tracked and new, as in the working tree) copied, node_modules linked: a copy jest can run in. */
function fullCopy(edits: Edits): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'mutation-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(root, file)), { recursive: true });
    cpSync(join(ROOT, file), join(root, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  for (const [file, edit] of Object.entries(edits)) writeFileSync(join(root, file), edit(readFileSync(join(root, file), 'utf8')));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Runs contract-rows.test.ts in a full copy with these edits, only the tests whose names match: the failures jest reports. */
async function contractRowsIn(edits: Edits, testNames: string): Promise<string[]> {
  const copy = fullCopy(edits);
  try {
    const output = await new Promise<string>((resolve) =>
      execFile(
        process.execPath,
        [
          '--experimental-vm-modules',
          '--no-warnings=ExperimentalWarning',
          'node_modules/jest/bin/jest.js',
          'test/http/contract-rows.test.ts',
          '-t',
          testNames,
          '--json',
        ],
        { cwd: copy.root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
        (_, stdout) => resolve(stdout),
      ),
    );
    const report = JSON.parse(output.slice(output.indexOf('{'))) as {
      numPassedTests: number;
      numFailedTests: number;
      testResults: { assertionResults: { fullName: string; status: string }[] }[];
    };
    if (report.numPassedTests + report.numFailedTests === 0) return ['no test ran: the injection named no row'];
    return report.testResults.flatMap((file) =>
      file.assertionResults.filter((test) => test.status === 'failed').map((test) => test.fullName),
    );
  } catch (error) {
    return [`jest did not report: ${(error as Error).message}`];
  } finally {
    copy.remove();
  }
}

async function main(): Promise<void> {
  const help: HelpTexts = await helpTexts(ROOT);
  adminCommands = usageCommands(help.admin);
  const figures = (root: string) => checkFigures(root, readSources(root)).problems;
  const options = (root: string) => checkOptions(root, help).problems;

  // The checks pass on the repository as it is (with the run above): what an injection changes is then its own doing.
  const baselines: [string, string[]][] = [
    ['figures', await inCopy(withRun, figures)],
    ['options', options(ROOT)],
    ['messages', await messageCheck(ROOT)],
  ];
  const broken = baselines.filter(([, problems]) => problems.length > 0);
  for (const [check, problems] of broken) console.error(`${check} does not pass on the repository itself:\n  ${problems.join('\n  ')}`);

  const runNumber = (path: string) => String(valueAt(JSON.parse(run), path));
  const rows = contractRows();
  const rowOf = (table: string, status: number) => rows.find((row) => row.table === table && row.status === status)!;
  const results: Result[] = [];
  const record = (injection: string, check: string, problems: string[]) =>
    results.push({ injection, check, caught: problems.length > 0, detail: problems[0] ?? '' });

  // Figures: found through the registry, so that the injections hold whatever the committed run says.
  const registry = readRegistry(ROOT);
  const another = (written: string) => written.replace(/\d$/, (digit) => String((Number(digit) + 1) % 10));
  const measured = registeredFigure(registry, 'README.md', (source) => 'record' in source && source.value === 'm=7168,t=5,p=1');
  record(
    `a figure changed in a paragraph that says "measured" (README ${measured.figure}, the run the default was chosen from)`,
    'figures',
    await inCopy({ ...withRun, 'README.md': figureEdit(measured, another) }, figures),
  );
  const perItem = 'deleteScaling.items[2500].msPerItem';
  const adr5 = registeredFigure(registry, 'docs/adr/0005-item-collection-delete.md', (source) => 'run' in source && source.run === perItem);
  const other = [runNumber('deleteScaling.items[250].msPerItem'), runNumber('deleteScaling.items[25].msPerItem')].find(
    (value) => value !== runNumber(perItem),
  )!;
  record(
    `a figure changed to another number of the run (ADR 5's ${adr5.figure} per item to ${other}), registry copy too`,
    'figures',
    await inCopy(
      {
        ...withRun,
        'docs/adr/0005-item-collection-delete.md': figureEdit(adr5, () => other),
        'docs/figures.json': replace(`"figure": "${adr5.figure}"`, `"figure": "${other} ms"`),
      },
      figures,
    ),
  );
  const perHash = registeredFigure(
    registry,
    'README.md',
    (source) => 'run' in source && source.run === 'argon2.settings[m=7168,t=5,p=1].cpuMs',
  );
  record(
    `a committed-run figure changed in the README (m=7168,t=5 ${perHash.figure})`,
    'figures',
    await inCopy({ ...withRun, 'README.md': figureEdit(perHash, another) }, figures),
  );
  record(
    'a new figure with no source, in a "measured" paragraph',
    'figures',
    await inCopy({ ...withRun, 'docs/operations.md': (text) => `${text}\nA reset costs 12.5 ms of CPU (measured 2026-11-25).\n` }, figures),
  );
  record(
    "a dated record's raw output changed under a figure (ADR 1's 9.25 ms)",
    'figures',
    await inCopy({ ...withRun, 'docs/measurements/2026-11-21-bench.json': replace('| 9.25 |', '| 9.35 |') }, figures),
  );
  record(
    'a setting changed in the code under its figure (MAX_BODY_BYTES 16 KiB to 32 KiB)',
    'figures',
    await inCopy({ ...withRun, 'functions/shared/http/middleware/parse-body.ts': replace('16 * 1024', '32 * 1024') }, figures),
  );

  // Options
  record(
    "an admin option renamed to another command's (export-users --output to --report)",
    'options',
    await inCopy({ 'README.md': replace('export-users owner@acme.example --output', 'export-users owner@acme.example --report') }, options),
  );
  record(
    'an option renamed in prose (--min-length written alone)',
    'options',
    await inCopy({ 'docs/api-contract.md': replace('set `--min-length 15` then', 'set `--minimum-length 15` then') }, options),
  );
  record(
    'an option on a continuation line renamed (reapply-deletions --deletions-table)',
    'options',
    await inCopy(
      {
        'docs/operations.md': replace(
          '\\\n  --deletions-table "$(output DeletionsTableName)"\n```',
          '\\\n  --ledger-table "$(output DeletionsTableName)"\n```',
        ),
      },
      options,
    ),
  );
  record(
    'an admin command that does not exist (rotate-key)',
    'options',
    await inCopy({ 'README.md': replace('npm run -s admin -- revoke-key key_', 'npm run -s admin -- rotate-key key_') }, options),
  );
  record(
    "a script's option it does not read (npm run bench -- --fast)",
    'options',
    await inCopy({ 'CONTRIBUTING.md': replace('npm run bench -- --quick ', 'npm run bench -- --fast  ') }, options),
  );

  // Contract: bytes, headers, messages
  const notFound = rowOf('resetUserPassword', 404);
  const answer = (bytes: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => ({
    status: 404,
    bytes: Buffer.from(bytes),
    headers: new Headers(headers),
  });
  const compared = (problem: string | undefined) => (problem ? [problem] : []);
  const exact = expectedBody(notFound);
  if (rowMismatch(notFound, answer(exact))) throw new Error('the row comparison refuses the exact body: no baseline');
  record(
    'a pretty-printed body (the same JSON, indented)',
    'contract-rows comparison',
    compared(rowMismatch(notFound, answer(JSON.stringify(JSON.parse(exact), null, 2)))),
  );
  record(
    'a body with a space after the colon',
    'contract-rows comparison',
    compared(rowMismatch(notFound, answer(exact.replace('":"', '": "')))),
  );
  record(
    'Content-Type with a charset the contract does not name',
    'contract-rows comparison',
    compared(rowMismatch(notFound, answer(exact, { 'content-type': 'application/json; charset=utf-8' }))),
  );
  record(
    'an answer marked Idempotent-Replayed that is not a replay',
    'contract-rows comparison',
    compared(rowMismatch(notFound, answer(exact, { 'content-type': 'application/json', 'idempotent-replayed': 'true' }))),
  );
  record(
    "a message in the contract's prose changed (`Too Many Requests` to `Too many requests`)",
    'messages',
    await inCopy(
      {
        'docs/api-contract.md': replace('answered `429 {"message":"Too Many Requests"}`', 'answered `429 {"message":"Too many requests"}`'),
      },
      messageCheck,
    ),
  );
  record(
    'a message in the code changed (userNotFound loses its full stop)',
    'messages',
    await inCopy(
      { 'functions/shared/contract/messages.ts': replace("userNotFound: 'User not found.'", "userNotFound: 'User not found'") },
      messageCheck,
    ),
  );
  record(
    'a message added to the code that the contract does not list',
    'messages',
    await inCopy(
      {
        'functions/shared/contract/messages.ts': (text) =>
          `${text}\nexport const suspendedParameter = (name: string) => \`Suspended parameter: \${name}.\`;\n`,
      },
      messageCheck,
    ),
  );
  record(
    "a gateway response's message changed (lib/constructs/api.ts)",
    'messages',
    await inCopy(
      { 'lib/constructs/api.ts': replace('{"message":"Method Not Allowed"}', '{"message":"Method not allowed"}') },
      messageCheck,
    ),
  );

  // Contract rows over HTTP, in full copies (each starts its own DynamoDB Local).
  if (!process.argv.includes('--no-service')) {
    // The same rows pass in an unedited copy: a failure below is the injection's, not the copy's.
    const unedited = await contractRowsIn({}, 'unknown or revoked|bytes that are not UTF-8');
    if (unedited.length > 0) broken.push(['contract-rows (over HTTP)', unedited]);
    for (const problem of unedited) console.error(`contract-rows fails in an unedited copy: ${problem}`);
    record(
      "a row's clause broken in the service: a revoked key accepted",
      'contract-rows (over HTTP)',
      await contractRowsIn(
        { 'functions/shared/domain/key-check.ts': replace('if (!key || key.revokedAt || !keyPermits', 'if (!key || !keyPermits') },
        'unknown or revoked',
      ),
    );
    record(
      "a row's clause broken in the service: bytes that are not UTF-8 accepted",
      'contract-rows (over HTTP)',
      await contractRowsIn(
        {
          'functions/shared/http/middleware/parse-body.ts': replace(
            '{ fatal: true, ignoreBOM: true }',
            '{ fatal: false, ignoreBOM: true }',
          ),
        },
        'bytes that are not UTF-8',
      ),
    );
    record(
      "a clause added to a row's case in the document, with no probe for it",
      'contract-rows (over HTTP)',
      await contractRowsIn(
        {
          'docs/api-contract.md': replace('unknown or revoked ', 'unknown, revoked or lost'),
          'test/http/contract-rows.test.ts': replace('unknown or revoked', 'unknown, revoked or lost'),
        },
        'revoked or lost',
      ),
    );
  }

  const width = Math.max(...results.map((result) => result.injection.length));
  const checkWidth = Math.max(...results.map((result) => result.check.length));
  console.log(`${'injection'.padEnd(width)} | ${'check'.padEnd(checkWidth)} | caught`);
  console.log(`${'-'.repeat(width)} | ${'-'.repeat(checkWidth)} | ------`);
  for (const result of results) {
    console.log(`${result.injection.padEnd(width)} | ${result.check.padEnd(checkWidth)} | ${result.caught ? 'yes' : 'NO'}`);
  }
  const missed = results.filter((result) => !result.caught);
  console.log(
    `\n${results.length - missed.length} of ${results.length} injections caught (figures against ${runFile})${broken.length ? `; ${broken.length} check(s) do not pass on the repository itself` : ''}`,
  );
  if (process.argv.includes('--verbose')) for (const result of results) console.log(`- ${result.injection}: ${result.detail}`);
  if (missed.length > 0 || broken.length > 0) process.exitCode = 1;
}

await main();
