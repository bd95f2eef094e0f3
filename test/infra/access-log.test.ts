/**
 * The access log always parses: API Gateway substitutes each `$context` variable into the format
 * raw (no escaping, `-` for no value), so each line is built here the same way, from the deployed
 * format, with every value each variable can take, and read back as JSON. A variable not shown safe
 * in lib/constructs/access-log.ts gets hostile text (quotes, backslashes, control characters,
 * non-ASCII), as a header or an error message could carry.
 */

import { describe, expect, it } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { ACCESS_LOG_FIELDS } from '../../lib/constructs/access-log';
import { STAGES } from '../../lib/stage-config';
import { type BaseStage, baseStage, resourcesOf } from './templates';

/** Text a caller controls can hold anything: these break a JSON string written raw. */
const HOSTILE = [
  'a"b',
  '"}',
  'back\\slash',
  '\\u0022',
  '\\',
  'tab\there',
  'new\nline',
  'cr\rlf',
  '\u0000nul',
  '\u001bescape',
  '\u007fdel',
  'é-ünïcödé',
  '\u2028line separator\u2029',
  'emoji 😀',
  '%22%5C',
  '-',
];

const VARIABLE = /\$context\.[A-Za-z.]+/g;
const SAFE = new Map<string, (typeof ACCESS_LOG_FIELDS)[keyof typeof ACCESS_LOG_FIELDS]>(
  Object.values(ACCESS_LOG_FIELDS).map((field) => [field.variable, field]),
);
/** What API Gateway can write for a variable: its shape's values when shown safe, else anything. */
const valuesOf = (variable: string): readonly string[] => SAFE.get(variable)?.values ?? HOSTILE;

const formatOf = (template: BaseStage['template']) => {
  const stage = Object.values(resourcesOf(template)).find((resource) => resource.Type === 'AWS::ApiGateway::Stage');
  return (stage!.Properties!.AccessLogSetting as { Format: string }).Format;
};

/** The line API Gateway writes: each variable replaced by its value, as it is. */
const line = (format: string, values: ReadonlyMap<string, string>) => format.replace(VARIABLE, (variable) => values.get(variable) ?? '-');

/**
 * Every value of every variable of the format, one at a time (the others at their first value):
 * the lines that do not parse, or parse to another value or type than the one written.
 */
function unparsable(format: string): string[] {
  const variables = [...new Set(format.match(VARIABLE) ?? [])];
  const field = Object.fromEntries(
    [...format.matchAll(/"(\w+)":"?(\$context\.[A-Za-z.]+)/g)].map(([, name, variable]) => [variable!, name!]),
  );
  // The others at a plain value, so that each failure is the variable's own.
  const base = new Map(variables.map((variable) => [variable, SAFE.get(variable)?.values[0] ?? 'x']));
  const failures: string[] = [];
  for (const variable of variables) {
    for (const value of valuesOf(variable)) {
      const text = line(format, new Map(base).set(variable, value));
      try {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const expected = SAFE.get(variable)?.type === 'number' ? Number(value) : value;
        if (parsed[field[variable]!] !== expected)
          failures.push(`${variable}=${JSON.stringify(value)} read back as ${JSON.stringify(parsed[field[variable]!])}`);
      } catch {
        failures.push(`${variable}=${JSON.stringify(value)} breaks the line`);
      }
    }
  }
  return failures;
}

const byStage = Object.fromEntries(STAGES.map((stage) => [stage, baseStage(stage)])) as Record<(typeof STAGES)[number], BaseStage>;

describe.each(STAGES)('%s: the access log line', (stage) => {
  const { template } = byStage[stage];
  const format = formatOf(template);

  it('is built from the field registry, every field with its stated type: strings quoted, numbers bare', () => {
    const expected = Object.entries(ACCESS_LOG_FIELDS)
      .map(([name, field]) => (field.type === 'number' ? `"${name}":${field.variable}` : `"${name}":"${field.variable}"`))
      .join(',');
    expect(format).toBe(`{${expected}}`);
    for (const variable of format.match(VARIABLE) ?? []) expect(SAFE.has(variable)).toBe(true);
  });

  it("parses, with each field's value and type, for every value each variable can take", () => {
    expect(unparsable(format)).toEqual([]);
    // All at once too, each at its last (often its longest or '-') value.
    const last = new Map([...SAFE].map(([variable, field]) => [variable, field.values.at(-1)!]));
    expect(() => JSON.parse(line(format, last))).not.toThrow();
  });

  it("a safe string variable's values hold no quote, backslash, control character or non-ASCII; a number's are numbers", () => {
    for (const field of SAFE.values()) {
      for (const value of field.values) {
        if (field.type === 'number') expect(value).toMatch(/^\d{3}$/);
        else expect(value).toMatch(/^[\x20-\x7e]+$/);
        expect(value).not.toMatch(/["\\]/);
      }
    }
  });

  it("resourcePath can only be one of the API's own paths: every path part is literal (no {variable} or greedy part)", () => {
    const parts = Object.values(resourcesOf(template))
      .filter((resource) => resource.Type === 'AWS::ApiGateway::Resource')
      .map((resource) => resource.Properties?.PathPart as string);
    expect(parts.length).toBeGreaterThan(0);
    for (const part of parts) expect(part).toMatch(/^[A-Za-z0-9._-]+$/);
  });
});

describe('the check fails where a free-text variable is written', () => {
  const format = formatOf(byStage.prod.template);
  it.each(['$context.identity.userAgent', '$context.error.message', '$context.requestId', '$context.path'])(
    '%s inside a JSON string breaks lines with hostile values',
    (variable) => {
      const injected = format.replace(/}$/, `,"injected":"${variable}"}`);
      const failures = unparsable(injected);
      expect(failures.length).toBeGreaterThan(0);
      expect(failures.every((failure) => failure.startsWith(variable))).toBe(true);
    },
  );

  it('a string variable written bare (as a number) breaks too', () => {
    expect(unparsable(format.replace('"$context.responseLength"', '$context.responseLength')).length).toBeGreaterThan(0);
  });
});

describe.each(STAGES)('%s: an alarm when the access log stops', (stage) => {
  it("access-log-silent: the stage served requests (API Gateway's Count) and its access log group received no event, in 3 of 3 five-minute periods", () => {
    const { template, id } = byStage[stage];
    const accessLogs = id('Api/AccessLogs');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `UserManagement-${stage}-access-log-silent`,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'notBreaching',
      AlarmActions: [Match.anyValue()],
      Metrics: [
        { Id: 'expr_1', Expression: 'IF(FILL(requests, 0) >= 1 AND FILL(logEvents, 0) == 0, 1, 0)', Label: Match.anyValue() },
        {
          Id: 'requests',
          ReturnData: false,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/ApiGateway',
              MetricName: 'Count',
              Dimensions: [
                { Name: 'ApiName', Value: `user-management-${stage}` },
                { Name: 'Stage', Value: stage },
              ],
            },
            Period: 300,
            Stat: 'Sum',
          },
        },
        {
          Id: 'logEvents',
          ReturnData: false,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/Logs',
              MetricName: 'IncomingLogEvents',
              Dimensions: [{ Name: 'LogGroupName', Value: { Ref: accessLogs } }],
            },
            Period: 300,
            Stat: 'Sum',
          },
        },
      ],
    });
  });
});
