/**
 * The sign-in's rows by AWS's rules (capacity/flows.ts, capacity/request-units.ts): what each outcome
 * sends, what it is billed, and that no sign-in row exceeds what two strongly consistent reads per
 * attempt allow (what `npm run capacity` prints last).
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { awsFigures, readAwsLimits } from '../../capacity/aws';
import { signInRequests, signInUnits } from '../../capacity/flows';
import { readBench } from '../../capacity/inputs';
import { renderText, runModel, signInReadBound } from '../../capacity/report';
import { memoryOf, stackSettings } from '../../capacity/stack';

const file = readAwsLimits();
const figures = awsFigures(file);
const bench = readBench(JSON.parse(readFileSync(new URL('../../bench/RESULTS.json', import.meta.url), 'utf8')));
const model = runModel(bench, stackSettings('prod'), memoryOf, file, figures);
const sizes = { profile: 412, state: 412 };

describe('the sign-in by outcome', () => {
  it('every attempt reads the profile and the state in one strongly consistent BatchGetItem, whether they exist or not: one read on each table', () => {
    for (const flow of ['ok', 'wrong', 'unknown', 'throttled'] as const) {
      expect(signInRequests(flow, sizes)[0]).toMatchObject({ kind: 'BatchGetItem', consistency: 'strong' });
      expect(signInUnits(flow, sizes).users?.readUnits).toBe(1);
      // ok reads the sign-in table once more, the cap's Query after a new device record.
      expect(signInUnits(flow, sizes)['sign-in']?.readUnits).toBe(flow === 'ok' ? 2 : 1);
    }
  });

  it('writes: the count for ok, wrong and unknown on the sign-in table; for ok the transaction (the profile, and the state and the new device record) twice per item, then the cap’s Query; none when throttled', () => {
    const units = (users: [read: number, write: number], signIn: [read: number, write: number]) => ({
      users: { readUnits: users[0], writeUnits: users[1] },
      'sign-in': { readUnits: signIn[0], writeUnits: signIn[1] },
    });
    expect(signInUnits('ok', sizes)).toEqual(units([1, 2], [2, 5]));
    expect(signInUnits('wrong', sizes)).toEqual(units([1, 0], [1, 1]));
    expect(signInUnits('unknown', sizes)).toEqual(units([1, 0], [1, 1]));
    expect(signInUnits('throttled', sizes)).toEqual(units([1, 0], [1, 0]));
  });
});

describe('the state in the users table (a stage from before the sign-in table)', () => {
  it('the same requests billed on one table: the same total', () => {
    const tables = { profile: 'users', state: 'users' };
    expect(signInUnits('ok', sizes, tables)).toEqual({ users: { readUnits: 3, writeUnits: 7 } });
    expect(signInUnits('wrong', sizes, tables)).toEqual({ users: { readUnits: 2, writeUnits: 1 } });
    expect(signInUnits('unknown', sizes, tables)).toEqual({ users: { readUnits: 2, writeUnits: 1 } });
    expect(signInUnits('throttled', sizes, tables)).toEqual({ users: { readUnits: 2, writeUnits: 0 } });
  });
});

describe('the model from the committed run', () => {
  const row = (name: string) => model.rows.find((r) => r.subject.name === name)!;

  it("prices each sign-in outcome by AWS's rules, not by the run's DynamoDB Local figures", () => {
    for (const flow of ['ok', 'wrong', 'unknown'] as const) {
      expect(row(`sign-in ${flow}`).subject.demand.tables).toEqual(
        signInUnits(flow, { profile: bench.itemBytes.profile, state: bench.itemBytes.profile }),
      );
    }
    // 1 / (writes / 4,000 + reads / 12,000) on each new on-demand table; the busier table (the sign-in table) sets the row.
    const onTable = (reads: number, writes: number) => 1 / (writes / 4000 + reads / 12000);
    expect(Math.round(row('sign-in wrong').ceiling.rps)).toBe(Math.round(Math.min(onTable(1, 0), onTable(1, 1))));
    expect(Math.round(row('sign-in unknown').ceiling.rps)).toBe(Math.round(Math.min(onTable(1, 0), onTable(1, 1))));
    expect(Math.round(row('sign-in ok').ceiling.rps)).toBe(Math.round(Math.min(onTable(1, 2), onTable(2, 5))));
    // DynamoDB's part of ok's cost: 7 writes and 3 reads at the on-demand prices.
    const { dynamoUsdPerMillionWrites: w, dynamoUsdPerMillionReads: r } = figures.aws;
    expect(row('sign-in ok').ceiling.cost.parts.dynamodb).toBeCloseTo(7 * w + 3 * r, 10);
  });

  it('no sign-in row above what two strongly consistent reads per attempt allow; a row above it is refused by name', () => {
    const { bound, rows } = signInReadBound(model, figures.aws);
    expect(bound).toBe(figures.aws.dynamoNewTableRead / 2);
    for (const r of rows) expect(r.rps).toBeLessThanOrEqual(bound);
    expect(renderText(model, figures.aws)).toContain('none above the 6,000 that two strongly consistent reads per attempt allow');
    const inflated = {
      ...model,
      rows: model.rows.map((r) => (r.subject.name === 'sign-in unknown' ? { ...r, ceiling: { ...r.ceiling, rps: 9000 } } : r)),
    };
    expect(() => signInReadBound(inflated, figures.aws)).toThrow('sign-in unknown sustains 9,000 a second');
  });
});
