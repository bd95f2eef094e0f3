/**
 * domain/comparison-form.ts: the form passwords, e-mails and blocked words are compared in. Each
 * step, the contract's examples, that it is idempotent, and the folding table against its generator
 * and against the run time's own case mappings.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { caseFold, comparisonForm } from '#domain/comparison-form';
import { CASE_FOLDING_COUNT, CASE_FOLDING_UNICODE } from '#domain/generated/case-folding';
import { LOOK_ALIKES_COUNT } from '#domain/generated/look-alikes';
import { buildCaseFoldingModule, CASE_FOLDING_PATH, encode, foldings } from '../../codegen/case-folding';
import { buildLookAlikesModule, LOOK_ALIKES_PATH, lookAlikes } from '../../codegen/look-alikes';

/** Every Unicode scalar value (code points without the surrogates), as a string each. */
const everyCharacter = function* () {
  for (let cp = 0; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) yield String.fromCodePoint(cp);
};

describe('the folding table', () => {
  it('is what npm run build:case-folding writes from CaseFolding.txt (statuses C and F)', () => {
    expect(readFileSync(CASE_FOLDING_PATH, 'utf8')).toBe(buildCaseFoldingModule());
  });

  it("is of the Unicode version the run time's NFKC and property escapes use", () => {
    // A newer Node brings a newer Unicode: update the @unicode package and rebuild (npm run build:case-folding).
    expect(CASE_FOLDING_UNICODE.split('.').slice(0, 2).join('.')).toBe(process.versions.unicode);
  });

  it('folds exactly the code points CaseFolding.txt lists, to what it lists', () => {
    const mappings = foldings();
    expect(mappings).toHaveLength(CASE_FOLDING_COUNT);
    for (const [from, to] of mappings) expect([from, caseFold(String.fromCodePoint(from))]).toEqual([from, String.fromCodePoint(...to)]);
    let folded = 0;
    for (const character of everyCharacter()) if (caseFold(character) !== character) folded++;
    expect(folded).toBe(CASE_FOLDING_COUNT);
  });

  it('packs runs that decode to the mappings', () => {
    const { runs, multiple } = encode(foldings());
    const decoded = new Map<number, string>(multiple);
    for (const [first, count, stride, delta] of runs) {
      for (let i = 0; i < count; i++) decoded.set(first + i * stride, String.fromCodePoint(first + i * stride + delta));
    }
    expect(new Map(foldings().map(([from, to]) => [from, String.fromCodePoint(...to)]))).toEqual(decoded);
  });

  it("agrees with the run time's case mappings: a character, its upper case and its lower case fold alike (but for Turkic dotless ı)", () => {
    const disagree: string[] = [];
    for (const character of everyCharacter()) {
      const folded = caseFold(character);
      if (caseFold(character.toUpperCase()) !== folded || caseFold(character.toLowerCase()) !== folded) disagree.push(character);
    }
    expect(disagree).toEqual(['\u0131']);
  });

  it('folds what toLowerCase leaves: ſ, ß and ẞ, the Kelvin sign, final sigma, Cherokee', () => {
    expect('\u017F'.toLowerCase()).toBe('\u017F');
    expect(caseFold('\u017F')).toBe('s');
    expect(caseFold('stra\u00DFe STRA\u1E9EE')).toBe('strasse strasse');
    expect(caseFold('\u212A')).toBe('k');
    expect(caseFold('\u03A3\u03C3\u03C2')).toBe('\u03C3\u03C3\u03C3');
    expect(caseFold('\uAB70\u13A0')).toBe('\u13A0\u13A0');
    expect(caseFold('PASSWORD \u{10400}')).toBe('password \u{10428}');
  });
});

describe('the look-alikes table', () => {
  it('is what npm run build:look-alikes writes from UTS #39 confusables and the Unicode scripts', () => {
    expect(readFileSync(LOOK_ALIKES_PATH, 'utf8')).toBe(buildLookAlikesModule());
  });

  it('maps case-folded Cyrillic and Greek letters, and Turkic ı and İ, each to one lower-case Latin letter; nothing else moves', () => {
    const table = lookAlikes();
    expect(table).toHaveLength(LOOK_ALIKES_COUNT);
    for (const [from, to] of table) {
      const letter = String.fromCodePoint(from);
      expect([from, to]).toEqual([from, expect.stringMatching(/^[a-z]$/)]);
      expect([from, /^[\p{Script=Cyrillic}\p{Script=Greek}\u0130\u0131]$/u.test(letter)]).toEqual([from, true]);
      // Keyed by the folded letter (but İ, which folds to two code points): a capital is looked up by its fold.
      if (from !== 0x130) expect([from, caseFold(letter)]).toEqual([from, letter]);
    }
    // Among them, as UTS #39 lists them: Cyrillic а е о р с у х і ј ѕ, Greek ο ι α ν, and both of the Turkic i.
    const mapped = new Map(table);
    for (const [letter, latin] of Object.entries({
      а: 'a',
      е: 'e',
      о: 'o',
      р: 'p',
      с: 'c',
      у: 'y',
      х: 'x',
      і: 'i',
      ј: 'j',
      ѕ: 's',
      ο: 'o',
      ι: 'i',
      α: 'a',
      ν: 'v',
      ı: 'i',
      İ: 'i',
    })) {
      expect([letter, mapped.get(letter.codePointAt(0)!)]).toEqual([letter, latin]);
    }
    // A letter counts as what its capital is listed as: Cyrillic н as h (Н looks like H).
    expect(mapped.get(0x043d)).toBe('h');
    // Upper and lower case compare alike, as everywhere in the form.
    for (const word of ['\u0419\u0426\u0423\u041A\u0415\u041D', '\u0397\u03A1\u0391', 'W\u0406DGET']) {
      expect(comparisonForm(word)).toBe(comparisonForm(word.toLowerCase()));
    }
  });
});

describe('comparisonForm', () => {
  it("counts ı, İ and the Cyrillic and Greek look-alikes of Latin letters as those letters (the contract's spellings)", () => {
    for (const spelling of ['w\u0131dget2026!!', 'W\u0130DGET2026!!', 'w\u0456dget2026!!', 'W\u0406DGET2026!!']) {
      expect([spelling, comparisonForm(spelling)]).toEqual([spelling, 'widget2026!!']);
    }
    expect(comparisonForm('\u0440\u0430ssword')).toBe('password');
    expect(comparisonForm('\u03C1\u03B1ss\u051D\u03BF\u0433d')).toBe('password');
    // The hash is never of this form: only the lists and the context words are compared in it.
  });

  it("turns the contract's examples into password", () => {
    for (const spelling of [
      'pa\u017F\u017Fword1',
      'PA\u017FSWORD',
      'pass\u200Bword',
      '\uFF50\uFF41\uFF53\uFF53\uFF57\uFF4F\uFF52\uFF44',
      ' password',
    ]) {
      expect([spelling, comparisonForm(spelling)]).toEqual([spelling, spelling.includes('1') ? 'password1' : 'password']);
    }
  });

  it('step 1, NFKC: compatibility characters become their plain forms', () => {
    expect(comparisonForm('\uFB01\u2460\u00B2\u00AA')).toBe('fi12a');
    expect(comparisonForm('cafe\u0301')).toBe('caf\u00E9');
  });

  it('step 2: every default-ignorable code point goes (zero-width space and joiner, soft hyphen, BOM, variation selector, CGJ)', () => {
    expect(comparisonForm('p\u200Ba\u200Ds\u00ADs\uFEFFw\uFE0Fo\u034Fr\u2060d')).toBe('password');
    expect(comparisonForm('\u200B'.repeat(12))).toBe('');
  });

  it('step 3, case folding, and NFKC again: an accent split from its letter by an invisible character joins it', () => {
    expect(comparisonForm('CAF\u00C9')).toBe('caf\u00E9');
    expect(comparisonForm('cafe\u200B\u0301')).toBe('caf\u00E9');
    expect(comparisonForm('\u1E9E')).toBe('ss');
  });

  it('step 4: white space around goes (no-break and ideographic spaces, NEL, tabs, CR), white space inside stays', () => {
    expect(comparisonForm('\t\u00A0\u3000\u0085 my pass  phrase\r\n')).toBe('my pass  phrase');
    expect(comparisonForm('password\r')).toBe('password');
  });

  it('leaves a password that is already in the form as it is', () => {
    expect(comparisonForm('correct horse battery staple')).toBe('correct horse battery staple');
    // A Cyrillic word keeps its letters but its look-alikes of Latin ones (а, р, о, and ь, whose capital looks like b): a listed word is compared the same way.
    expect(comparisonForm('\u043F\u0430\u0440\u043E\u043B\u044C')).toBe('\u043Fapo\u043Bb');
    expect(comparisonForm('\u043Fapo\u043Bb')).toBe('\u043Fapo\u043Bb');
  });

  it('is idempotent on every single character', () => {
    const moved: string[] = [];
    for (const character of everyCharacter()) {
      const once = comparisonForm(character);
      if (comparisonForm(once) !== once) moved.push(character);
    }
    expect(moved).toEqual([]);
  });

  it('is idempotent on strings of letters, accents, invisible characters, spaces and case pairs', () => {
    const tricky = fc.constantFrom(
      ...'aeiAEI\u017F\u00DF\u1E9E\u0130\u0131\u03A3\u03C2\u0345\u0301\u0308\u0307\u200B\u200D\u00AD\uFEFF\u034F \u00A0\u3000\t\uFB01\uFF21\u1100\u1161\u11A8\uFFA0\u3164\u0430\u0410\u0406\u0456\u04BA\u04BB\u0399\u03B9\u037A\u0419\u0439\u0306',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(tricky, { maxLength: 12 }).map((c) => c.join('')),
          fc.string({ unit: 'binary', maxLength: 20 }),
        ),
        (text) => {
          const once = comparisonForm(text);
          expect(comparisonForm(once)).toBe(once);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('takes the ASCII fast path to the same place as the general one', () => {
    const general = (text: string) =>
      caseFold(text.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, ''))
        .normalize('NFKC')
        .replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '');
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 30 }), (text) => {
        expect(comparisonForm(text)).toBe(general(text));
      }),
      { numRuns: 2000 },
    );
  });
});
