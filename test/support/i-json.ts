/**
 * A strict reader for I-JSON (RFC 7493), which the OpenAPI document must be so that every
 * tool reads it: jq 1.6, for one, refuses a lone surrogate escape anywhere in a document.
 * RFC 7493: texts "MUST be encoded using UTF-8"; names and strings "MUST NOT include code
 * points that identify Surrogates or Noncharacters"; "Objects in I-JSON messages MUST NOT
 * have members with duplicate names"; numbers SHOULD stay within IEEE 754 double precision.
 * JSON.parse checks the grammar but accepts all four; a scan of the checked text does the rest.
 */

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Noncharacters: U+FDD0..U+FDEF and the last two code points of every plane. */
const NONCHARACTER =
  /[\uFDD0-\uFDEF\uFFFE\uFFFF]|[\uD83F\uD87F\uD8BF\uD8FF\uD93F\uD97F\uD9BF\uD9FF\uDA3F\uDA7F\uDABF\uDAFF\uDB3F\uDB7F\uDBBF\uDBFF][\uDFFE\uDFFF]/;

/** What keeps `input` from being I-JSON, one line per problem; empty when it is I-JSON. */
export function iJsonProblems(input: string | Uint8Array): string[] {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = UTF8.decode(input);
    } catch {
      return ['not UTF-8'];
    }
  }
  try {
    JSON.parse(text);
  } catch (error) {
    return [`not JSON: ${(error as Error).message}`];
  }
  const problems: string[] = [];
  const at = (i: number) => `line ${text.slice(0, i).split('\n').length}`;
  /** One entry per open object (its names so far) or array (null). */
  const open: (Set<string> | null)[] = [];
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const value = JSON.parse(text.slice(i, end + 1)) as string;
      if (!value.isWellFormed()) problems.push(`${at(i)}: a lone surrogate in ${text.slice(i, Math.min(end + 1, i + 40))}`);
      if (NONCHARACTER.test(value)) problems.push(`${at(i)}: a noncharacter in ${text.slice(i, Math.min(end + 1, i + 40))}`);
      if (nameNext) {
        const names = open.at(-1)!;
        if (names.has(value)) problems.push(`${at(i)}: the name ${JSON.stringify(value)} twice in one object`);
        names.add(value);
        nameNext = false;
      }
      i = end;
    } else if (c === '{') {
      open.push(new Set());
      nameNext = true;
    } else if (c === '[') open.push(null);
    else if (c === '}' || c === ']') open.pop();
    else if (c === ',') nameNext = open.at(-1) instanceof Set;
    else if (c === '-' || (c >= '0' && c <= '9')) {
      const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i))![0];
      const value = Number(number);
      if (!Number.isFinite(value) || (/^-?\d+$/.test(number) && !Number.isSafeInteger(value))) {
        problems.push(`${at(i)}: ${number} is beyond IEEE 754 double precision`);
      }
      i += number.length - 1;
    }
  }
  return problems;
}
