/**
 * Reading templates without building the app: the base stages from the synthesis cache
 * (synth-cache.ts) and the helpers every infra test uses on a template. Nothing here imports the
 * CDK app (lib/), so a test that needs only the base stages never builds it.
 */

import { Template } from 'aws-cdk-lib/assertions';
import { OPERATIONS } from '#contract/operations';
import type { StageName } from '../../lib/stage-config';
import { type CachedStageJson, readCachedStage } from './synth-cache';

export const TEST_REGION = 'eu-west-1';

/** One base stage (dev, staging or prod with no extra context) as the cache holds it, its template ready for the matchers. */
export interface BaseStage extends Omit<CachedStageJson, 'template'> {
  readonly stage: StageName;
  readonly template: Template;
  /**
   * The logical id of the construct at this path below the stack (`Tables/Users`): the element's
   * own, or its default child's (`Tables/Users/Resource`). Throws for a path the stack does not have.
   */
  readonly id: (path: string) => string;
  /** `{ Ref: id(path) }`. */
  readonly ref: (path: string) => { Ref: string };
}

const loaded = new Map<StageName, BaseStage>();

/** The stage as `synthStage(stage)` builds it, read from the synthesis cache: no app is built. */
export function baseStage(stage: StageName): BaseStage {
  const known = loaded.get(stage);
  if (known) return known;
  const { template, ...json } = readCachedStage(stage);
  const id = (path: string) => {
    const found = json.logicalIds[path] ?? json.logicalIds[`${path}/Resource`] ?? json.logicalIds[`${path}/Default`];
    if (found === undefined) throw new Error(`UserManagement-${stage} has no CloudFormation element at ${path}`);
    return found;
  };
  const view: BaseStage = { ...json, stage, template: Template.fromJSON(template), id, ref: (path) => ({ Ref: id(path) }) };
  loaded.set(stage, view);
  return view;
}

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> } & Record<string, unknown>>;

/** The template's resources, for the assertions the Template matchers cannot express. */
export const resourcesOf = (template: Template): Resources => template.toJSON().Resources as Resources;

/**
 * The stage's access log format read as JSON: each field and the `$context` variable it logs. A
 * variable the format writes unquoted (a JSON number once API Gateway fills it in) is read as its name too.
 */
export function accessLogFields(template: Template): Record<string, string> {
  const stage = Object.values(resourcesOf(template)).find((resource) => resource.Type === 'AWS::ApiGateway::Stage');
  const format = (stage?.Properties?.AccessLogSetting as { Format: string } | undefined)?.Format ?? '';
  return JSON.parse(format.replace(/:(\$context\.[A-Za-z.]+)/g, ':"$1"')) as Record<string, string>;
}

/** The access log line API Gateway would write with these values in place of the format's variables. */
export function accessLogLine(template: Template, values: Readonly<Record<string, string | number>>): string {
  const stage = Object.values(resourcesOf(template)).find((resource) => resource.Type === 'AWS::ApiGateway::Stage');
  const format = (stage?.Properties?.AccessLogSetting as { Format: string } | undefined)?.Format ?? '';
  return format.replace(/\$context\.[A-Za-z.]+/g, (variable) => String(values[variable] ?? '-'));
}

/** Every statement of the inline policies attached to a role, with actions as sorted arrays. */
export function statementsOfRole(template: Template, roleLogicalId: string) {
  return Object.values(resourcesOf(template))
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) =>
      ((policy.Properties?.Roles ?? []) as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleLogicalId })),
    )
    .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: Record<string, unknown>[] } | undefined)?.Statement ?? [])
    .map((statement) => ({
      Effect: statement.Effect,
      Action: [statement.Action].flat().sort(),
      Resource: statement.Resource,
      ...(statement.Condition !== undefined && { Condition: statement.Condition }),
    }));
}

/**
 * The alarms a stage has, by name: the stack's own (the API's 5xx rate, the access log's silence, the
 * functions' 500s, the lifecycle events' three, the online password check's when it is on), for every
 * operation of the registry its function's errors, throttles and p99 latency, and where releases are
 * gradual (staging and prod) the new version's errors and p99 latency of each operation's function and
 * the new version's errors of the stream consumer.
 */
export function expectedAlarmNames(stage: StageName, options: { breachCheck?: boolean } = {}): string[] {
  const own = [
    'api-5xx-rate',
    'access-log-silent',
    'function-500s',
    'lifecycle-events-undelivered',
    'lifecycle-events-dead-letters',
    'lifecycle-events-lag',
  ];
  const perOperation = OPERATIONS.flatMap((operation) => [`${operation}-errors`, `${operation}-throttles`, `${operation}-p99-latency`]);
  // Dev releases all at once (lib/stage-config.ts); staging and prod through CodeDeploy.
  const gradual = stage !== 'dev';
  const release = gradual
    ? [
        ...OPERATIONS.flatMap((operation) => [
          `${upperFirst(operation)}-new-version-errors`,
          `${upperFirst(operation)}-new-version-p99-latency`,
        ]),
        'LifecycleEventsConsumer-new-version-errors',
      ]
    : [];
  return [...own, ...(options.breachCheck ? ['breach-check-unavailable'] : []), ...perOperation, ...release]
    .map((name) => `UserManagement-${stage}-${name}`)
    .sort();
}

const upperFirst = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** The construct path of an operation's function construct below the stack (`CreateUser`): its `Function`, `Role`, `Logs`, `Live`. */
export const functionPath = (operation: string): string => upperFirst(operation);

/** The log groups a stage keeps: one per operation's function, the stream consumer's, the API's access log and its execution log. */
export const expectedLogGroupCount = (): number => OPERATIONS.length + 3;
