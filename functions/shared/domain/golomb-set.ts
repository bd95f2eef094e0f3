/**
 * A Golomb–Rice coded set of strings, searched in place (the password blocklist's encoding; built by
 * codegen/golomb-set.ts). Each string stands for the first `valueBits` bits of its SHA-256 digest,
 * a value below 2^valueBits; the values are sorted, repeats dropped, and grouped into 2^bucketBits
 * buckets by their top bits. Within a bucket, each value is written as its gap from the one before
 * (the first from the bucket's lowest value): the gap's quotient by 2^riceBits in unary (that many
 * one bits, then a zero bit), then its remainder in riceBits bits, most significant first.
 *
 * The bytes: an index of 2^bucketBits + 1 big-endian 32-bit offsets (bucket b's codes are the bits
 * from offset b to offset b + 1 of the stream that follows), the stream, zero bits to a whole byte,
 * and {@link PADDING_BYTES} zero bytes (a look-up reads up to 32 bits ahead). A look-up decodes one
 * bucket, from its first code up to the value. A string not in the set is found with probability about
 * n / 2^valueBits for n values: the chance that its value is one of them.
 */

import { hash } from 'node:crypto';

export interface GolombSetLayout {
  /** Values are the first this many bits of SHA-256 (at most 48). */
  readonly valueBits: number;
  /** The Rice parameter (1 to 25): a gap's remainder takes this many bits. */
  readonly riceBits: number;
  /** The index has an entry for each of the 2^bucketBits buckets (1 to 24), plus the stream's end. */
  readonly bucketBits: number;
}

// Read once: a global looked up in a hot loop is slow where the global object is a sandbox's (jest's vm contexts).
const { clz32, floor } = Math;
const { isInteger } = Number;

/** Zero bytes after the stream. */
export const PADDING_BYTES = 4;

/** The index's length in bytes. */
export const indexBytes = (layout: GolombSetLayout): number => 4 * (2 ** layout.bucketBits + 1);

/** The value a string stands for: the first `valueBits` bits of its SHA-256 digest (of its UTF-8). */
export const golombSetValue = (text: string, valueBits: number): number =>
  floor(hash('sha256', text, 'buffer').readUIntBE(0, 6) / 2 ** (48 - valueBits));

/** Throws unless the layout is one this module can read. */
export function checkLayout({ valueBits, riceBits, bucketBits }: GolombSetLayout): void {
  const within = (value: number, low: number, high: number) => Number.isInteger(value) && value >= low && value <= high;
  if (!within(valueBits, 2, 48) || !within(riceBits, 1, 25) || !within(bucketBits, 1, Math.min(24, valueBits - 1))) {
    throw new RangeError(`no Golomb set layout: valueBits ${valueBits}, riceBits ${riceBits}, bucketBits ${bucketBits}`);
  }
}

const uint32 = (data: Uint8Array, at: number): number =>
  ((data[at]! << 24) | (data[at + 1]! << 16) | (data[at + 2]! << 8) | data[at + 3]!) >>> 0;

/**
 * The membership test of the set held in `data` (read in place, never decoded whole). Throws when
 * the layout is not one this module reads, or the index does not fit `data`'s length (a truncated,
 * padded or mismatched file), naming `name`.
 */
export function openGolombSet(data: Uint8Array, layout: GolombSetLayout, name: string): (value: number) => boolean {
  checkLayout(layout);
  const { valueBits, riceBits, bucketBits } = layout;
  const buckets = 2 ** bucketBits;
  const start = indexBytes(layout);
  if (data.length < start + PADDING_BYTES) throw new Error(`${name}: ${data.length} bytes, shorter than its index`);
  let previous = 0;
  for (let bucket = 0; bucket <= buckets; bucket++) {
    const offset = uint32(data, 4 * bucket);
    if (offset < previous) throw new Error(`${name}: offset ${bucket} of its index is below the one before`);
    previous = offset;
  }
  if (data.length !== start + Math.ceil(previous / 8) + PADDING_BYTES) {
    throw new Error(`${name}: ${data.length} bytes, where its index ends the stream at bit ${previous} (layout ${JSON.stringify(layout)})`);
  }
  const limit = 2 ** valueBits;
  const width = 2 ** (valueBits - bucketBits);
  const step = 2 ** riceBits;
  const shift = 32 - riceBits;
  const first = start * 8;
  return (value) => {
    if (!isInteger(value) || value < 0 || value >= limit) throw new RangeError(`${name}: no value ${value}`);
    const bucket = floor(value / width);
    const wanted = value - bucket * width;
    const begin = first + uint32(data, 4 * bucket);
    const end = first + uint32(data, 4 * bucket + 4);
    // The next `count` bits of the stream, from bit `byte` * 8 - `count` on, at the top of `bits` (zeros below).
    let byte = begin >>> 3;
    let bits = 0;
    let count = 0;
    for (; count < 25; count += 8) bits |= data[byte++]! << (24 - count);
    bits <<= begin & 7;
    count -= begin & 7;
    let current = 0;
    while (byte * 8 - count < end) {
      let quotient = 0;
      for (;;) {
        for (; count < 25; count += 8) bits |= data[byte++]! << (24 - count);
        const ones = clz32(~bits);
        if (ones < count) {
          quotient += ones;
          bits = (bits << ones) << 1;
          count -= ones + 1;
          break;
        }
        quotient += count;
        bits = 0;
        count = 0;
        if (byte * 8 >= end) return false;
      }
      for (; count < 25; count += 8) bits |= data[byte++]! << (24 - count);
      current += quotient * step + (bits >>> shift);
      bits <<= riceBits;
      count -= riceBits;
      if (current >= wanted) return current === wanted;
    }
    return false;
  };
}
