/**
 * The keys the capacity model reads from a bench run (capacity/inputs.ts, BENCH_KEYS, the one place
 * they are named): each is read and required, nothing else is read, the bench's own example report
 * (typed by its measurements) holds them, and the committed run holds every key of the measurements
 * it ran. AWS's figures file: every figure quoted or, as an assumption, explained.
 */

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { awsFigures, readAwsLimits } from '../../capacity/aws';
import { BenchKeyError, benchKeys, readBench, valueAt } from '../../capacity/inputs';
import { exampleCapacityRun } from '../support/capacity-example';

const RESULTS = new URL('../../bench/RESULTS.json', import.meta.url);

/** A deep copy of `report` without the value at `key`. */
function without(report: unknown, key: string): unknown {
  const copy = structuredClone(report) as Record<string, unknown>;
  const parts = key.split('.');
  const parent = valueAt(copy, parts.slice(0, -1).join('.')) as Record<string, unknown>;
  delete parent[parts.at(-1)!];
  return copy;
}

/** A copy holding only the subtrees at `keys`. */
function only(report: unknown, keys: readonly string[]): unknown {
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    const parts = key.split('.');
    let node = copy;
    for (const part of parts.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts.at(-1)!] = structuredClone(valueAt(report, key));
  }
  return copy;
}

describe('the bench keys the model reads', () => {
  it('reads the example run: CPU and wait (wall less CPU) per operation, footprints, item sizes', async () => {
    const inputs = readBench(await exampleCapacityRun());
    expect(inputs.date).toBe('2026-11-25T22:19:42.889Z');
    // The example's createUser phase: 10.124 ms hash plus 3.298 ms the rest (its rounds' mean), 14.432 ms wall.
    expect(inputs.operations.createUser.cpuMs).toBeCloseTo(13.422, 9);
    expect(inputs.operations.createUser.waitMs).toBeCloseTo(14.432 - 13.422, 9);
    expect(inputs.operations.deleteUser.footprint.ledgerWrites).toBe(1);
    expect(inputs.withIdempotencyKey.createUser.units.idempotency).toEqual({ writeUnits: 2, readUnits: 0 });
    expect(inputs.signIn.ok).toMatchObject({ cpuMs: 10.4, waitMs: expect.closeTo(2.7, 9) });
    expect(inputs.itemBytes.profile).toBe(263);
  });

  it('each key named is required: without it, one line naming it', async () => {
    const run = await exampleCapacityRun();
    const keys = benchKeys();
    expect(keys.length).toBeGreaterThan(20);
    for (const { key } of keys) {
      let message = '';
      try {
        readBench(without(run, key));
      } catch (error) {
        expect(error).toBeInstanceOf(BenchKeyError);
        message = (error as Error).message;
      }
      expect(message).toMatch(new RegExp(`^bench/RESULTS\\.json has no "${key.replaceAll('.', '\\.')}" \\([^\\n]+\\): run npm run bench`));
    }
  });

  it('nothing else is read: the run cut down to the named keys gives the same inputs', async () => {
    const run = await exampleCapacityRun();
    expect(
      readBench(
        only(
          run,
          benchKeys().map(({ key }) => key),
        ),
      ),
    ).toEqual(readBench(run));
  });

  it('a value of the wrong shape is named too', async () => {
    const run = (await exampleCapacityRun()) as { serviceShare: { phases: { createUser: { cpuMs: unknown } } } };
    run.serviceShare.phases.createUser.cpuMs = 'fast';
    expect(() => readBench(run)).toThrow(
      'bench/RESULTS.json: "serviceShare.phases.createUser.cpuMs" is "fast", not a number of at least 0.',
    );
  });

  it("the bench's example report (each result typed by its measurement) holds every key of the bench's measurements", async () => {
    const run = await exampleCapacityRun();
    const bench = benchKeys().filter(({ key }) => !key.startsWith('signIn.'));
    for (const { key } of bench) expect([key, valueAt(run, key) !== undefined]).toEqual([key, true]);
  });

  it('the committed run, when there is one, holds every key of each measurement it ran', () => {
    if (!existsSync(RESULTS)) return expect(existsSync(RESULTS)).toBe(false);
    const run = JSON.parse(readFileSync(RESULTS, 'utf8'));
    const missing = benchKeys()
      .map(({ key }) => key)
      .filter((key) => valueAt(run, key.split('.')[0]!) !== undefined && valueAt(run, key) === undefined);
    expect(missing).toEqual([]);
  });
});

describe("AWS's figures (capacity/aws-limits.json)", () => {
  const file = readAwsLimits();

  it("were read for one Region, on the file's day or, where an entry says so, on its own later day", () => {
    expect([file.read, file.region]).toEqual(['2026-11-26', 'us-east-1']);
    for (const [id, figure] of Object.entries(file.limits)) {
      if (figure.read === undefined) continue;
      expect([id, /^\d{4}-\d{2}-\d{2}$/.test(figure.read) && figure.read >= file.read]).toEqual([id, true]);
    }
  });

  it('the unit sizes it quotes are the ones capacity/request-units.ts bills by; a file that differs is refused', () => {
    expect(() => awsFigures(file)).not.toThrow();
    const changed = { ...file, limits: { ...file.limits, dynamoReadUnitBytes: { ...file.limits.dynamoReadUnitBytes!, value: 1024 } } };
    expect(() => awsFigures(changed)).toThrow('differ from capacity/request-units.ts');
  });

  it('each documented figure quotes its page, each assumption says why; every source is an AWS page', () => {
    for (const [id, figure] of Object.entries(file.limits)) {
      expect([id, figure.url]).toEqual([id, expect.stringMatching(/^https:\/\/(docs\.aws\.amazon\.com|aws\.amazon\.com)\//)]);
      if (figure.basis === 'documented') expect([id, figure.quote.length > 10]).toEqual([id, true]);
      else expect([id, (figure.note ?? '').length > 10]).toEqual([id, true]);
    }
    for (const [id, assumption] of Object.entries(file.assumptions)) expect([id, assumption.note.length > 10]).toEqual([id, true]);
  });

  it("a documented figure's number is in its quote", () => {
    for (const [id, figure] of Object.entries(file.limits)) {
      if (figure.basis !== 'documented' || figure.value < 2) continue;
      const words: Record<number, string> = { 2: 'two', 3: 'three' };
      const spelled = [
        figure.value.toLocaleString('en-US'),
        String(figure.value),
        figure.value.toFixed(2),
        `${figure.value / 1024} KB`,
        words[figure.value],
      ];
      expect([id, spelled.some((text) => text !== undefined && figure.quote.includes(text))]).toEqual([id, true]);
    }
  });
});
