/**
 * docs/api-contract.md read as the contract suite's input: every table with a `status` column is a
 * list of claims (a case, its status, its body and headers), so a row added, changed or mistyped in
 * the document changes what the suite checks, not a copy of it. An answer is compared as bytes: the
 * body exactly as the service must send it (compact JSON, the document's key order) and the headers
 * that carry meaning. The messages the document quotes, prose included, are compared with every
 * message the code can answer, both ways (`messageProblems`).
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CONTRACT_DOC = fileURLToPath(new URL('../../docs/api-contract.md', import.meta.url));

export interface ContractRow {
  /** The row's stable id (its `id` cell, e.g. `order-401b`): the key of its scenario, so the case text stays free to edit. */
  readonly id: string;
  /** The heading the table sits under, e.g. `createUser` or `Order of checks`. */
  readonly table: string;
  /** The row's case cell as written (backticks included): each clause needs a probe. */
  readonly case: string;
  readonly status: number;
  /** The body cell as written. */
  readonly body: string;
  /** The `where` cell, when the table has one: which target shows the row (`npm run test:staging`: a deployed stage only). */
  readonly where?: string;
}

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/**
 * Every row of every table with a `status` column and a case column (`case`, `refusal` or `limit`).
 * A row without a three-digit status or without a backticked body (`per operation`, `see ...`: a
 * pointer to another table) states nothing of its own and is left out.
 */
export function contractRows(markdown: string = readFileSync(CONTRACT_DOC, 'utf8')): ContractRow[] {
  const rows: ContractRow[] = [];
  const lines = markdown.split('\n');
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const title = /^#{1,6}\s+(.*)$/.exec(line);
    if (title) heading = title[1]!.trim();
    if (!line.startsWith('|') || !lines[i + 1]?.match(/^\|\s*-/)) continue;
    const header = cells(line);
    const caseColumn = header.findIndex((name) => ['case', 'refusal', 'limit'].includes(name));
    const statusColumn = header.indexOf('status');
    const bodyColumn = header.findIndex((name) => name === 'message' || name.startsWith('body'));
    const whereColumn = header.indexOf('where');
    const idColumn = header.indexOf('id');
    i += 2;
    for (; i < lines.length && lines[i]!.startsWith('|'); i++) {
      if (caseColumn < 0 || statusColumn < 0 || bodyColumn < 0) continue;
      const row = cells(lines[i]!);
      if (!/^\d{3}$/.test(row[statusColumn] ?? '') || !row[bodyColumn]?.startsWith('`')) continue;
      rows.push({
        id: idColumn >= 0 ? (row[idColumn] ?? '') : '',
        table: heading,
        case: row[caseColumn]!,
        status: Number(row[statusColumn]),
        body: row[bodyColumn]!,
        ...(whereColumn >= 0 && { where: row[whereColumn] ?? '' }),
      });
    }
    i--;
  }
  return rows;
}

/** `table / case`: how a row is named in test titles and failures. */
export const rowName = (row: Pick<ContractRow, 'table' | 'case'>) => `${row.table} / ${row.case}`;

/** A row only a deployed stage shows (its `where` cell names `npm run test:staging`): not run locally. */
export const deployedOnly = (row: ContractRow) => row.where?.includes('test:staging') === true;

/**
 * The body a row promises, as the bytes the service must send, with its placeholders (`<name>`,
 * `<e-mail as stored>`) filled from `fill`: a backticked JSON object is that object as compact JSON
 * in the document's key order; any other backticked text is `{"message":"<text>"}`. Throws naming
 * a placeholder left unfilled.
 */
export function expectedBody(row: ContractRow, fill: Readonly<Record<string, unknown>> = {}): string {
  const quoted = /^`([^`]*)`/.exec(row.body);
  if (!quoted) throw new Error(`${rowName(row)}: the body cell does not start with a backticked body: ${row.body}`);
  const template = quoted[1]!;
  const isJson = template.startsWith('{');
  const filled = template.replace(/<[^<>]+>/g, (placeholder) => {
    if (!(placeholder in fill)) throw new Error(`${rowName(row)}: the scenario does not fill ${placeholder}`);
    const value = fill[placeholder];
    return isJson ? JSON.stringify(value) : String(value);
  });
  return JSON.stringify(isJson ? JSON.parse(filled) : { message: filled });
}

/** The headers whose value an answer must have or must not have: absent unless the contract names them. */
export const MEANINGFUL_HEADERS = ['content-type', 'allow', 'retry-after', 'idempotent-replayed'] as const;

/**
 * The headers a row promises: `Content-Type: application/json` on every answer (the contract's
 * "Requests and responses"), those named in backticks in its case or body cell (`Allow: POST`,
 * `Retry-After: <window in seconds>`), and none of the other meaningful ones (null: must be absent).
 */
export function expectedHeaders(row: ContractRow, fill: Readonly<Record<string, unknown>> = {}): Record<string, string | null> {
  const expected: Record<string, string | null> = Object.fromEntries(MEANINGFUL_HEADERS.map((name) => [name, null]));
  expected['content-type'] = 'application/json';
  for (const cell of [row.case, row.body]) {
    for (const [, name, value] of cell.matchAll(/`([A-Z][A-Za-z0-9]*(?:-[A-Z][A-Za-z0-9]*)*): (<[^<>`]+>|[^\s`]+)`/g)) {
      expected[name!.toLowerCase()] = value!.replace(/<[^<>]+>/g, (placeholder) => {
        if (!(placeholder in fill)) throw new Error(`${rowName(row)}: the scenario does not fill ${placeholder}`);
        return String(fill[placeholder]);
      });
    }
  }
  return expected;
}

export interface Answer {
  readonly status: number;
  readonly bytes: Uint8Array;
  readonly headers: Headers;
}

/** What differs between a row and an answer (status, body bytes, meaningful headers), or undefined when the answer is the row's. */
export function rowMismatch(row: ContractRow, answer: Answer, fill?: Readonly<Record<string, unknown>>): string | undefined {
  const body = expectedBody(row, fill);
  const headers = expectedHeaders(row, fill);
  const got = Buffer.from(answer.bytes);
  const differences: string[] = [];
  if (answer.status !== row.status || !got.equals(Buffer.from(body))) {
    // The answer as it came, line breaks and other control characters shown escaped.
    const shown = [...got.toString('utf8')].map((char) => (char < ' ' ? JSON.stringify(char).slice(1, -1) : char)).join('');
    differences.push(`documented ${row.status} ${body}, answered ${answer.status} ${shown}`);
  }
  for (const [name, value] of Object.entries(headers)) {
    const actual = answer.headers.get(name);
    if (actual !== value) differences.push(`header ${name}: documented ${value ?? '(absent)'}, answered ${actual ?? '(absent)'}`);
  }
  return differences.length === 0 ? undefined : `${rowName(row)}: ${differences.join('; ')}`;
}

/**
 * The clauses of a row's case: its text split at the top level (outside parentheses and backticks)
 * on `, ` and ` or `. `the key ... absent, null or empty` has three; each needs a probe.
 */
export function rowClauses(text: string): string[] {
  const clauses: string[] = [];
  let depth = 0;
  let code = false;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '`') code = !code;
    else if (!code && char === '(') depth++;
    else if (!code && char === ')') depth--;
    const rest = text.slice(i);
    const split = !code && depth === 0 ? (/^, or /.exec(rest) ?? /^, /.exec(rest) ?? /^ or /.exec(rest)) : null;
    if (split) {
      clauses.push(current.trim());
      current = '';
      i += split[0].length - 1;
      continue;
    }
    current += char;
  }
  clauses.push(current.trim());
  return clauses.filter(Boolean);
}

/**
 * The clauses no probe names: a probe's label (up to a `:`, which starts its detail) names a clause
 * when the clause contains it. A row of one clause is covered by any probe.
 */
export function uncoveredClauses(row: Pick<ContractRow, 'case'>, labels: readonly string[]): string[] {
  const clauses = rowClauses(row.case);
  if (clauses.length === 1) return labels.length > 0 ? [] : clauses;
  const heads = labels.map((label) => label.split(': ')[0]!.trim());
  return clauses.filter((clause) => !heads.some((head) => head !== '' && clause.includes(head)));
}

/** The rows no scenario covers, by name (the suite fails naming them). */
export const rowsWithoutScenario = (rows: readonly ContractRow[], scenarios: Readonly<Record<string, unknown>>) =>
  rows.filter((row) => row.id === '' || !Object.hasOwn(scenarios, row.id)).map(rowName);

/** Ids given to more than one row, or rows without one: each row's id must be its own. */
export const idProblems = (rows: readonly ContractRow[]) => [
  ...rows.filter((row) => row.id === '').map((row) => `${rowName(row)}: no id`),
  ...[...new Set(rows.map((row) => row.id))]
    .filter((id) => id !== '' && rows.filter((row) => row.id === id).length > 1)
    .map((id) => `${id}: more than one row`),
];

// ---------------------------------------------------------------------------------------------
// The messages the document quotes, against the code's

/** A message the document quotes, and where. */
export interface QuotedMessage {
  readonly text: string;
  readonly line: number;
  /** A table row's body, or prose. */
  readonly in: 'row' | 'prose';
}

const HEADER_LINE = /^[A-Z][A-Za-z0-9]*(?:-[A-Z][A-Za-z0-9]*)*: (?:\S+|<[^>]+>)$/;

/**
 * A backticked span of prose is a message when it is a `{"message": ...}` body (after an optional
 * status), a status followed by text (`400 Idempotency-Key is invalid.`), or reads as a sentence:
 * two or more words of letters, digits and `_ - ' " < > . , :` only, not a header line
 * (`Allow: POST`), not a command (its first word `npm`, `admin`, an admin command, an HTTP method,
 * or an option).
 */
export function messageOfSpan(span: string, commands: readonly string[] = []): string | undefined {
  const text = span.trim();
  const body = /^(?:\d{3} )?(\{.*\})$/.exec(text)?.[1];
  if (body !== undefined) {
    try {
      const message = (JSON.parse(body) as { message?: unknown }).message;
      return typeof message === 'string' && !/^\.+$/.test(message) ? message : undefined;
    } catch {
      return undefined;
    }
  }
  const afterStatus = /^\d{3} (.+)$/.exec(text)?.[1] ?? text;
  if (!/^[\p{L}\p{N}_\-'"<>.,: ]+$/u.test(afterStatus) || !afterStatus.includes(' ')) return undefined;
  if (HEADER_LINE.test(afterStatus)) return undefined;
  const first = afterStatus.split(' ')[0]!;
  if (['npm', 'admin', 'POST', 'GET', 'PUT', 'DELETE'].includes(first) || first.startsWith('-') || commands.includes(first))
    return undefined;
  return afterStatus;
}

/**
 * Spans of the contract's prose that read as sentences and are no answer of the API, each named:
 * an import line's failure reason (docs/migration.md lists them; the import's own tests hold them to
 * IMPORT_REASONS), and the passwords of the "Context words" bullet, which
 * test/http/password-spellings.test.ts sends as written.
 */
export const NOT_API_MESSAGES: ReadonlySet<string> = new Set([
  'duplicate field <name>',
  'Acme Acme',
  'my ACME passphrase',
  'WidgetWorks 2026',
]);

/** Every message the document quotes: each row's body, and each message-like span of its prose. */
export function quotedMessages(markdown: string, commands: readonly string[] = []): QuotedMessage[] {
  const quoted: QuotedMessage[] = [];
  const lines = markdown.split('\n');
  /** Each row's body cell, by line: counted as the row's, not as prose. */
  const bodies = new Map<number, string>();
  for (const row of contractRows(markdown)) {
    const line =
      lines.findIndex(
        (candidate) => candidate.startsWith('|') && candidate.includes(row.body) && !bodies.has(lines.indexOf(candidate) + 1),
      ) + 1;
    bodies.set(line, row.body);
    const template = /^`([^`]*)`/.exec(row.body)![1]!;
    const text = template.startsWith('{') ? messageOfSpan(template.replace(/<[^<>]+>/g, '"<placeholder>"')) : template;
    if (text !== undefined) quoted.push({ text, line, in: 'row' });
  }
  // Prose: inline code outside code blocks (a span may run over a line break) and outside the rows' body cells.
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '));
  for (const match of text.matchAll(/`([^`]+)`/g)) {
    const line = text.slice(0, match.index).split('\n').length;
    if (bodies.get(line)?.includes(match[0])) continue;
    const message = messageOfSpan(match[1]!.replace(/\s+/g, ' '), commands);
    if (message !== undefined && !NOT_API_MESSAGES.has(message)) quoted.push({ text: message, line, in: 'prose' });
  }
  return quoted;
}

const MARK = '\u0000';

/** A message template with its parameters marked (`Unknown parameter: \0name\0.`). */
export type Template = string;

/**
 * The messages the code can answer, as templates: every string of `messages` (the catalogue,
 * functions/shared/contract/messages.ts), every function of it called with marked parameters, and
 * every `{"message":"..."}` literal in `sources` (the texts of the files that answer without the
 * catalogue: API Gateway's gateway responses).
 */
export function catalogue(messages: Readonly<Record<string, unknown>>, sources: readonly string[] = []): Template[] {
  const templates = new Set<Template>();
  const marked = (name: string) => `${MARK}${name}${MARK}`;
  const argument = (index: number) =>
    new Proxy(
      {},
      {
        get: (_, key) =>
          key === Symbol.toPrimitive
            ? () => marked(`arg${index}`)
            : // A string parameter may be iterated (echoedName counts code points): as the marked text.
              key === Symbol.iterator
              ? () => marked(`arg${index}`)[Symbol.iterator]()
              : typeof key === 'string'
                ? marked(key)
                : undefined,
      },
    );
  const visit = (value: unknown) => {
    if (typeof value === 'string') templates.add(value);
    else if (typeof value === 'function') {
      const args = Array.from({ length: value.length }, (_, i) => argument(i));
      const result = (value as (...args: unknown[]) => unknown)(...args);
      if (typeof result === 'string') templates.add(result);
    } else if (value && typeof value === 'object') for (const inner of Object.values(value)) visit(inner);
  };
  visit(messages);
  for (const source of sources) {
    for (const match of source.matchAll(/\{"message":"((?:[^"\\]|\\.)*)"\}/g)) templates.add(JSON.parse(`"${match[1]!}"`) as string);
  }
  return [...templates];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether a quoted message and a template are the same message (a placeholder on either side stands for any text). */
export function sameMessage(quoted: string, template: Template): boolean {
  const templatePattern = new RegExp(`^${escapeRegExp(template).replace(new RegExp(`${MARK}[^${MARK}]*${MARK}`, 'g'), '.+')}$`, 's');
  if (templatePattern.test(quoted)) return true;
  const quotedPattern = new RegExp(`^${escapeRegExp(quoted).replace(/<[^<>]+>/g, '.+')}$`, 's');
  return quotedPattern.test(template.replace(new RegExp(`${MARK}([^${MARK}]*)${MARK}`, 'g'), '<$1>'));
}

/**
 * Both ways: every message the document quotes is one the code can answer, and every message the
 * code can answer is quoted in the document.
 */
export function messageProblems(quoted: readonly QuotedMessage[], templates: readonly Template[]): string[] {
  const problems: string[] = [];
  for (const message of quoted) {
    if (!templates.some((template) => sameMessage(message.text, template)))
      problems.push(`docs/api-contract.md:${message.line}: \`${message.text}\` (${message.in}) is no message the code answers`);
  }
  for (const template of templates) {
    if (!quoted.some((message) => sameMessage(message.text, template)))
      problems.push(
        `the code answers \`${template.replace(new RegExp(`${MARK}([^${MARK}]*)${MARK}`, 'g'), '<$1>')}\`, which docs/api-contract.md does not list`,
      );
  }
  return problems;
}
