/**
 * Every `--option` the docs show, held to the command it is written with: in code blocks (a line
 * ending in `\` continues on the next), in inline code, and in prose. A command line names its
 * command; an option written alone in prose belongs to a command its paragraph names (a command
 * line, `admin <command>`, or a command's name in backticks), else the nearest one named before it
 * in its section. An option that is not its command's fails, even when another command has it.
 *
 * What an option is checked against: an admin command, its own `--help` (admin/command-usage.ts
 * cuts it from the full usage); `npm test`, jest's `--help`; `npm run cdk -- <command>`, the CDK
 * CLI's `<command> --help`; any other `npm run <script>` that runs a file of the repository (bench,
 * generate...), the options that file reads (`args.includes('--check')`).
 * Programs that are not the repository's (aws, npm's own commands, node, valgrind...) are named and
 * counted, not checked: their options are theirs.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandUsage, usageCommands } from '../../admin/command-usage';
import { documents } from './docs-truth';

export interface OptionUse {
  readonly file: string;
  readonly line: number;
  /** `admin`, `jest`, `cdk`, an npm script's name, or an outside program's. */
  readonly tool: string;
  /** The admin or CDK command, when the tool has commands. */
  readonly command?: string;
  readonly option: string;
  /** A command line that wrote it, or prose that left it to its paragraph's command. */
  readonly written: 'command line' | 'prose';
}

/** Programs that are not this repository's: their options are named, not checked. */
export const OUTSIDE_PROGRAMS = [
  'aws',
  'node',
  'valgrind',
  'tsc',
  'curl',
  'git',
  'jq',
  'sudo',
  'apt-get',
  'cd',
  'export',
  'output',
  'ARGON2_SETTING',
];

interface Command {
  readonly tool: string;
  readonly command?: string;
  readonly options: string[];
  /** Run as `npm run <tool>`: the script must exist. */
  readonly script?: true;
}

/** A command the docs name, with or without options: an admin command must exist, and so must an npm script. */
export interface CommandUse {
  readonly file: string;
  readonly line: number;
  readonly tool: string;
  readonly command?: string;
  readonly script?: true;
}

const OPTION = /(?:^|[\s[(])(--[a-z][A-Za-z0-9-]*)(?=[\s=\]),.;:]|$)/g;
const options = (text: string) => [...text.matchAll(OPTION)].map((match) => match[1]!);

/**
 * The commands of a shell line (`a && b; c | d`), each with its options: quoted strings and `$(...)`
 * are set aside first, and an environment assignment before a command is skipped.
 */
export function commandsOf(text: string, adminCommands: readonly string[]): Command[] {
  const plain = text
    .replace(/\$\([^)]*\)/g, '"…"')
    .replace(/'[^']*'|"[^"]*"/g, '"…"')
    .replace(/\s+#\s.*$/, '');
  return plain.split(/&&|\|\||;|\|/).flatMap((segment) => {
    const words = segment.trim().split(/\s+/).filter(Boolean);
    while (words.length > 1 && /^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) words.shift();
    const command = parseCommand(words, adminCommands);
    return command ? [command] : [];
  });
}

function parseCommand(words: readonly string[], adminCommands: readonly string[]): Command | undefined {
  const [first, second] = words;
  if (first === undefined) return undefined;
  if (first === 'npm' && second === 'run') {
    let i = 2;
    while (words[i]?.startsWith('-')) i++;
    const script = words[i];
    // `npm run ...` in prose is any script, not one.
    if (script === undefined || !/^[a-z][\w:.-]*$/.test(script)) return undefined;
    const dashes = words.indexOf('--', i);
    const args = dashes < 0 ? [] : words.slice(dashes + 1);
    if (script === 'admin' || script === 'cdk') {
      const command = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : undefined;
      return { tool: script, ...(command !== undefined && { command }), options: options(args.join(' ')), script: true };
    }
    return { tool: script, options: options(args.join(' ')), script: true };
  }
  if (first === 'npm' && second === 'test') {
    const dashes = words.indexOf('--');
    return { tool: 'jest', options: dashes < 0 ? [] : options(words.slice(dashes + 1).join(' ')) };
  }
  if (first === 'npm') return { tool: 'npm', options: options(words.slice(1).join(' ')) };
  if (first === 'npx') return { tool: words[1] ?? 'npx', options: options(words.slice(2).join(' ')) };
  // `admin <command>` in prose, or an admin command named alone (`export-users <owner-email> [--output FILE]`).
  if (first === 'admin' && second !== undefined && adminCommands.includes(second))
    return { tool: 'admin', command: second, options: options(words.slice(2).join(' ')) };
  if (adminCommands.includes(first)) return { tool: 'admin', command: first, options: options(words.slice(1).join(' ')) };
  if (OUTSIDE_PROGRAMS.includes(first)) return { tool: first, options: options(words.slice(1).join(' ')) };
  return undefined;
}

/** A document as the checks read it: code blocks as logical lines, prose as paragraphs under their sections. */
interface Piece {
  readonly kind: 'code' | 'prose';
  readonly text: string;
  readonly line: number;
  readonly section: number;
}

function pieces(markdown: string): Piece[] {
  const found: Piece[] = [];
  const lines = markdown.split('\n');
  let section = 0;
  let paragraph: { text: string; line: number } | undefined;
  const flush = () => {
    if (paragraph) found.push({ kind: 'prose', ...paragraph, section });
    paragraph = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) {
      flush();
      for (i++; i < lines.length && !/^\s*(```|~~~)/.test(lines[i]!); i++) {
        const start = i;
        let text = lines[i]!;
        while (text.endsWith('\\') && i + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++i]!}`;
        found.push({ kind: 'code', text, line: start + 1, section });
      }
      continue;
    }
    if (/^#{1,6}\s/.test(line)) {
      flush();
      section++;
      continue;
    }
    // A blank line, a list item or a table row starts a new paragraph.
    if (line.trim() === '' || /^\s*(?:[-*]|\d+\.)\s/.test(line) || line.startsWith('|')) flush();
    if (line.trim() === '') continue;
    if (paragraph) paragraph.text += `\n${line}`;
    else paragraph = { text: line, line: i + 1 };
  }
  flush();
  return found;
}

const lineAt = (piece: Piece, index: number) => piece.line + piece.text.slice(0, index).split('\n').length - 1;

/** Every option the docs show, with the command it belongs to (or the commands its paragraph names, for prose). */
export function optionUses(
  root: string,
  adminCommands: readonly string[],
): {
  uses: OptionUse[];
  commands: CommandUse[];
  orphans: { file: string; line: number; option: string }[];
  candidates: Map<OptionUse, Command[]>;
} {
  const uses: OptionUse[] = [];
  const commands: CommandUse[] = [];
  const orphans: { file: string; line: number; option: string }[] = [];
  const candidates = new Map<OptionUse, Command[]>();
  for (const file of documents(root)) {
    const recent: { section: number; commands: Command[] }[] = [];
    for (const piece of pieces(readFileSync(join(root, file), 'utf8'))) {
      const named: Command[] = [];
      const add = (command: Command, line: number) => {
        named.push(command);
        commands.push({
          file,
          line,
          tool: command.tool,
          ...(command.command && { command: command.command }),
          ...(command.script && { script: true }),
        });
        for (const option of command.options) {
          uses.push({
            file,
            line,
            tool: command.tool,
            ...(command.command && { command: command.command }),
            option,
            written: 'command line',
          });
        }
      };
      if (piece.kind === 'code') {
        for (const command of commandsOf(piece.text, adminCommands)) add(command, piece.line);
        // A comment's options belong to the program it names (`# tsc --noEmit over everything`).
        const comment = /\s#\s(.*)$/.exec(piece.text)?.[1];
        if (comment)
          for (const command of commandsOf(comment.replace(/^.*?(?=\b(?:tsc|node|npx|npm)\b)/, ''), adminCommands))
            add(command, piece.line);
      } else {
        const loose: { option: string; line: number }[] = [];
        for (const span of piece.text.matchAll(/`([^`]+)`/g)) {
          const text = span[1]!.replace(/\s+/g, ' ');
          const line = lineAt(piece, span.index);
          const commands = commandsOf(text, adminCommands);
          if (commands.length > 0) for (const command of commands) add(command, line);
          else for (const option of options(text)) loose.push({ option, line });
        }
        const outside = piece.text.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
        for (const match of outside.matchAll(OPTION)) loose.push({ option: match[1]!, line: lineAt(piece, match.index) });
        const before = recent.filter((entry) => entry.section === piece.section).flatMap((entry) => entry.commands);
        const owners = named.length > 0 ? named : before.slice(-1);
        for (const { option, line } of loose) {
          if (owners.length === 0) {
            orphans.push({ file, line, option });
            continue;
          }
          const use: OptionUse = {
            file,
            line,
            tool: owners[0]!.tool,
            ...(owners[0]!.command && { command: owners[0]!.command }),
            option,
            written: 'prose',
          };
          uses.push(use);
          candidates.set(use, owners);
        }
      }
      if (named.length > 0) recent.push({ section: piece.section, commands: named });
    }
  }
  return { uses, commands, orphans, candidates };
}

/** The options an npm script's file reads from its command line (`args.includes('--check')`, or node:util's `parseArgs` options), by the script's name. */
const npmScripts = (root: string) =>
  (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

export function scriptOptions(root: string, script: string): string[] | undefined {
  const file = /^(?:exec )?tsx (\S+\.ts)$/.exec(npmScripts(root)[script] ?? '')?.[1];
  if (!file || !existsSync(join(root, file))) return undefined;
  const source = readFileSync(join(root, file), 'utf8');
  const tested = [...source.matchAll(/\b(?:includes|indexOf)\('(--[a-z][a-z0-9-]*)'\)/g)].map((match) => match[1]!);
  // node:util's parseArgs: the members of its `options` object (`stage: {`, `'write-doc': {`).
  const declared = /parseArgs\(\{\s*options: \{([\s\S]*?)\n\s*\},/.exec(source)?.[1] ?? '';
  const parsed = [...declared.matchAll(/^\s*'?([a-z][a-z0-9-]*)'?: \{/gm)].map((match) => `--${match[1]!}`);
  return [...tested, ...parsed];
}

export interface HelpTexts {
  /** `npm run admin -- --help`. */
  readonly admin: string;
  /** `jest --help`. */
  readonly jest: string;
  /** `cdk <command> --help`, by command. */
  readonly cdk: Readonly<Record<string, string>>;
}

const has = (help: string, option: string) => new RegExp(`(?:^|[\\s,[(])${option}(?![a-z0-9-])`, 'm').test(help);

/** What an option of `command` is checked against, or why it is not. */
function allowed(root: string, help: HelpTexts, command: Command): { accepts: (option: string) => boolean; what: string } | string {
  if (command.tool === 'admin') {
    if (command.command === undefined) return { accepts: (option) => has(help.admin, option), what: 'admin --help' };
    const own = commandUsage(help.admin, command.command);
    if (own === undefined) return `admin command ${command.command} is not in --help`;
    return { accepts: (option) => has(own, option), what: `admin ${command.command} --help` };
  }
  if (command.tool === 'jest') return { accepts: (option) => has(help.jest, option), what: 'jest --help' };
  if (command.tool === 'cdk') {
    const text = help.cdk[command.command ?? ''];
    if (text === undefined) return `cdk ${command.command}: no help fetched for it (add it to the check's cdk commands)`;
    return { accepts: (option) => has(text, option), what: `cdk ${command.command} --help` };
  }
  // A script that runs the CDK CLI (`npm run synth` is `cdk synth --quiet`): that command's help.
  const cdkCommand = /^cdk ([a-z]+)/.exec(npmScripts(root)[command.tool] ?? '')?.[1];
  if (cdkCommand) return allowed(root, help, { tool: 'cdk', command: cdkCommand, options: [] });
  const read = scriptOptions(root, command.tool);
  if (read)
    return { accepts: (option) => read.includes(option), what: `the options ${command.tool}'s file reads (${read.join(' ') || 'none'})` };
  return 'outside';
}

/**
 * Every option the docs show is its command's; every admin command they name exists. `outside`
 * counts the options of programs that are not the repository's (named, not checked).
 */
export function checkOptions(root: string, help: HelpTexts): { claims: number; problems: string[]; outside: string[] } {
  const problems: string[] = [];
  const outside: string[] = [];
  let claims = 0;
  const { uses, commands, orphans, candidates } = optionUses(root, usageCommands(help.admin));
  const scripts = npmScripts(root);
  for (const use of commands) {
    // An ADR is a dated record (ADR 29): the npm scripts it names are the ones of its day.
    if (use.script && !(use.tool in scripts) && use.file.startsWith('docs/adr/')) continue;
    if (use.script && !(use.tool in scripts)) {
      claims++;
      problems.push(`${use.file}:${use.line}: npm run ${use.tool}: package.json has no such script`);
    } else if (use.tool === 'admin' && use.command !== undefined) {
      claims++;
      if (commandUsage(help.admin, use.command) === undefined)
        problems.push(`${use.file}:${use.line}: admin command ${use.command} is not in --help`);
    }
  }
  for (const { file, line, option } of orphans)
    problems.push(`${file}:${line}: ${option} is written with no command before it in its section`);
  for (const use of uses) {
    const owners = candidates.get(use) ?? [{ tool: use.tool, ...(use.command && { command: use.command }), options: [] }];
    const checks = owners.map((owner) => allowed(root, help, owner));
    if (checks.every((check) => check === 'outside')) {
      outside.push(`${use.file}:${use.line}: ${use.tool} ${use.option}`);
      continue;
    }
    claims++;
    const refusals = checks.filter((check): check is string => typeof check === 'string' && check !== 'outside');
    const held = checks.some((check) => typeof check === 'object' && check.accepts(use.option));
    if (held) continue;
    const named = owners.map((owner) => [owner.tool, owner.command].filter(Boolean).join(' ')).join(' or ');
    const against = checks.flatMap((check) => (typeof check === 'object' ? [check.what] : [])).join('; ');
    problems.push(
      `${use.file}:${use.line}: ${use.option} (${use.written}) is not an option of ${named}${against ? ` (${against})` : ''}${refusals.length ? `: ${refusals.join('; ')}` : ''}`,
    );
  }
  return { claims, problems, outside };
}

/** The CDK commands the docs run with options (`npm run cdk -- deploy ...`). */
export const CDK_COMMANDS = ['deploy', 'bootstrap'];

/** The help texts the options are checked against, from the programs themselves (run in parallel). */
export async function helpTexts(root: string): Promise<HelpTexts> {
  const { execFile } = await import('node:child_process');
  const run = (file: string, args: string[], env: NodeJS.ProcessEnv = process.env) =>
    new Promise<string>((resolve, reject) =>
      execFile(file, args, { cwd: root, env, encoding: 'utf8', timeout: 60_000 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
  const node = process.execPath;
  const [admin, jest, ...cdk] = await Promise.all([
    run(join(root, 'node_modules/.bin/tsx'), ['admin/cli.ts', '--help']),
    run(node, ['node_modules/jest/bin/jest.js', '--help']),
    ...CDK_COMMANDS.map((command) =>
      run(node, ['node_modules/aws-cdk/bin/cdk', command, '--help', '--no-notices'], { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true' }),
    ),
  ]);
  return { admin: admin!, jest: jest!, cdk: Object.fromEntries(CDK_COMMANDS.map((command, i) => [command, cdk[i]!])) };
}
