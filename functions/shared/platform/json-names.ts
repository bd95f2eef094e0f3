/**
 * Duplicate member names in a JSON object text. `JSON.parse` keeps the last of two members of one
 * name silently; RFC 7493 (I-JSON): "Objects in I-JSON messages MUST NOT have members with duplicate
 * names". Two readers of one text (a WAF
 * rule and the function, or an import line and the tool that wrote it) could otherwise act on
 * different values. One implementation for the API's body step (http/middleware/parse-body.ts) and
 * the import's lines (domain/user-transfer.ts).
 */

/**
 * The first member name that a JSON object text gives twice, in the text's order (the name whose
 * second occurrence comes first), or undefined. Only the object's own names count, not those of
 * objects nested in its values; names are compared decoded, so `"\u0075ser_email"` is `user_email`.
 * `text` must be JSON that `JSON.parse` has read as an object, so a scan of its strings and
 * brackets is enough (linear in the text).
 */
export function duplicateName(text: string): string | undefined {
  const names = new Set<string>();
  let depth = 0;
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = text.indexOf('"', i + 1);
      // A quote is escaped when an odd number of backslashes precede it.
      for (;;) {
        let slash = end - 1;
        while (text.charCodeAt(slash) === 0x5c) slash--;
        if ((end - 1 - slash) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (depth === 1 && nameNext) {
        const raw = text.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (names.has(name)) return name;
        names.add(name);
        nameNext = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth++;
      nameNext = depth === 1;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
    else if (c === 0x2c /* , */ && depth === 1) nameNext = true;
  }
  return undefined;
}
