/**
 * The capacity model (capacity/model.ts) on the stack's own settings and capacity/aws-limits.json:
 * each request kind's units by AWS's rules, its limits lowest first, and its cost per million summed
 * by hand from the same prices.
 */

import { describe, expect, it } from '@jest/globals';
import { type AwsLimitsFile, figure, readAwsLimits } from '../../capacity/aws';
import { capacityRow, capacityTable, limitsOf, requestKinds } from '../../capacity/model';
import { memoryOf, stackSettings } from '../../capacity/stack';

const file = readAwsLimits();
const stack = stackSettings('prod');
const kinds = Object.fromEntries(requestKinds(memoryOf).map((kind) => [kind.name, kind]));
const price = (id: string) => figure(file, id);

describe('request units by kind', () => {
  it("each operation: its writes and reads on each table, the consumer's ledger write for a delete", () => {
    expect(kinds.createUser!.units).toEqual({ users: { readUnits: 0, writeUnits: 1 } });
    expect(kinds.resetUserPassword!.units).toEqual({ users: { readUnits: 0, writeUnits: 1 } });
    expect(kinds.deleteUser!.units).toEqual({
      users: { readUnits: 1, writeUnits: 1 },
      'sign-in': { readUnits: 1, writeUnits: 0 },
      deletions: { readUnits: 0, writeUnits: 1 },
    });
  });

  it('a sign-in reads the profile and the state; ok settles in a transaction (two units per item), then the cap’s Query; throttled only reads', () => {
    expect(kinds['sign-in ok']!.units).toEqual({ users: { readUnits: 1, writeUnits: 2 }, 'sign-in': { readUnits: 2, writeUnits: 5 } });
    expect(kinds['sign-in throttled']!.units).toEqual({
      users: { readUnits: 1, writeUnits: 0 },
      'sign-in': { readUnits: 1, writeUnits: 0 },
    });
  });
});

describe('limits and cost', () => {
  it('the limit met first is the lowest; an API request meets the stage throttle, a sign-in only DynamoDB', () => {
    for (const kind of Object.values(kinds)) {
      const limits = limitsOf(kind, stack, file);
      expect(capacityRow(kind, stack, file).first).toEqual(limits[0]);
      expect(limits.map((l) => l.rps)).toEqual([...limits.map((l) => l.rps)].sort((a, b) => a - b));
    }
    expect(limitsOf(kinds.createUser!, stack, file).map((l) => l.label)).toContain('API Gateway stage throttle (prod, each method)');
    expect(limitsOf(kinds['sign-in ok']!, stack, file).every((l) => l.label.startsWith('DynamoDB'))).toBe(true);
    // sign-in ok: 5 writes on the sign-in table per attempt against a new on-demand table's write throughput.
    expect(capacityRow(kinds['sign-in ok']!, stack, file).first.rps).toBe(price('dynamoNewTableWrite') / 5);
  });

  it('cost per million, by hand: createUser and a wrong sign-in', () => {
    const waf = stack.waf ? price('wafUsdPerMillion') : 0;
    expect(capacityRow(kinds.createUser!, stack, file).usdPerMillion).toBeCloseTo(
      price('dynamoUsdPerMillionWrites') +
        price('eventBridgeUsdPerMillionEvents') +
        price('apiGatewayRestUsdPerMillion') +
        price('lambdaUsdPerMillionRequests') +
        waf,
      10,
    );
    expect(capacityRow(kinds['sign-in wrong']!, stack, file).usdPerMillion).toBeCloseTo(
      2 * price('dynamoUsdPerMillionReads') + price('dynamoUsdPerMillionWrites'),
      10,
    );
    // A millisecond of the function's duration per million requests, at its memory.
    expect(capacityRow(kinds.createUser!, stack, file).usdPerMillionPerMs).toBeCloseTo(
      ((price('lambdaArmUsdPerGbSecond') * memoryOf('createUser')) / 1024 / 1000) * 1e6,
      10,
    );
  });

  it('Cognito beside each: its quota for the same work', () => {
    expect(capacityRow(kinds.deleteUser!, stack, file)).toMatchObject({
      cognitoCategory: 'UserUpdate',
      cognitoRps: price('cognitoUserUpdate'),
    });
    expect(capacityTable([capacityRow(kinds['sign-in ok']!, stack, file)])).toContain(
      `UserAuthentication ${price('cognitoUserAuthentication')}`,
    );
  });

  it('a figure missing, or documented without its quote, is refused by name', () => {
    const broken: AwsLimitsFile = {
      ...file,
      limits: { ...file.limits, wafUsdPerMillion: { ...file.limits.wafUsdPerMillion!, quote: ' ' } },
    };
    expect(() => figure(broken, 'wafUsdPerMillion')).toThrow('"wafUsdPerMillion" is documented but quotes nothing');
    expect(() => figure(file, 'nothing')).toThrow('no figure "nothing"');
  });
});
