/**
 * Checks that hold what the docs say about the code to the repository, each a pure function of a
 * repository root (the real one in CI, an edited copy in the tests that prove a check fails): the
 * variable table of docs/local.md, the paths the docs name, their links and the sections they cite.
 * The options the docs show are held to their commands in docs-options.ts. Each returns what it
 * found wrong, one line per claim, and counts the claims it checked.
 */

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
    // A superseded ADR is a record of its day (ADR 29): the files it names may be gone.
    if (file.startsWith('docs/adr/') && /^Status: superseded/m.test(read(root, file))) continue;
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

/** Every Markdown file of the repository (git's list): the links of each are checked. */
const markdownFiles = (root: string): string[] => {
  const tracked = spawnSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  // An edited copy is not a git tree: its documents, and the package READMEs beside them.
  const files = tracked.length > 0 ? tracked : [...documents(root), 'packages/client/README.md', 'packages/sign-in/README.md'];
  return files.filter((file) => existsSync(join(root, file)));
};

/**
 * Cross-references: every relative link of every Markdown file resolves (and its `#anchor` is a heading of the target),
 * and every section cited by name after the word README (`the README's "Name"`, `README ("Name",
 * "Other")`, `README, "Name"`) is a heading of the README.
 */
export function checkSections(root: string): CheckResult {
  const problems: string[] = [];
  let claims = 0;
  const readme = headings(read(root, 'README.md'));
  const cited = new Set(documents(root));
  for (const file of markdownFiles(root)) {
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
    if (!cited.has(file)) continue;
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
// edited copies, to show a check fails on the mismatch it exists for

/**
 * The repository with these files edited (each edit must change its file): edited top-level folders
 * copied, the rest linked. `remove()` deletes the copy.
 */
export function editedCopy(from: string, edits: Readonly<Record<string, (text: string) => string>>): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'docs-checks-'));
  const touched = new Set(Object.keys(edits).map((file) => file.split('/')[0]!));
  for (const entry of readdirSync(from)) {
    if (entry === '.git') continue;
    if (touched.has(entry)) cpSync(join(from, entry), join(root, entry), { recursive: true });
    else symlinkSync(join(from, entry), join(root, entry));
  }
  for (const [file, edit] of Object.entries(edits)) {
    const path = join(root, file);
    const before = existsSync(path) ? readFileSync(path, 'utf8') : '';
    const after = edit(before);
    if (after === before) throw new Error(`the edit of ${file} changed nothing`);
    writeFileSync(path, after);
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
