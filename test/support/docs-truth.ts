/**
 * Checks that hold the prose to the repository, each a pure function of a repository root (the
 * real one in CI, an edited copy in the tests that prove a check fails): the variable table of
 * docs/local.md, the admin commands and options the docs show, the paths the docs name, the
 * sections they cite, and where figures from bench runs come from. Each returns what it found
 * wrong, one line per claim, and counts the claims it checked.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CheckResult {
  /** How many claims of the documents the check held to the code. */
  readonly claims: number;
  /** One line per claim that does not hold: `file:line: what is wrong`. */
  readonly problems: string[];
}

const read = (root: string, file: string) => readFileSync(join(root, file), 'utf8');

/** The documents the checks read: the README, CONTRIBUTING, docs/ (ADRs included), bench/README.md. */
export function documents(root: string): string[] {
  const docs = ['README.md', 'CONTRIBUTING.md', 'bench/README.md'];
  for (const dir of ['docs', 'docs/adr']) {
    for (const name of readdirSync(join(root, dir)).sort()) if (name.endsWith('.md')) docs.push(`${dir}/${name}`);
  }
  return docs.filter((file) => existsSync(join(root, file)));
}

/** A markdown table's rows under the header whose first cell is `firstHeader`, as cells. */
export function tableRows(markdown: string, firstHeader: string): { cells: string[]; line: number }[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^\\|\\s*${firstHeader}\\s*\\|`).test(line));
  if (start < 0) return [];
  const rows: { cells: string[]; line: number }[] = [];
  for (let i = start + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    rows.push({
      cells: lines[i]!.replace(/^\||\|$/g, '')
        .split('|')
        .map((cell) => cell.trim()),
      line: i + 1,
    });
  }
  return rows;
}

const backticked = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

// ---------------------------------------------------------------------------------------------
// docs/local.md's variable table against the configuration

/** Files whose environment reads make the local configuration. */
export const CONFIG_SOURCES = (root: string) => [
  ...readdirSync(join(root, 'functions/shared/platform'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `functions/shared/platform/${name}`),
  ...readdirSync(join(root, 'local'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `local/${name}`),
  // Where npm start, the admin CLI and the tests find DynamoDB Local (DYNAMODB_PORT, DYNAMODB_ENDPOINT).
  'functions/shared/store/local-engine.ts',
];

/** Every environment variable the configuration code reads by name. */
export function variablesRead(root: string): Set<string> {
  const names = new Set<string>();
  for (const file of CONFIG_SOURCES(root)) {
    const source = read(root, file);
    for (const match of source.matchAll(/process\.env\.([A-Z][A-Z0-9_]+)|\b(?:integer|required|portFromEnv)\('([A-Z][A-Z0-9_]+)'/g)) {
      names.add((match[1] ?? match[2])!);
    }
  }
  return names;
}

/**
 * `docs/local.md`: every variable in the table is one the configuration reads, with the default it
 * has there (`defaults`: the code's own default of each, `unset` when there is none); every
 * variable the configuration reads is in the table or in `notForNpmStart` (with why). Variables a
 * library reads by itself (`readByLibraries`, with which) count as read.
 */
export function checkLocalVariables(
  root: string,
  defaults: Readonly<Record<string, string>>,
  notForNpmStart: Readonly<Record<string, string>>,
  readByLibraries: Readonly<Record<string, string>> = {},
): CheckResult {
  const problems: string[] = [];
  let claims = 0;
  const read_ = new Set([...variablesRead(root), ...Object.keys(readByLibraries)]);
  const documented = new Set<string>();
  for (const { cells, line } of tableRows(read(root, 'docs/local.md'), 'variable')) {
    const names = backticked(cells[0] ?? '');
    const values = cells[1] === 'unset' ? names.map(() => 'unset') : backticked(cells[1] ?? '');
    if (values.length !== names.length) problems.push(`docs/local.md:${line}: ${names.length} variables but ${values.length} defaults`);
    names.forEach((name, i) => {
      documented.add(name);
      claims += 2;
      if (!read_.has(name))
        problems.push(`docs/local.md:${line}: ${name} is not read by the configuration (${CONFIG_SOURCES(root).length} files)`);
      if (!(name in defaults)) problems.push(`docs/local.md:${line}: ${name} has no known default in the check: add it`);
      else if (defaults[name] !== values[i])
        problems.push(`docs/local.md:${line}: ${name} defaults to ${defaults[name]}, the table says ${values[i]}`);
    });
  }
  for (const name of read_) {
    claims++;
    if (!documented.has(name) && !(name in notForNpmStart))
      problems.push(`docs/local.md: ${name} is read by the configuration and not in the variable table`);
  }
  return { claims, problems };
}

// ---------------------------------------------------------------------------------------------
// admin commands and options the docs show, against --help

/** `npm run [-s] admin -- <command> ... --option ...` as the docs show it, one per line. */
export function adminCommandLines(root: string): { file: string; line: number; command: string; options: string[] }[] {
  const found: { file: string; line: number; command: string; options: string[] }[] = [];
  for (const file of documents(root)) {
    read(root, file)
      .split('\n')
      .forEach((text, i) => {
        for (const match of text.matchAll(/npm run (?:-s )?admin -- ([a-z][a-z-]*)([^`|]*)/g)) {
          const options = [...match[2]!.matchAll(/(?:^|\s|\[)(--[a-z][a-z0-9-]*)/g)].map((option) => option[1]!);
          found.push({ file, line: i + 1, command: match[1]!, options });
        }
      });
  }
  return found;
}

/** Every admin command and option the docs show is in `--help` (`help`: its output). */
export function checkAdminOptions(root: string, help: string): CheckResult {
  const problems: string[] = [];
  let claims = 0;
  const commands = new Set([...help.matchAll(/^ {2}([a-z][a-z-]+) /gm)].map((match) => match[1]!));
  for (const { file, line, command, options } of adminCommandLines(root)) {
    claims += 1 + options.length;
    if (!commands.has(command)) problems.push(`${file}:${line}: admin command ${command} is not in --help`);
    for (const option of options) {
      if (!new RegExp(`${option}(?![a-z-])`).test(help)) problems.push(`${file}:${line}: ${command} ${option} is not in --help`);
    }
  }
  return { claims, problems };
}

// ---------------------------------------------------------------------------------------------
// repository paths in backticks, and the sections the docs cite

/**
 * A backticked token is a repository path when its first segment is an entry of the repository's
 * root (`functions/...`, `README.md`); `file.ts:12` and `file.ts:12-40` name lines of a file. It
 * must exist, unless its line says where it went (`moved to` and an existing backticked path) or
 * it is one of `examples` (a file a how-to tells you to create).
 */
export function checkPaths(root: string, examples: Readonly<Record<string, string>> = {}): CheckResult {
  const problems: string[] = [];
  let claims = 0;
  const top = new Set(readdirSync(root).filter((name) => name !== 'node_modules' && name !== '.git'));
  for (const file of documents(root)) {
    read(root, file)
      .split('\n')
      .forEach((text, i) => {
        const exists = (path: string) => existsSync(join(root, path));
        const movedTo = /moved to `([^`]+)`/.exec(text)?.[1];
        for (const token of backticked(text)) {
          const path = token.replace(/:\d+(-\d+)?$/, '');
          if (!/^[A-Za-z0-9_.][A-Za-z0-9_./-]*$/.test(path) || path.includes('..')) continue;
          if (!top.has(path.split('/')[0]!) || (!path.includes('/') && !path.includes('.'))) continue;
          claims++;
          if (exists(path) || path in examples || (movedTo !== undefined && movedTo !== token && exists(movedTo))) continue;
          problems.push(`${file}:${i + 1}: \`${token}\` does not exist`);
        }
      });
  }
  return { claims, problems };
}

/** GitHub's anchor of a heading. */
export const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

const headings = (markdown: string) =>
  new Set(
    markdown
      .split('\n')
      .filter((line) => /^#{1,6}\s/.test(line))
      .map((line) => line.replace(/^#+\s+/, '').trim()),
  );

/**
 * Cross-references: every relative link resolves (and its `#anchor` is a heading of the target),
 * and every section cited by name after the word README (`the README's "Name"`, `README ("Name",
 * "Other")`, `README, "Name"`) is a heading of the README.
 */
export function checkSections(root: string): CheckResult {
  const problems: string[] = [];
  let claims = 0;
  const readme = headings(read(root, 'README.md'));
  for (const file of documents(root)) {
    const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.';
    read(root, file)
      .split('\n')
      .forEach((text, i) => {
        for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = match[1]!;
          if (/^[a-z]+:/.test(target)) continue;
          claims++;
          const [path, anchor] = target.split('#') as [string, string | undefined];
          const resolved = path === '' ? file : join(dir, path);
          if (!existsSync(join(root, resolved))) {
            problems.push(`${file}:${i + 1}: link to ${target}: ${resolved} does not exist`);
            continue;
          }
          if (anchor && resolved.endsWith('.md')) {
            const anchors = new Set([...headings(read(root, resolved))].map(slug));
            if (!anchors.has(anchor)) problems.push(`${file}:${i + 1}: link to ${target}: no heading #${anchor} in ${resolved}`);
          }
        }
      });
    // A section cited by name may be quoted on the next line: read the text with lines joined.
    const text = read(root, file);
    for (const match of text.matchAll(/README[^."`\n]{0,12}?(?:\s[^."`\n]{0,12}?)?\(?("[^"]+"(?:,\s*"[^"]+")*)/g)) {
      const line = text.slice(0, match.index).split('\n').length;
      for (const name of match[1]!.matchAll(/"([^"]+)"/g)) {
        claims++;
        if (!readme.has(name[1]!.replace(/\s+/g, ' '))) problems.push(`${file}:${line}: the README has no section "${name[1]}"`);
      }
    }
  }
  return { claims, problems };
}

// ---------------------------------------------------------------------------------------------
// figures from bench runs

/** A figure with a unit of what the bench measures: time, memory, share. */
export const FIGURE = /(?<![\w.=-])\d[\d,]*(?:\.\d+)?(?:-\d[\d,]*(?:\.\d+)?)?\s?(?:ms|µs|KB|MB|MiB|GB|%|[a-z]+\/s)(?![\w])/g;

/**
 * A figure (a number in ms, µs, KB, MB, MiB, GB, % or things per second) in a document is quoted
 * from the committed bench run: the same figure appears in bench/RESULTS.md (with its unit, or, at
 * three significant digits or more, as a number of its tables). A measurement not in
 * that run says so and when: `measured` and an ISO date (2026-03-02) in its paragraph, or in the
 * first paragraph of its section. Any other figure is a setting or a limit, not a measurement, and must be in
 * `settings` (exact text, with why). bench/README.md and bench/RESULTS.md themselves are the
 * bench's own.
 */
export function checkFigures(root: string, settings: Readonly<Record<string, string>>): CheckResult {
  const problems: string[] = [];
  let claims = 0;
  const results = existsSync(join(root, 'bench/RESULTS.md')) ? read(root, 'bench/RESULTS.md') : '';
  const inResults = new Set([...results.matchAll(FIGURE)].map((match) => match[0].replace(/\s/g, '')));
  // RESULTS.md's tables give the unit in the header: a number of three significant digits or more
  // found there as a number is the same figure.
  const numbers = new Set([...results.matchAll(/(?<![\w.])\d+(?:\.\d+)?(?![\w.])/g)].map((match) => match[0]));
  const fromResults = (figure: string) => {
    const number = /^[\d.]+/.exec(figure.replace(/,/g, ''))?.[0] ?? '';
    return inResults.has(figure.replace(/\s/g, '')) || (number.replace(/^0\.0*|\./g, '').length >= 3 && numbers.has(number));
  };
  for (const file of documents(root).filter((name) => !name.startsWith('bench/'))) {
    const lines = read(root, file).split('\n');
    // Paragraphs (blank-line separated, fences kept whole), each with its section's first paragraph.
    const paragraphs: { start: number; text: string; sectionIntro: string }[] = [];
    let current = { start: 1, text: '', sectionIntro: '' };
    let intro: string | undefined;
    let fenced = false;
    lines.forEach((text, i) => {
      if (text.startsWith('```')) fenced = !fenced;
      if (!fenced && /^#{1,6}\s/.test(text)) intro = undefined;
      if (!fenced && text.trim() === '') {
        if (current.text.trim() !== '' && !/^#{1,6}\s/.test(current.text)) intro ??= current.text;
        paragraphs.push(current);
        current = { start: i + 2, text: '', sectionIntro: intro ?? '' };
      } else current.text += `${text}\n`;
    });
    paragraphs.push(current);
    const dates = (text: string) => /\bmeasured\b/i.test(text) && /\b20\d\d-\d\d-\d\d\b/.test(text);
    for (const { start, text, sectionIntro } of paragraphs) {
      const dated = dates(text) || dates(sectionIntro);
      text.split('\n').forEach((line, offset) => {
        for (const match of line.matchAll(FIGURE)) {
          claims++;
          const figure = match[0];
          if (dated || fromResults(figure) || figure in settings) continue;
          problems.push(
            `${file}:${start + offset}: ${figure} is not in bench/RESULTS.md, and its paragraph does not say when it was measured`,
          );
        }
      });
    }
  }
  return { claims, problems };
}
