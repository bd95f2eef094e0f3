/**
 * The form in which a password is compared with the lists and the context words (never the form it
 * is hashed in, which is NFC): NFKC; every default-ignorable code point removed (zero-width space
 * and joiner, soft hyphen, BOM...); every look-alike counted as the Latin letter it looks like (the
 * Cyrillic and Greek letters that Unicode's confusables data, UTS #39, lists as look-alikes of one
 * Latin letter, in either case, and Turkic `ı` and `İ` as `i`: generated/look-alikes.ts); Unicode
 * default case folding (CaseFolding.txt, statuses C and F: `ſ` is `s`, `ß` is `ss`), and the look-alikes
 * again (the table holds case-folded letters); NFKC once more, since removing an invisible character between a letter and its
 * accent, or folding, can leave a string that is not NFKC; then leading and trailing white space
 * removed. So `paſſword1`, `PAſSWORD`, `pass\u200Bword`, full-width `ｐａｓｓｗｏｒｄ`, ` password` and
 * `раssword` (Cyrillic р and а) are all `password`, `wıdget`, `WİDGET` and `wіdget` (Cyrillic і) all
 * `widget`, and applying the form twice changes nothing.
 */

import { MULTIPLE_FOLDINGS, SINGLE_FOLDING_RUNS } from './generated/case-folding';
import { LOOK_ALIKES } from './generated/look-alikes';

/** Code point to what it folds to, built once from the generated table (1,585 entries; its format: codegen/case-folding.ts). */
const FOLDING = new Map<number, string>();
for (const run of SINGLE_FOLDING_RUNS.split(' ')) {
  const [first = 0, delta = 0, count = 1, stride = 1] = run.split(':').map((n) => Number.parseInt(n, 36));
  for (let i = 0; i < count; i++) FOLDING.set(first + i * stride, String.fromCodePoint(first + i * stride + delta));
}
for (const entry of MULTIPLE_FOLDINGS.split(' ')) {
  const at = entry.indexOf('=');
  FOLDING.set(Number.parseInt(entry.slice(0, at), 36), entry.slice(at + 1));
}

/** Look-alike code point to the Latin letter it counts as (generated/look-alikes.ts: each look-alike, then its letter). */
const LOOK_ALIKE = new Map<number, string>();
{
  const pairs = [...LOOK_ALIKES];
  for (let i = 0; i + 1 < pairs.length; i += 2) LOOK_ALIKE.set(pairs[i]!.codePointAt(0)!, pairs[i + 1]!);
}

const NOT_ASCII = /[^\0-\x7F]/;
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const SURROUNDING_WHITE_SPACE = /^\p{White_Space}+|\p{White_Space}+$/gu;
const SURROUNDING_ASCII_WHITE_SPACE = /^[\t-\r ]+|[\t-\r ]+$/g;

/** Unicode default case folding (full: statuses C and F) of a string. */
export function caseFold(text: string): string {
  if (!NOT_ASCII.test(text)) return text.toLowerCase();
  let out = '';
  let copiedTo = 0;
  for (let i = 0; i < text.length; ) {
    const codePoint = text.codePointAt(i)!;
    const size = codePoint > 0xffff ? 2 : 1;
    const folded = FOLDING.get(codePoint);
    if (folded !== undefined) {
      out += text.slice(copiedTo, i) + folded;
      copiedTo = i + size;
    }
    i += size;
  }
  return copiedTo === 0 ? text : out + text.slice(copiedTo);
}

/** Every look-alike of a Latin letter replaced by that letter (lower case). */
export function countLookAlikes(text: string): string {
  let out = '';
  let copiedTo = 0;
  for (let i = 0; i < text.length; ) {
    const codePoint = text.codePointAt(i)!;
    const size = codePoint > 0xffff ? 2 : 1;
    const letter = codePoint > 0x7f ? LOOK_ALIKE.get(codePoint) : undefined;
    if (letter !== undefined) {
      out += text.slice(copiedTo, i) + letter;
      copiedTo = i + size;
    }
    i += size;
  }
  return copiedTo === 0 ? text : out + text.slice(copiedTo);
}

/** The comparison form of a password, an e-mail or a blocked word (see the module's comment). */
export function comparisonForm(text: string): string {
  // ASCII: NFKC changes nothing, nothing is default-ignorable or a look-alike, and folding is lower-casing.
  if (!NOT_ASCII.test(text)) return text.toLowerCase().replace(SURROUNDING_ASCII_WHITE_SPACE, '');
  // Before folding too: İ folds to two code points. The table's letters are case-folded ones. After folding, on the
  // canonical decomposition, so a look-alike inside a precomposed letter (ΐ is ι with two accents) is mapped as the bare
  // one is: else NFKC would compose it one pass and folding split it the next, and the form would not be a fixed point.
  const folded = countLookAlikes(caseFold(countLookAlikes(text.normalize('NFKC').replace(DEFAULT_IGNORABLE, ''))).normalize('NFD'));
  return folded.normalize('NFKC').replace(SURROUNDING_WHITE_SPACE, '');
}
