/**
 * Figures in the docs, each tied to its source (ADR 21). A figure is a number the prose states as a
 * measurement or a setting; `docs/figures.json` (the registry) lists every one, per document, with
 * enough context to find it and where its value comes from:
 *
 * - `{"run": "argon2.settings[setting=m=7168,t=5,p=1].cpu_ms"}`: the committed bench run,
 *   bench/RESULTS.json, at that key (`a.b` a member, `[k=v]` the array element whose `k` is `v`,
 *   `[2]` an index);
 * - `{"record": "docs/measurements/2026-11-24-sdk-floor.json", "value": "put_sdk_ms"}`: a dated
 *   measurement kept as data (command, date, raw output); the record's `values` says where in its raw
 *   output each value is (a regular expression with one group, matching once);
 * - `{"setting": "<file>", "pattern": "<regex with one group>"}`: a value the code sets, read there;
 * - `{"limit": "<whose limit, where documented>"}`: a limit or price set outside this repository;
 * - `{"arithmetic": "85 * 100000 / 1000000"}`: a figure computed from others, the sum shown;
 * - `{"file_size": "<path>"}`: the size in bytes of a file of the repository (a generated one);
 * - `{"example": "<why>"}`: a number a recipe or an example uses (back off 1, 2, 4, 8 s), no claim.
 *
 * What counts as a figure is {@link FIGURE}'s rule, never a word of its paragraph. The check finds
 * every figure of every document, requires one registry entry for each, and compares what the
 * document says with the source, at that key: a value found elsewhere in the run does not count.
 * `npm run figures -- --write` rewrites the documents' figures (and the registry's copies) from their
 * sources, so a new committed run is brought into the docs mechanically.
 */

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const REGISTRY = 'docs/figures.json';
export const RESULTS = 'bench/RESULTS.json';
export const MEASUREMENTS = 'docs/measurements';

export type Source =
  | { readonly run: string }
  | { readonly record: string; readonly value: string }
  | { readonly setting: string; readonly pattern: string }
  | { readonly limit: string }
  | { readonly arithmetic: string }
  | { readonly example: string }
  | { readonly file_size: string };

export interface FigureEntry {
  /** The figure as the document writes it: its number (or range) and unit. */
  readonly figure: string;
  /** Text around the figure, `{}` standing for it, that occurs once in the document (white space collapsed). */
  readonly context: string;
  /** Where its value comes from; a range (`0.85-0.99 ms`) has one source per end. */
  readonly source: Source | readonly Source[];
  /** Multiply the source's value before it is written (0.072 of a core as 7.2 %: 100; seconds as hours: "1 / 3600"). */
  readonly scale?: number | string;
  /** Decimal places written (rounding); by default the value as the source has it. */
  readonly decimals?: number;
}

export type Registry = Record<string, FigureEntry[]>;

export interface MeasurementRecord {
  /** What was run, as a shell command line. */
  readonly command: string;
  /** When: an ISO-8601 date or instant; the file name starts with its date. */
  readonly date: string;
  /** Where and how: the machine, its load, anything a reader needs to weigh the figures. */
  readonly conditions?: string;
  /** Where the raw output was kept until it became this record (a commit, a file), when it was not written here at once. */
  readonly raw_from?: string;
  /** The command's output, as printed. */
  readonly raw: string;
  /** Each value's place in `raw`: a regular expression with one group that matches exactly once. */
  readonly values: Record<string, string>;
}

export interface CheckResult {
  readonly claims: number;
  readonly problems: string[];
}

// ---------------------------------------------------------------------------------------------
// What a figure is

const NUMBER = String.raw`\d(?:[\d,]*\d)?(?:\.\d+)?`;
/** A number, or a range of two: `5-15`, `0.95 to 1.14`. */
const FIGURE_NUMBER = String.raw`${NUMBER}(?:(?:-|\s+to\s+)${NUMBER})?`;
const UNITS = [
  // time
  'ns',
  'µs',
  'us',
  'ms',
  's',
  'seconds?',
  'min',
  'minutes?',
  'hours?',
  'days?',
  'weeks?',
  // size
  'B',
  'bytes?',
  'KB',
  'kB',
  'KiB',
  'MB',
  'MiB',
  'GB',
  'GiB',
  // rate
  '[A-Za-z]+/s',
  '/s',
  'per second',
  // percentage
  '%',
].join('|');

/**
 * A figure: a number (digits, `,` between thousands, a decimal part), or a range of two (`5-15`,
 * `0.95 to 1.14`),
 * that is not part of a name (`m=7168`, `v1`, `key_0123`, `0x20`, `2026-11-25`, `§3.1.1.2`, `15:59`)
 * and either
 * - carries a unit of time, size, rate or share after a space: ns, µs, ms, s, seconds, minutes,
 *   hours, days, weeks; B, bytes, KB, KiB, MB, MiB, GB; `<things>/s`, per second; or `%` or `/s`
 *   right after it (`500s`, HTTP statuses, and `800-63B`, a name, are not figures);
 * - or is a ratio or a count in millions: a decimal number followed by `×` or `M` (`1.018 ×`, `0.69 M`);
 * - or is a decimal number with three or more decimal places, whatever follows (`0.2324`, `0.875`).
 * A bare count (480 hashes, 100 failures, 202,635 passwords) is not a figure by this rule.
 * Code (inline and fenced) is not prose: numbers in it are not figures.
 */
export const FIGURE = new RegExp(
  String.raw`(?<![\w.=/:#$@<§+-])(${FIGURE_NUMBER})` +
    String.raw`(?:(\s(?:${UNITS})|%|/s)(?![\w/-])|(?<=\.\d+)(\s?(?:×|M)(?![\w]))|(?<=\.\d{3,}))(?![\w.]?\d)`,
  'gu',
);

/**
 * A block a generator writes and its own test holds equal to the generator's output
 * (`<!-- capacity:tables:begin: generated by ... -->` to `<!-- capacity:tables:end -->`, held by
 * test/unit/capacity-doc.test.ts against the committed run): its figures come from the generator's
 * sources, not from the registry.
 */
export const GENERATED_BLOCK = /<!-- ([\w:-]+):begin: generated by [\s\S]*?-->[\s\S]*?<!-- \1:end -->/g;

/** The prose of a document with code and generated blocks blanked out (same length, line breaks kept), so positions stay. */
export function prose(markdown: string): string {
  const blank = (text: string) => text.replace(/[^\n]/g, ' ');
  return markdown
    .replace(GENERATED_BLOCK, blank)
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, blank)
    .replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, blank)
    .replace(/\]\([^)\s]*\)/g, blank)
    .replace(/<!--[\s\S]*?-->/g, blank);
}

export interface Found {
  /** Offset in the document. */
  readonly index: number;
  readonly line: number;
  /** The number or range, as written. */
  readonly number: string;
  /** The number and its unit, as written. */
  readonly text: string;
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** Every figure of a document, by the rule above. */
export function figuresIn(markdown: string): Found[] {
  const text = prose(markdown);
  return [...text.matchAll(FIGURE)].map((match) => ({
    index: match.index,
    line: lineOf(markdown, match.index),
    number: match[1]!,
    text: match[0],
  }));
}

// ---------------------------------------------------------------------------------------------
// Finding a registered figure

/** The document with runs of white space made one space, and where each character came from. */
let flattened: { markdown: string; flat: string; origin: number[] } | undefined;
function flatten(markdown: string): { flat: string; origin: number[] } {
  if (flattened?.markdown === markdown) return flattened;
  const chars: string[] = [];
  const origin: number[] = [];
  let space = false;
  for (let i = 0; i < markdown.length; i++) {
    const char = markdown[i]!;
    const white = char === ' ' || char === '\n' || char === '\t' || char === '\r' || /\s/.test(char);
    if (white && space) continue;
    space = white;
    chars.push(white ? ' ' : char);
    origin.push(i);
  }
  flattened = { markdown, flat: chars.join(''), origin };
  return flattened;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where an entry's figure stands in the document: its offsets, or why it cannot be placed. */
export function locate(markdown: string, entry: Pick<FigureEntry, 'context'>): { index: number; end: number } | { error: string } {
  const parts = entry.context.split('{}');
  if (parts.length !== 2) return { error: `its context must hold {} once: ${JSON.stringify(entry.context)}` };
  const { flat, origin } = flatten(markdown);
  const [before, after] = parts.map((part) => escapeRegExp(part.replace(/\s+/g, ' '))) as [string, string];
  const pattern = new RegExp(`${before}(${FIGURE_NUMBER})${after}`, 'g');
  const matches = [...flat.matchAll(pattern)];
  if (matches.length === 0) return { error: `not found (context ${JSON.stringify(entry.context)})` };
  if (matches.length > 1) return { error: `its context occurs ${matches.length} times: make it longer (${JSON.stringify(entry.context)})` };
  const start = matches[0]!.index + parts[0]!.replace(/\s+/g, ' ').length;
  return { index: origin[start]!, end: origin[start + matches[0]![1]!.length - 1]! + 1 };
}

// ---------------------------------------------------------------------------------------------
// Sources

/**
 * The value at a key path of the bench report: `a.b` a member; `a[name]` or `a["name"]` a member whose
 * name is not a plain word; on an array, `a[k=v]` the element whose `k` is `v` and `a[0]` an index.
 */
export function valueAt(data: unknown, path: string): unknown {
  let value = data;
  for (const step of path.match(/[^.[\]]+|\[[^\]]*\]/g) ?? []) {
    if (step.startsWith('[') && Array.isArray(value)) {
      const inner = step.slice(1, -1);
      const eq = inner.indexOf('=');
      value =
        eq < 0
          ? value[Number(inner)]
          : value.find((item) => String((item as Record<string, unknown>)?.[inner.slice(0, eq)]) === inner.slice(eq + 1));
    } else if (step.startsWith('[')) {
      // A member whose name is not a plain word (`settings[m=7168,t=5,p=1]`).
      const name = step.slice(1, -1).replace(/^"(.*)"$/, '$1');
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
    } else {
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined;
    }
  }
  return value;
}

/** A number from a source's text: `1,769` and `10_000` are 1769 and 10000. */
const numeric = (value: unknown): number | undefined => {
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.replace(/[,_]/g, '')) : Number.NaN;
  return Number.isFinite(number) ? number : undefined;
};

/** `+ - * /` and parentheses over numbers: an arithmetic source's value. */
export function evaluate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|[-+*/()]|\S/g) ?? [];
  let at = 0;
  const expect = (token: string) => {
    if (tokens[at++] !== token) throw new Error(`expected ${token} in ${expression}`);
  };
  const primary = (): number => {
    const token = tokens[at++];
    if (token === '(') {
      const value = sum();
      expect(')');
      return value;
    }
    if (token === '-') return -primary();
    const value = Number(token);
    if (token === undefined || !Number.isFinite(value)) throw new Error(`not arithmetic: ${expression}`);
    return value;
  };
  const product = (): number => {
    let value = primary();
    while (tokens[at] === '*' || tokens[at] === '/') value = tokens[at++] === '*' ? value * primary() : value / primary();
    return value;
  };
  const sum = (): number => {
    let value = product();
    while (tokens[at] === '+' || tokens[at] === '-') value = tokens[at++] === '+' ? value + product() : value - product();
    return value;
  };
  const value = sum();
  if (at !== tokens.length) throw new Error(`not arithmetic: ${expression}`);
  return value;
}

export interface Sources {
  readonly root: string;
  /** bench/RESULTS.json, parsed; undefined when there is none. */
  readonly results: unknown;
  /** Records and files read so far, by path. */
  readonly cache: Map<string, unknown>;
}

export function readSources(root: string): Sources {
  const file = join(root, RESULTS);
  return { root, results: existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined, cache: new Map() };
}

/** A file's text, read once per check. */
function cached<T>(sources: Sources, path: string, read: () => T): T {
  if (!sources.cache.has(path)) sources.cache.set(path, read());
  return sources.cache.get(path) as T;
}

/** A record's value by name: the text its pattern's group captures in the raw output (exactly one match). */
export function recordText(
  record: MeasurementRecord,
  name: string,
): { text: string; error?: undefined } | { text?: undefined; error: string } {
  const pattern = record.values?.[name];
  if (pattern === undefined) return { error: `has no value ${JSON.stringify(name)}` };
  const matches = [...record.raw.matchAll(new RegExp(pattern, 'g'))];
  if (matches.length !== 1) return { error: `value ${name}'s pattern matches ${matches.length} times in the raw output, not once` };
  const text = matches[0]![1];
  if (text === undefined || numeric(text) === undefined)
    return { error: `value ${name} is not a number in the raw output: ${JSON.stringify(text)}` };
  return { text };
}

function readRecord(sources: Sources, file: string): MeasurementRecord | string {
  const path = join(sources.root, file);
  if (!file.startsWith(`${MEASUREMENTS}/`) || !existsSync(path)) return `record ${file} does not exist under ${MEASUREMENTS}/`;
  return cached(sources, path, () => JSON.parse(readFileSync(path, 'utf8')) as MeasurementRecord);
}

/** A source's value, and its decimal places when it was written as text (a record's `1.20` keeps two). */
export interface Value {
  readonly value: number;
  readonly places?: number;
}

const fromText = (text: string): Value | undefined => {
  const value = numeric(text);
  return value === undefined ? undefined : { value, places: /\.(\d+)$/.exec(text.trim())?.[1]?.length ?? 0 };
};

/** A source's value, or why there is none. Limits and examples have no value to compare: `null`. */
export function sourceValue(sources: Sources, source: Source): Value | null | { error: string } {
  const number = (value: number | undefined | { error: string }) =>
    typeof value === 'number' ? { value } : (value ?? { error: 'no number' });
  if ('run' in source) {
    if (sources.results === undefined) return { error: `${RESULTS} does not exist (npm run bench writes it)` };
    const value = numeric(valueAt(sources.results, source.run));
    return value === undefined ? { error: `${RESULTS} has no number at ${source.run}` } : { value };
  }
  if ('record' in source) {
    const record = readRecord(sources, source.record);
    if (typeof record === 'string') return { error: record };
    const value = recordText(record, source.value);
    return (value.text !== undefined && fromText(value.text)) || { error: `${source.record}: ${value.error}` };
  }
  if ('setting' in source) {
    const path = join(sources.root, source.setting);
    if (!existsSync(path)) return { error: `setting file ${source.setting} does not exist` };
    const matches = [...cached(sources, path, () => readFileSync(path, 'utf8')).matchAll(new RegExp(source.pattern, 'g'))];
    if (matches.length !== 1) return { error: `${source.setting}: /${source.pattern}/ matches ${matches.length} times, not once` };
    // A pattern without a group ties a value that is not a number (`RetentionDays.ONE_WEEK`): found once is the check.
    if (matches[0]!.length === 1) return null;
    const captured = matches[0]![1]?.replace(/_/g, '');
    if (captured === undefined) return { error: `${source.setting}: /${source.pattern}/ captures nothing` };
    try {
      return /^[\d.,\s]+$/.test(captured)
        ? (fromText(captured) ?? { error: `${captured} is not a number` })
        : { value: evaluate(captured) };
    } catch {
      return { error: `${source.setting}: /${source.pattern}/ captures ${JSON.stringify(captured)}, not a number` };
    }
  }
  if ('file_size' in source) {
    const path = join(sources.root, source.file_size);
    return existsSync(path) ? { value: statSync(path).size } : { error: `${source.file_size} does not exist` };
  }
  if ('arithmetic' in source) {
    try {
      return number(evaluate(source.arithmetic));
    } catch (error) {
      return { error: (error as Error).message };
    }
  }
  const why = 'limit' in source ? source.limit : 'example' in source ? source.example : undefined;
  if (typeof why === 'string' && why.trim().length > 10) return null;
  return { error: `not a source: ${JSON.stringify(source)}` };
}

/** A source as the check names it. */
export const describeSource = (source: Source): string =>
  'run' in source
    ? `${RESULTS} ${source.run}`
    : 'record' in source
      ? `${source.record} ${source.value}`
      : 'setting' in source
        ? `${source.setting} /${source.pattern}/`
        : 'arithmetic' in source
          ? `arithmetic ${source.arithmetic}`
          : 'file_size' in source
            ? `the size of ${source.file_size}`
            : 'limit' in source
              ? `limit (${source.limit})`
              : `example (${(source as { example: string }).example})`;

/**
 * A value as the document writes it: scaled, rounded to the entry's decimals (else as many as the
 * source wrote, else as the number has), thousands grouped when the document groups them.
 */
export function render({ value, places }: Value, entry: Pick<FigureEntry, 'scale' | 'decimals'>, grouped: boolean): string {
  const scaled = value * (typeof entry.scale === 'string' ? evaluate(entry.scale) : (entry.scale ?? 1));
  const decimals = entry.decimals ?? (entry.scale === undefined ? places : undefined);
  const fixed = decimals === undefined ? String(Number(scaled.toPrecision(12))) : scaled.toFixed(decimals);
  if (!grouped) return fixed;
  const [whole, fraction] = fixed.split('.') as [string, string | undefined];
  return `${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${fraction === undefined ? '' : `.${fraction}`}`;
}

const NUMBERS = new RegExp(NUMBER, 'g');

/** What an entry's figure should read, from its sources: the number (or range), or why it cannot be said. */
export function expectedNumber(sources: Sources, entry: FigureEntry, written: string): string | null | { error: string } {
  const list = Array.isArray(entry.source) ? entry.source : [entry.source as Source];
  const parts = written.match(NUMBERS) ?? [];
  if (parts.length !== list.length) return { error: `${written} has ${parts.length} numbers and ${list.length} sources` };
  const rendered: string[] = [];
  for (const [i, source] of list.entries()) {
    const value = sourceValue(sources, source);
    if (value === null) return null;
    if ('error' in value) return value;
    rendered.push(render(value, entry, parts[i]!.includes(',')));
  }
  let i = 0;
  return written.replace(NUMBERS, () => rendered[i++]!);
}

// ---------------------------------------------------------------------------------------------
// The check

/** The documents whose figures are checked: README, CONTRIBUTING, bench/README.md, docs/ and its ADRs. */
export function figureDocuments(root: string): string[] {
  const docs = ['README.md', 'CONTRIBUTING.md', 'bench/README.md'];
  for (const dir of ['docs', 'docs/adr']) {
    if (!existsSync(join(root, dir))) continue;
    for (const name of readdirSync(join(root, dir)).sort()) if (name.endsWith('.md')) docs.push(`${dir}/${name}`);
  }
  return docs.filter((file) => existsSync(join(root, file)));
}

export function readRegistry(root: string): Registry {
  return JSON.parse(readFileSync(join(root, REGISTRY), 'utf8')) as Registry;
}

/** Every dated record under docs/measurements: its fields, its file name, and every value found once in its raw output. */
export function checkRecords(root: string): CheckResult {
  const problems: string[] = [];
  let claims = 0;
  const dir = join(root, MEASUREMENTS);
  if (!existsSync(dir)) return { claims, problems };
  for (const name of readdirSync(dir).sort()) {
    const file = `${MEASUREMENTS}/${name}`;
    if (!/^\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.json$/.test(name)) {
      problems.push(`${file}: a record is named <yyyy-mm-dd>-<name>.json`);
      continue;
    }
    const record = JSON.parse(readFileSync(join(dir, name), 'utf8')) as MeasurementRecord;
    for (const field of ['command', 'date', 'raw'] as const) {
      if (typeof record[field] !== 'string' || record[field].trim() === '') problems.push(`${file}: no ${field}`);
    }
    if (typeof record.date === 'string' && !record.date.startsWith(name.slice(0, 10)))
      problems.push(`${file}: dated ${record.date}, named ${name.slice(0, 10)}`);
    for (const value of Object.keys(record.values ?? {})) {
      claims++;
      const found = recordText(record, value);
      if (found.error !== undefined) problems.push(`${file}: ${found.error}`);
    }
  }
  return { claims, problems };
}

/**
 * Every figure of every document has exactly one registry entry, found by its context, reading
 * what its source says (at its key, not anywhere in the run); every entry is found; every record is
 * whole. `claims` counts the figures compared.
 */
export function checkFigures(root: string, sources: Sources = readSources(root), registry: Registry = readRegistry(root)): CheckResult {
  const problems: string[] = [];
  let claims = 0;
  const documents = figureDocuments(root);
  for (const file of Object.keys(registry)) {
    if (!documents.includes(file)) problems.push(`${REGISTRY}: ${file} is not a document the check reads`);
  }
  for (const file of documents) {
    const markdown = readFileSync(join(root, file), 'utf8');
    const covered = new Set<number>();
    for (const entry of registry[file] ?? []) {
      claims++;
      const place = locate(markdown, entry);
      const label = `${file}: ${entry.figure}`;
      if ('error' in place) {
        problems.push(`${label} ${place.error}`);
        continue;
      }
      covered.add(place.index);
      const line = lineOf(markdown, place.index);
      const written = markdown.slice(place.index, place.end).replace(/\s+/g, ' ');
      const where = `${file}:${line}`;
      if (!entry.figure.startsWith(written) || /^[\d.,]/.test(entry.figure.slice(written.length)))
        problems.push(`${where}: the document says ${written}, the registry's copy ${entry.figure}`);
      const expected = expectedNumber(sources, entry, written);
      if (expected === null) continue;
      const list = (Array.isArray(entry.source) ? entry.source : [entry.source]) as Source[];
      if (typeof expected === 'object') problems.push(`${where}: ${written} (${list.map(describeSource).join(', ')}): ${expected.error}`);
      else if (expected !== written) problems.push(`${where}: ${written}, but ${list.map(describeSource).join(', ')} says ${expected}`);
    }
    for (const found of figuresIn(markdown)) {
      if (covered.has(found.index)) continue;
      claims++;
      problems.push(`${file}:${found.line}: ${found.text.trim()} has no source (no entry in ${REGISTRY})`);
    }
  }
  const recordCheck = checkRecords(root);
  return { claims: claims + recordCheck.claims, problems: [...problems, ...recordCheck.problems] };
}

/**
 * The documents with every figure that has a source rewritten from it, and the registry's copies
 * with them: what `npm run figures -- --write` saves. Figures that cannot be placed or have no
 * value are left as they are (the check names them).
 */
export function rewriteFigures(
  root: string,
  sources: Sources = readSources(root),
  registry: Registry = readRegistry(root),
): { documents: Record<string, string>; registry: Registry; changed: string[] } {
  const documents: Record<string, string> = {};
  const changed: string[] = [];
  const next: Registry = {};
  for (const [file, entries] of Object.entries(registry)) {
    let markdown = readFileSync(join(root, file), 'utf8');
    const edits: { index: number; end: number; text: string }[] = [];
    next[file] = entries.map((entry) => {
      const place = locate(markdown, entry);
      if ('error' in place) return entry;
      const written = markdown.slice(place.index, place.end);
      const expected = expectedNumber(sources, entry, written);
      if (expected === null || typeof expected === 'object' || expected === written) return entry;
      edits.push({ ...place, text: expected });
      changed.push(`${file}:${lineOf(markdown, place.index)}: ${written} -> ${expected}`);
      return { ...entry, figure: expected + entry.figure.slice(written.length) };
    });
    for (const edit of edits.sort((a, b) => b.index - a.index)) {
      markdown = markdown.slice(0, edit.index) + edit.text + markdown.slice(edit.end);
    }
    documents[file] = markdown;
  }
  return { documents, registry: next, changed };
}

/**
 * A context for a figure found at `index`: the words around it, lengthened until it occurs once.
 * What `npm run figures -- --list` suggests for a new entry.
 */
export function suggestContext(markdown: string, found: Found): string {
  const { flat, origin } = flatten(markdown);
  const at = origin.indexOf(found.index);
  const end = at + found.number.replace(/\s+/g, ' ').length;
  for (let words = 2; words < 30; words++) {
    let start = at;
    for (let n = 0; n < words && start > 0; n++) start = flat.lastIndexOf(' ', start - 2) + 1;
    let stop = end;
    for (let n = 0; n < words && stop < flat.length; n++) {
      const space = flat.indexOf(' ', stop + 1);
      stop = space < 0 ? flat.length : space;
    }
    const context = `${flat.slice(start, at)}{}${flat.slice(end, stop)}`;
    const place = locate(markdown, { context });
    if (!('error' in place) && place.index === found.index) return context;
  }
  return `${flat.slice(Math.max(0, at - 60), at)}{}${flat.slice(end, end + 60)}`;
}

/** The registry entry of `file` whose (first) source `matches`: how a test or the mutation run finds a figure. */
export function registeredFigure(registry: Registry, file: string, matches: (source: Source) => boolean): FigureEntry {
  const entry = (registry[file] ?? []).find((candidate) =>
    matches((Array.isArray(candidate.source) ? candidate.source[0] : candidate.source) as Source),
  );
  if (!entry) throw new Error(`${REGISTRY}: no figure of ${file} with that source`);
  return entry;
}

/** An edit of a document that writes `to(written)` in place of a registered figure's number. */
export const figureEdit =
  (entry: Pick<FigureEntry, 'context'>, to: (written: string) => string) =>
  (markdown: string): string => {
    const place = locate(markdown, entry);
    if ('error' in place) throw new Error(`the figure is ${place.error}`);
    return markdown.slice(0, place.index) + to(markdown.slice(place.index, place.end)) + markdown.slice(place.end);
  };
