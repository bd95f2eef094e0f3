/** AWS's limits and prices as capacity/aws-limits.json records them: each with its page, the sentence read and the day. */

import { readFileSync } from 'node:fs';

export interface AwsFigure {
  readonly value: number;
  readonly unit: string;
  readonly basis: 'documented' | 'assumption';
  readonly title: string;
  readonly url: string;
  /** The sentence read, word for word (empty for an assumption no AWS text states). */
  readonly quote: string;
  readonly note?: string;
  /** The day this page was read, when not the file's. */
  readonly read?: string;
}

export interface AwsLimitsFile {
  readonly region: string;
  /** The day the pages were read (YYYY-MM-DD). */
  readonly read: string;
  readonly limits: Readonly<Record<string, AwsFigure>>;
}

export const readAwsLimits = (path: URL | string = new URL('./aws-limits.json', import.meta.url)): AwsLimitsFile =>
  JSON.parse(readFileSync(path, 'utf8'));

const read = new Set<string>();

/** The ids `figure` has read so far, in the order first read: the sources the document lists. */
export const figuresRead = (): readonly string[] => [...read];

/** The figure `id`; throws naming an id the file lacks, or a documented figure that quotes nothing. */
export function figure(file: AwsLimitsFile, id: string): number {
  const entry = file.limits[id];
  read.add(id);
  if (!entry || !Number.isFinite(entry.value)) throw new Error(`capacity/aws-limits.json has no figure "${id}"`);
  if (entry.basis === 'documented' && entry.quote.trim() === '')
    throw new Error(`capacity/aws-limits.json: "${id}" is documented but quotes nothing`);
  return entry.value;
}
