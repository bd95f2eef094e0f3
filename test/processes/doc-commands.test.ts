/**
 * Every command of the ```bash and ```sh blocks of README.md, docs/local.md, docs/clients.md, the
 * packages' READMEs and the example site's README is walked by a named test or skipped for a named
 * reason: a command added to one of them and known to none fails here. The README commands no
 * other test walks (`npm start`, the admin CLI's) are run here as written, in order, in a new
 * folder linked to the project, against `npm start` on free ports; a command that exits non-zero
 * fails the test, named.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { freePort } from '../../local/free-port';
import { type DocCommand, documentCommands, named, outcome, ran, readerEnv, readerShell } from '../support/doc-commands';
import { killStartedScripts, linkProject, ROOT, startShellCommand } from '../support/processes';

jest.setTimeout(600_000);

const DOCS = [
  'README.md',
  'docs/local.md',
  'docs/clients.md',
  'packages/client/README.md',
  'packages/sign-in/README.md',
  'examples/sign-in-site/README.md',
] as const;

/** Run by this file's walk below. */
const HERE = 'test/processes/doc-commands.test.ts';

/** Who walks a document's commands: this file, another test (which reads the document), or nobody, for the reason given. */
type Walk = { readonly by: string } | { readonly skipped: string };
interface Rule {
  readonly doc: (typeof DOCS)[number];
  readonly command: RegExp;
  readonly walk: Walk;
}

const RULES: readonly Rule[] = [
  {
    doc: 'README.md',
    command: /^npm install$/,
    walk: {
      skipped:
        "in a folder linked to the project it would reinstall the project itself: its node_modules and its packages' dist (the prepare script), under the tests running beside it; every test runs on the result of this install (CI runs npm ci)",
    },
  },
  { doc: 'README.md', command: /^npm start$/, walk: { by: HERE } },
  { doc: 'README.md', command: /^curl /, walk: { by: 'test/processes/readme-curl.test.ts' } },
  { doc: 'README.md', command: /^npm run -s admin -- /, walk: { by: HERE } },
  {
    doc: 'README.md',
    command: /^npm run synth -- /,
    walk: {
      skipped:
        "CDK bundles each handler from under the project's real folder, refused from a linked copy (PathNotUnderRoot); prod's synthesis and its cdk-nag checks are test/infra's and lint-cfn.test.ts's",
    },
  },
  {
    doc: 'README.md',
    command: /^npm run cdk -- deploy /,
    walk: { skipped: 'deploys to AWS: needs an account and credentials (docs/deploy.md)' },
  },
  {
    doc: 'README.md',
    command: /^npm test( |$)/,
    walk: { skipped: "runs the test suite, this file among them: from a test it would run itself, and the whole suite is CI's to run" },
  },
  { doc: 'README.md', command: /^npm run test:staging( |$)/, walk: { skipped: 'runs the http tests against a deployed stage on AWS' } },
  {
    doc: 'README.md',
    command: /^API_KEY=wlk_\.\.\. npm run test:contract( |$)/,
    walk: {
      skipped:
        'needs the key npm start printed in place of wlk_...; test/processes/contract-test.test.ts runs this script so against npm start',
    },
  },
  // docs/local.md has no fenced command today; an admin line or npm start added to it is walked here.
  { doc: 'docs/local.md', command: /^npm start$/, walk: { by: HERE } },
  { doc: 'docs/local.md', command: /^npm run -s admin -- /, walk: { by: HERE } },
  // The page's clone step is the workspace's pack (packWorkspace); its other lines run as written.
  { doc: 'docs/clients.md', command: /./, walk: { by: 'test/processes/client-snippets.test.ts' } },
  { doc: 'packages/client/README.md', command: /./, walk: { by: 'test/processes/client-package.test.ts' } },
  { doc: 'packages/sign-in/README.md', command: /./, walk: { by: 'test/processes/sign-in-snippets.test.ts' } },
  { doc: 'examples/sign-in-site/README.md', command: /./, walk: { by: 'test/processes/sign-in-demo.test.ts' } },
];

const commands = DOCS.flatMap((doc) => documentCommands(ROOT, doc));
const walkOf = (command: DocCommand) => RULES.filter((rule) => rule.doc === command.doc && rule.command.test(command.command));
const walkedHere = (command: DocCommand) => walkOf(command).some(({ walk }) => 'by' in walk && walk.by === HERE);

const work = mkdtempSync(join(tmpdir(), 'doc-commands-'));
afterAll(() => {
  killStartedScripts();
  rmSync(work, { recursive: true, force: true });
});

describe('the documents’ fenced commands', () => {
  it('each is walked by exactly one named test, or skipped for a named reason', () => {
    const unknown = commands.filter((command) => walkOf(command).length !== 1).map(named);
    expect(unknown).toEqual([]);
    console.log(
      commands
        .map((command) => {
          const walk = walkOf(command)[0]!.walk;
          return `${named(command)}\n    ${'by' in walk ? `walked by ${walk.by}` : `skipped: ${walk.skipped}`}`;
        })
        .join('\n'),
    );
  });

  it('each test named reads the document it walks', () => {
    for (const rule of RULES)
      if ('by' in rule.walk && rule.walk.by !== HERE) {
        const source = readFileSync(join(ROOT, rule.walk.by), 'utf8');
        expect({ test: rule.walk.by, reads: source.includes(rule.doc) }).toEqual({ test: rule.walk.by, reads: true });
      }
  });
});

/** The documents with commands this file walks, each walked in a folder of its own. */
const WALKED_HERE = DOCS.filter((doc) => commands.some((command) => command.doc === doc && walkedHere(command)));

describe('the commands this file walks, as written and in order', () => {
  it("include README.md's npm start and admin commands", () => {
    expect(WALKED_HERE).toContain('README.md');
  });

  it.each(WALKED_HERE)('%s: each runs in a new folder linked to the project, against npm start on free ports, and exits 0', async (doc) => {
    const walked = commands.filter((command) => command.doc === doc && walkedHere(command));
    const project = join(work, doc.replaceAll('/', '-'));
    mkdirSync(project);
    linkProject(project);
    const ports = { PORT: await freePort(), DYNAMODB_PORT: await freePort() };
    // The documents' 3000 and 8000 are npm start's defaults: the test's own free ports instead, through the
    // variables the README and docs/local.md name, in the environment and in any command that spells them.
    const env = readerEnv({ PORT: String(ports.PORT), DYNAMODB_PORT: String(ports.DYNAMODB_PORT), POWERTOOLS_LOG_LEVEL: 'SILENT' });
    const withPorts = (command: string) => command.replaceAll(':3000', `:${ports.PORT}`).replaceAll(':8000', `:${ports.DYNAMODB_PORT}`);
    // The file the README's import line reads is the reader's own (docs/migration.md): an empty one here.
    writeFileSync(join(project, 'users.jsonl'), '');
    const shell = readerShell(project, env);
    const startNpmStart = async (line: string, name = line) => {
      const started = startShellCommand(withPorts(line), env, shell.cwd());
      await started.waitFor(new RegExp(`Listening on http://127\\.0\\.0\\.1:${ports.PORT}/v1\\n`), 180_000).catch((error: Error) => {
        throw new Error(`${name} did not start serving: ${error.message}`);
      });
    };
    let issuedKeyId: string | undefined;
    try {
      // A page that does not start npm start itself is read with it running (its premise).
      if (!walked.some((command) => command.command === 'npm start')) await startNpmStart('npm start');
      for (const command of walked) {
        if (command.command === 'npm start') {
          // Long-running: started as written, then left serving for the commands after it.
          await startNpmStart(command.command, named(command));
          continue;
        }
        // The README's key id is a placeholder: the one the last issue-key printed instead.
        const line = withPorts(command.command).replace(/\bkey_0123456789abcdef\b/, issuedKeyId ?? 'key_0123456789abcdef');
        const run = shell.run(line);
        expect(outcome(command, run)).toEqual(ran(command));
        issuedKeyId = /"key_id":"(key_[0-9a-f]+)"/.exec(run.stdout)?.[1] ?? issuedKeyId;
      }
    } finally {
      shell.dispose();
      killStartedScripts();
    }
  });
});
