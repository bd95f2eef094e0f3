/**
 * domain/golomb-set.ts (the look-up, in place) against codegen/golomb-set.ts (the encoder): the
 * encoding's edge cases, answered exactly over whole small universes, and what a reader refuses.
 * The shipped blocklist itself: test/unit/password-policy.test.ts.
 */

import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type GolombSetLayout, golombSetValue, indexBytes, openGolombSet, PADDING_BYTES } from '#domain/golomb-set';
import { bestRiceBits, encodeGolombSet, sortedValues } from '../../codegen/golomb-set';

/** Every value of the universe whose answer differs from membership in `values`. */
function wrongAnswers(values: readonly number[], layout: GolombSetLayout): number[] {
  const has = openGolombSet(encodeGolombSet(values, layout), layout, 'test set');
  const members = new Set(values);
  const wrong: number[] = [];
  for (let value = 0; value < 2 ** layout.valueBits; value++) if (has(value) !== members.has(value)) wrong.push(value);
  return wrong;
}

describe('a Golomb–Rice coded set', () => {
  const layout = { valueBits: 16, riceBits: 4, bucketBits: 3 } as const;
  const width = 2 ** (16 - 3);

  it('answers every value of its universe exactly: first and last values, bucket edges, empty buckets, long unary runs', () => {
    const values = [
      0, // the first value: a gap of 0 from its bucket's lowest value
      1,
      width - 1, // the last value of bucket 0...
      width, // ...and the first of bucket 1, a gap of 0 again
      2 * width + 1000, // after an empty stretch: a quotient of 62, more than the 25 ones one 32-bit read holds
      5 * width - 1, // buckets 3 and 4 have one value between them; bucket 2's last is far from its first
      7 * width + 17,
      2 ** 16 - 1, // the universe's last value
    ];
    expect(wrongAnswers(values, layout)).toEqual([]);
  });

  it('is empty, or holds one value, and still answers every value', () => {
    expect(wrongAnswers([], layout)).toEqual([]);
    expect(wrongAnswers([2 ** 16 - 1], layout)).toEqual([]);
    expect(wrongAnswers([0], layout)).toEqual([]);
  });

  it('drops repeats (two strings whose values collide are one value); refuses values outside its universe', () => {
    expect(encodeGolombSet([7, 5, 5, 7, 300], layout).equals(encodeGolombSet([5, 7, 300], layout))).toBe(true);
    expect(sortedValues([3, 1, 3, 2], 16)).toEqual([1, 2, 3]);
    expect(() => encodeGolombSet([2 ** 16], layout)).toThrow(/65536 is no integer below 2\^16/);
    expect(() => encodeGolombSet([1.5], layout)).toThrow(/no integer/);
    const has = openGolombSet(encodeGolombSet([1], layout), layout, 'test set');
    expect(() => has(2 ** 16)).toThrow(RangeError);
    expect(() => has(-1)).toThrow(RangeError);
  });

  it('answers exactly for any set and layout (property, whole universes)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 4, max: 14 }).chain((valueBits) =>
          fc.record({
            layout: fc.record({
              valueBits: fc.constant(valueBits),
              riceBits: fc.integer({ min: 1, max: 25 }),
              bucketBits: fc.integer({ min: 1, max: valueBits - 1 }),
            }),
            values: fc.array(fc.integer({ min: 0, max: 2 ** valueBits - 1 }), { maxLength: 300 }),
          }),
        ),
        ({ layout: drawn, values }) => {
          expect(wrongAnswers(values, drawn)).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads remainders of 25 bits (the widest: its 32-bit buffer holds 25 or more after each refill) at every alignment', () => {
    const wide = { valueBits: 34, riceBits: 25, bucketBits: 2 } as const;
    const values = sortedValues(
      Array.from({ length: 400 }, (_, i) => Math.floor(((i * 2654435761) % 2 ** 32) * 4 + (i % 4))),
      34,
    );
    const has = openGolombSet(encodeGolombSet(values, wide), wide, 'test set');
    const members = new Set(values);
    const near = values.flatMap((value) => [value - 1, value, value + 1]).filter((value) => value >= 0 && value < 2 ** 34);
    expect(near.filter((value) => has(value) !== members.has(value))).toEqual([]);
    expect(values.every(has)).toBe(true);
  });

  it('picks the Rice parameter that codes in the fewest bits', () => {
    // Gaps of 1,000 (10 bits, or 9 and a one in unary): 9 bits of remainder and 2 of unary code them in 11 bits, 10 in 11 too, 8 in 12.
    const values = Array.from({ length: 1000 }, (_, i) => i * 1000);
    const bytes = (riceBits: number) => encodeGolombSet(values, { valueBits: 24, riceBits, bucketBits: 2 }).length;
    const best = bestRiceBits(values, { valueBits: 24, bucketBits: 2 });
    expect(best).toBe(9);
    for (let riceBits = 1; riceBits <= 25; riceBits++) expect(bytes(riceBits)).toBeGreaterThanOrEqual(bytes(best));
  });

  it('stands for a string by the first bits of its SHA-256', () => {
    const digest = createHash('sha256').update('pässword', 'utf8').digest('hex');
    expect(golombSetValue('pässword', 42)).toBe(Number(BigInt(`0x${digest.slice(0, 12)}`) >> 6n));
    expect(golombSetValue('pässword', 48)).toBe(Number.parseInt(digest.slice(0, 12), 16));
  });
});

describe('a reader of a coded set refuses', () => {
  const layout = { valueBits: 16, riceBits: 4, bucketBits: 3 } as const;
  const good = encodeGolombSet([1, 2, 3, 5000, 60000], layout);

  it('a file one byte short or long, or shorter than its index', () => {
    expect(() => openGolombSet(good.subarray(0, good.length - 1), layout, 'set.bin')).toThrow(/^set\.bin: \d+ bytes, where its index ends/);
    expect(() => openGolombSet(Buffer.concat([good, Buffer.alloc(1)]), layout, 'set.bin')).toThrow(/^set\.bin: /);
    expect(() => openGolombSet(good.subarray(0, indexBytes(layout)), layout, 'set.bin')).toThrow(/shorter than its index/);
    expect(good.length).toBe(indexBytes(layout) + Math.ceil(good.readUInt32BE(indexBytes(layout) - 4) / 8) + PADDING_BYTES);
  });

  it('an index whose offsets go down', () => {
    const bad = Buffer.from(good);
    bad.writeUInt32BE(bad.readUInt32BE(4 * 8) + 1, 4 * 7);
    expect(() => openGolombSet(bad, layout, 'set.bin')).toThrow(/^set\.bin: offset 8 of its index is below the one before/);
  });

  it('a layout it cannot read', () => {
    for (const wrong of [
      { valueBits: 49, riceBits: 4, bucketBits: 3 },
      { valueBits: 16, riceBits: 26, bucketBits: 3 },
      { valueBits: 16, riceBits: 0, bucketBits: 3 },
      { valueBits: 16, riceBits: 4, bucketBits: 16 },
    ])
      expect(() => openGolombSet(good, wrong, 'set.bin')).toThrow(RangeError);
  });
});
