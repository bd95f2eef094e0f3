/**
 * CloudWatch's embedded metric format (EMF), as the AWS page "Specification: Embedded metric format"
 * states it: the JSON schema it publishes for validating a document, and the rules that schema
 * cannot express (every dimension and metric a directive names is a member of the root node, a
 * dimension's value a string of at most 1024 characters, a metric's a number or up to 100 numbers).
 * A line CloudWatch refuses becomes no metric, and an alarm on it stays OK forever.
 */

import Ajv from 'ajv';

const text = (maxLength: number) => ({ type: 'string', pattern: '^(.*)$', minLength: 1, maxLength });

/** The page's schema (its `$id`s, titles and examples left out). */
export const EMF_SCHEMA = {
  type: 'object',
  required: ['_aws'],
  properties: {
    _aws: {
      type: 'object',
      required: ['Timestamp', 'CloudWatchMetrics'],
      properties: {
        Timestamp: { type: 'integer' },
        CloudWatchMetrics: {
          type: 'array',
          items: {
            type: 'object',
            required: ['Namespace', 'Dimensions', 'Metrics'],
            properties: {
              Namespace: text(1024),
              // "A DimensionSet array": at least one set; a set holds 0 to 30 dimension keys.
              Dimensions: { type: 'array', minItems: 1, items: { type: 'array', minItems: 0, maxItems: 30, items: text(250) } },
              Metrics: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['Name'],
                  properties: {
                    Name: text(1024),
                    Unit: {
                      type: 'string',
                      pattern:
                        '^(Seconds|Microseconds|Milliseconds|Bytes|Kilobytes|Megabytes|Gigabytes|Terabytes|Bits|Kilobits|Megabits|Gigabits|Terabits|Percent|Count|Bytes\\/Second|Kilobytes\\/Second|Megabytes\\/Second|Gigabytes\\/Second|Terabytes\\/Second|Bits\\/Second|Kilobits\\/Second|Megabits\\/Second|Gigabits\\/Second|Terabits\\/Second|Count\\/Second|None)$',
                    },
                    StorageResolution: { type: 'integer' },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

export interface EmfDocument {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit?: string }[] }[];
  };
  [member: string]: unknown;
}

const validate = new Ajv({ allErrors: true, strict: true }).compile(EMF_SCHEMA);

/** What is wrong with `line` as an EMF document: empty when CloudWatch would extract its metrics. */
export function emfProblems(line: string): string[] {
  let document: unknown;
  try {
    document = JSON.parse(line);
  } catch {
    return ['not a JSON object'];
  }
  if (!validate(document)) return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  const root = document as EmfDocument;
  const problems: string[] = [];
  for (const directive of root._aws.CloudWatchMetrics) {
    // "This array MUST NOT contain more than 100 MetricDefinition objects."
    if (directive.Metrics.length > 100) problems.push('more than 100 metrics in one directive');
    for (const name of directive.Dimensions.flat()) {
      const value = root[name];
      if (typeof value !== 'string' || value.length > 1024) problems.push(`dimension ${name} is not a root member with a string value`);
    }
    for (const { Name } of directive.Metrics) {
      const value = root[Name];
      const numeric =
        typeof value === 'number' || (Array.isArray(value) && value.length <= 100 && value.every((v) => typeof v === 'number'));
      if (!numeric) problems.push(`metric ${Name} is not a root member with a numeric value`);
    }
  }
  return problems;
}

/** The EMF documents among captured stdout lines. */
export const emfDocuments = (lines: readonly string[]): { line: string; document: EmfDocument }[] =>
  lines.flatMap((line) => {
    try {
      const document = JSON.parse(line) as EmfDocument;
      return document?._aws ? [{ line, document }] : [];
    } catch {
      return [];
    }
  });
