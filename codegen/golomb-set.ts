/**
 * Build-time: writes a Golomb–Rice coded set in the layout domain/golomb-set.ts reads and
 * searches in place (the layout is described there), and picks its Rice parameter by counting bits.
 */

import { checkLayout, type GolombSetLayout, indexBytes, PADDING_BYTES } from '#domain/golomb-set';

// Read once: a global looked up in a hot loop is slow where the global object is a sandbox's (jest's vm contexts).
const { floor } = Math;

/** The values sorted ascending, repeats dropped (a repeat adds nothing to a set); throws on one that is no integer below 2^valueBits. */
export function sortedValues(values: Iterable<number>, valueBits: number): number[] {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const bad = sorted.find((value) => !Number.isInteger(value) || value < 0 || value >= 2 ** valueBits);
  if (bad !== undefined) throw new RangeError(`${bad} is no integer below 2^${valueBits}`);
  return sorted;
}

/** Each value's gap from the one before in its bucket (the first from the bucket's lowest value), in order. */
function gaps(sorted: readonly number[], { valueBits, bucketBits }: Omit<GolombSetLayout, 'riceBits'>): number[] {
  const width = 2 ** (valueBits - bucketBits);
  let bucket = -1;
  let previous = 0;
  return sorted.map((value) => {
    const own = floor(value / width);
    if (own !== bucket) [bucket, previous] = [own, own * width];
    const gap = value - previous;
    previous = value;
    return gap;
  });
}

/** Bits of the coded stream: per value, its quotient in unary (plus the zero that ends it) and riceBits of remainder. */
function streamBits(allGaps: readonly number[], riceBits: number): number {
  const step = 2 ** riceBits;
  let bits = 0;
  for (const gap of allGaps) bits += floor(gap / step) + 1 + riceBits;
  return bits;
}

/** The Rice parameter (1 to 25) that codes these sorted values in the fewest bits; the lower on a tie. */
export function bestRiceBits(sorted: readonly number[], layout: Omit<GolombSetLayout, 'riceBits'>): number {
  const allGaps = gaps(sorted, layout);
  const sizes = Array.from({ length: 25 }, (_, i) => streamBits(allGaps, i + 1));
  return sizes.indexOf(Math.min(...sizes)) + 1;
}

/** The set's bytes: the index, the stream, zero bits to a byte, the padding. */
export function encodeGolombSet(values: Iterable<number>, layout: GolombSetLayout): Buffer {
  checkLayout(layout);
  const { valueBits, riceBits, bucketBits } = layout;
  const sorted = sortedValues(values, valueBits);
  const allGaps = gaps(sorted, layout);
  const bits = streamBits(allGaps, riceBits);
  if (bits >= 2 ** 32) throw new RangeError(`a stream of ${bits} bits does not fit 32-bit offsets`);
  const start = indexBytes(layout);
  const out = Buffer.alloc(start + Math.ceil(bits / 8) + PADDING_BYTES);
  const one = (at: number) => {
    out[start + (at >>> 3)]! |= 0x80 >>> (at & 7);
  };
  const width = 2 ** (valueBits - bucketBits);
  const step = 2 ** riceBits;
  let at = 0;
  let next = 0;
  for (let bucket = 0; bucket < 2 ** bucketBits; bucket++) {
    out.writeUInt32BE(at, 4 * bucket);
    for (; next < sorted.length && sorted[next]! < (bucket + 1) * width; next++) {
      const gap = allGaps[next]!;
      const quotient = floor(gap / step);
      for (let k = 0; k < quotient; k++) one(at++);
      at++;
      const remainder = gap - quotient * step;
      for (let k = riceBits - 1; k >= 0; k--, at++) if ((remainder >>> k) & 1) one(at);
    }
  }
  out.writeUInt32BE(at, 4 * 2 ** bucketBits);
  if (at !== bits || next !== sorted.length) throw new Error(`coded ${at} of ${bits} bits, ${next} of ${sorted.length} values`);
  return out;
}
