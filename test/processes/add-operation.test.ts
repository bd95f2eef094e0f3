/**
 * Issue 48's promise, kept: a new operation is the few hand-edited files CONTRIBUTING's "Adding an
 * operation" lists. A scratch copy of the repository (outside it, node_modules linked) gets a
 * throwaway fourth operation, getUser (test/support/throwaway-operation.ts), by those steps only;
 * then the generators CONTRIBUTING names, in its order, then typecheck, lint:ci and the infra and
 * http projects, there. All must pass, and at most 10 hand-edited files may differ from the copy's
 * start (`git diff`), the files the generators wrote not counted: those are told apart by running
 * the generators and seeing what they changed, not by a list. The operation never reaches the
 * repository: the copy is removed at the end, and the repository's registry is checked untouched.
 *
 * The infra project here is the default one (its heavy files, which synthesize every stage again,
 * left out): the catalogue, the stack, the asset (its own bundle) and the routes cover an operation.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { OPERATIONS } from '#contract/operations';
import { ROOT } from '../support/processes';
import { addThrowawayOperation, THROWAWAY } from '../support/throwaway-operation';
import { linkNodeModules } from '../support/tree-copy';

jest.setTimeout(1_800_000);

/** The most hand-edited files a new operation may take (issue 48). */
const MAX_HAND_EDITED = 10;

let copy: string;
const run = (command: string, args: string[]) => {
  // The child starts its own DynamoDB Local (its jest's global set-up): nothing of this run's leaks in.
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(JEST_|DYNAMODB_ENDPOINT$|.*_TABLE_NAME$|NODE_OPTIONS$)/.test(name)),
    ),
    NO_COLOR: '1',
    FORCE_COLOR: '0',
  };
  return spawnSync(command, args, { cwd: copy, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
};
const git = (...args: string[]) => execFileSync('git', args, { cwd: copy, encoding: 'utf8' });
/** The files that differ from the copy's first commit: changed, added or removed. */
const changed = () =>
  git('status', '--porcelain', '--untracked-files=all')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.slice(3));

/** CONTRIBUTING's "Adding an operation": its text up to the next section. */
const addingSection = () => {
  const text = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
  const start = text.indexOf('## Adding an operation');
  return text.slice(start, text.indexOf('\n## ', start + 1));
};

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'add-operation-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  // The packages' builds (gitignored), which code importing a package by name (bench/sign-in.ts) type-checks against.
  for (const name of ['client', 'sign-in'])
    cpSync(join(ROOT, 'packages', name, 'dist'), join(copy, 'packages', name, 'dist'), { recursive: true });
  linkNodeModules(copy);
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=add-operation', '-c', 'user.email=add-operation@example.com', 'commit', '-q', '--no-verify', '-m', 'start');
});
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe(`${THROWAWAY}, added to a scratch copy by CONTRIBUTING's steps`, () => {
  let handEdited: string[] = [];

  it("touches only the files CONTRIBUTING's hand-edited list names, then runs its generators: at most 10 hand-edited files", () => {
    const section = addingSection();
    const example = /Say the new operation is `(\w+)`/.exec(section)?.[1];
    expect(example).toBeDefined();
    const listed = [
      ...section.slice(section.indexOf('Hand-edited files'), section.indexOf('Then the generators')).matchAll(/^\d+\. `([^`]+)`/gm),
    ]
      .map((match) => match[1]!.replaceAll(example!, THROWAWAY))
      .sort();
    const written = addThrowawayOperation(copy);
    expect([...new Set(written)].sort()).toEqual(listed);

    const afterHands = new Map(changed().map((file) => [file, readFileSync(join(copy, file), 'utf8')]));
    const commands = [...section.matchAll(/^npm run ([\w:-]+)/gm)].map((match) => match[1]!);
    expect(commands.length).toBeGreaterThan(0);
    for (const script of commands) {
      const result = run('npm', ['run', '-s', script]);
      expect({ script, status: result.status, output: result.status === 0 ? '' : result.stdout + result.stderr }).toEqual({
        script,
        status: 0,
        output: '',
      });
    }
    // What the generators wrote: every file they changed beyond the hand edits (a hand-edited file they
    // rewrote as well stays hand-edited).
    const generated = changed().filter((file) => !afterHands.has(file));
    handEdited = changed().filter((file) => afterHands.has(file));
    console.log(
      `${THROWAWAY}: ${handEdited.length} hand-edited files (${handEdited.join(', ')}); generated: ${generated.length} (${generated.join(', ')})`,
    );
    expect(generated.length).toBeGreaterThan(0);
    expect(handEdited.length).toBeLessThanOrEqual(MAX_HAND_EDITED);
  });

  it.each([
    ['typecheck', ['run', '-s', 'typecheck']],
    ['lint:ci', ['run', '-s', 'lint:ci']],
    ['the infra and http projects', ['test', '--', '--selectProjects', 'infra', 'http', '--forceExit', '--verbose=false', '--silent']],
  ])('then %s passes in the copy', (_, args) => {
    expect(handEdited.length).toBeGreaterThan(0);
    const result = run('npm', args);
    expect({ status: result.status, output: result.status === 0 ? '' : (result.stdout + result.stderr).slice(-20_000) }).toEqual({
      status: 0,
      output: '',
    });
  });

  it('never reaches the repository', () => {
    expect(OPERATIONS).not.toContain(THROWAWAY);
    expect(existsSync(join(ROOT, 'functions', THROWAWAY))).toBe(false);
  });
});
