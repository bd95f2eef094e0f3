/**
 * The commands of a Markdown document's ```bash and ```sh blocks, as a reader pastes them, and a
 * shell that runs them one after another in a folder, keeping the folder a `cd` moves to.
 */

import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DocCommand {
  /** The document's path from the project's root. */
  readonly doc: string;
  /** The line of the document the command starts on. */
  readonly line: number;
  /** One logical command: backslash continuations joined, a trailing `# comment` kept (bash ignores it). */
  readonly command: string;
}

/** Every command of the document's ```bash and ```sh blocks, in order; blank lines and `# ...` lines (output, comments) left out. */
export function fencedCommands(markdown: string, doc: string): DocCommand[] {
  const commands: DocCommand[] = [];
  const lines = markdown.split('\n');
  let inShell = false;
  let inOther = false;
  let pending: { line: number; text: string } | undefined;
  lines.forEach((text, index) => {
    const fence = /^```(\S*)/.exec(text);
    if (fence !== null && !inShell && !inOther) {
      inShell = fence[1] === 'bash' || fence[1] === 'sh';
      inOther = !inShell;
      return;
    }
    if (fence !== null) {
      if (pending !== undefined) throw new Error(`${doc}:${pending.line}: a block ends inside a continued command`);
      inShell = inOther = false;
      return;
    }
    if (!inShell) return;
    const joined = pending === undefined ? { line: index + 1, text } : { line: pending.line, text: `${pending.text}${text.trimStart()}` };
    if (joined.text.endsWith('\\')) {
      pending = { line: joined.line, text: joined.text.slice(0, -1) };
      return;
    }
    pending = undefined;
    if (joined.text.trim() === '' || joined.text.trimStart().startsWith('#')) return;
    commands.push({ doc, line: joined.line, command: joined.text.trim() });
  });
  return commands;
}

/** The commands of `doc` (a path from `root`). */
export const documentCommands = (root: string, doc: string) => fencedCommands(readFileSync(join(root, doc), 'utf8'), doc);

/** `doc:line: command`, the name a failure gives a command. */
export const named = ({ doc, line, command }: DocCommand) => `${doc}:${line}: ${command}`;

/** Variables the test's own run sets that a reader's terminal has not: npm's, and the local settings each walk sets itself. */
const NOT_A_READERS = /^(npm_.*|INIT_CWD|DYNAMODB_ENDPOINT|EVENTS_FILE|PORT|DYNAMODB_PORT|SITE_PORT)$/i;

/**
 * The environment of a reader's terminal, plus `extra`: this process's, less npm's variables (the
 * `npm test` running us), the local settings and the node_modules folders on PATH.
 */
export function readerEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !NOT_A_READERS.test(name)));
  const path = (process.env.PATH ?? '').split(':').filter((dir) => dir !== '' && !dir.includes('node_modules'));
  return { ...env, PATH: path.join(':'), ...extra };
}

/**
 * A reader's shell in `dir`: each command runs with bash, in the folder the previous one left
 * (a `cd` carries over, as in a terminal), with `env`.
 */
export function readerShell(dir: string, env: NodeJS.ProcessEnv) {
  let cwd = dir;
  const scratch = mkdtempSync(join(tmpdir(), 'reader-shell-'));
  const cwdFile = join(scratch, 'cwd');
  return {
    cwd: () => cwd,
    run(command: string, timeout = 300_000): SpawnSyncReturns<string> {
      const script = `${command}\nstatus=$?\npwd > "$READER_SHELL_CWD"\nexit $status\n`;
      const run = spawnSync('bash', ['-c', script], { cwd, env: { ...env, READER_SHELL_CWD: cwdFile }, encoding: 'utf8', timeout });
      try {
        cwd = readFileSync(cwdFile, 'utf8').trim();
      } catch {
        // the command ended the shell before pwd: the folder stays
      }
      return run;
    },
    dispose: () => rmSync(scratch, { recursive: true, force: true }),
  };
}

/** What a command that did not run gives to compare with `{ command, exit: 0, stderr: '' }`: its name, exit code and, then, its stderr. */
export const outcome = (command: DocCommand, run: SpawnSyncReturns<string>) => ({
  command: named(command),
  exit: run.status ?? run.signal,
  stderr: run.status === 0 ? '' : `${run.stdout}${run.stderr}`,
});
export const ran = (command: DocCommand) => ({ command: named(command), exit: 0, stderr: '' });
