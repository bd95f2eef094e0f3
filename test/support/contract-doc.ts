/**
 * docs/api-contract.md read as the contract suite's input: every table with a `status` column is a
 * list of claims (a case, its status, its body), so a row added, changed or mistyped in the
 * document changes what the suite checks, not a copy of it.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CONTRACT_DOC = fileURLToPath(new URL('../../docs/api-contract.md', import.meta.url));

export interface ContractRow {
  /** The heading the table sits under, e.g. `createUser` or `Order of checks`. */
  readonly table: string;
  /** The row's case cell as written (backticks included): the key of its scenario. */
  readonly case: string;
  readonly status: number;
  /** The body cell as written. */
  readonly body: string;
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
    i += 2;
    for (; i < lines.length && lines[i]!.startsWith('|'); i++) {
      if (caseColumn < 0 || statusColumn < 0 || bodyColumn < 0) continue;
      const row = cells(lines[i]!);
      if (!/^\d{3}$/.test(row[statusColumn] ?? '') || !row[bodyColumn]?.startsWith('`')) continue;
      rows.push({ table: heading, case: row[caseColumn]!, status: Number(row[statusColumn]), body: row[bodyColumn]! });
    }
    i--;
  }
  return rows;
}

/** `table / case`: how a row is named in test titles and failures. */
export const rowName = (row: Pick<ContractRow, 'table' | 'case'>) => `${row.table} / ${row.case}`;

/**
 * The body a row promises, with its placeholders (`<name>`, `<e-mail as stored>`) filled from
 * `fill`: a backticked JSON object is that object; any other backticked text is `{"message": text}`.
 * Throws naming a placeholder left unfilled.
 */
export function expectedBody(row: ContractRow, fill: Readonly<Record<string, unknown>> = {}): unknown {
  const quoted = /^`([^`]*)`/.exec(row.body);
  if (!quoted) throw new Error(`${rowName(row)}: the body cell does not start with a backticked body: ${row.body}`);
  const template = quoted[1]!;
  const isJson = template.startsWith('{');
  const filled = template.replace(/<[^<>]+>/g, (placeholder) => {
    if (!(placeholder in fill)) throw new Error(`${rowName(row)}: the scenario does not fill ${placeholder}`);
    const value = fill[placeholder];
    return isJson ? JSON.stringify(value) : String(value);
  });
  return isJson ? JSON.parse(filled) : { message: filled };
}

/** What differs between a row and an answer, or undefined when the answer is the row's. */
export function rowMismatch(
  row: ContractRow,
  answer: { status: number; body: unknown },
  fill?: Readonly<Record<string, unknown>>,
): string | undefined {
  const expected = expectedBody(row, fill);
  const same = answer.status === row.status && JSON.stringify(sortKeys(answer.body)) === JSON.stringify(sortKeys(expected));
  return same
    ? undefined
    : `${rowName(row)}: documented ${row.status} ${JSON.stringify(expected)}, answered ${answer.status} ${JSON.stringify(answer.body)}`;
}

const sortKeys = (value: unknown): unknown =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(
        Object.entries(value)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => [k, sortKeys(v)]),
      )
    : value;

/** The rows no scenario covers, by name (the suite fails naming them). */
export const rowsWithoutScenario = (rows: readonly ContractRow[], scenarios: Readonly<Record<string, Readonly<Record<string, unknown>>>>) =>
  rows.filter((row) => !scenarios[row.table]?.[row.case]).map(rowName);
