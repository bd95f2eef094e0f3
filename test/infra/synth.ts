import { join } from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/app';
import type { StageName } from '../../lib/stage-config';
import { OPERATIONS, type Operation } from '../../lib/user-management-stack';

export const TEST_REGION = 'eu-west-1';

/**
 * The app exactly as `cdk synth` builds it (cdk-nag plugin included), for one stage, with Lambda
 * bundling skipped: template assertions need the template, not the asset, and bundling costs seconds.
 * The asset itself is checked once, with real bundling, in asset.test.ts.
 */
export function synthStage(stage: StageName, context: Record<string, unknown> = {}) {
  const built = buildApp({ context: { stage, 'aws:cdk:bundling-stacks': [], ...context }, region: TEST_REGION });
  return { ...built, template: Template.fromStack(built.stack) };
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

/** The log groups a stage keeps: one per operation's function, the stream consumer's, the API's access log and its execution log. */
export const expectedLogGroupCount = (): number => OPERATIONS.length + 3;

/** Synthesizes prod with real bundling (esbuild, npm install into each asset) into `dir`; each function's asset directory. */
export function synthAssets(dir: string): Record<Operation, string> {
  const { app, stack } = buildApp({
    // Asset metadata (the CLI turns it on) records each function's asset directory in the template.
    context: { stage: 'prod', 'aws:cdk:enable-asset-metadata': true },
    outdir: dir,
    region: TEST_REGION,
  });
  const template = app.synth().getStackByName(stack.stackName).template as {
    Resources: Record<string, { Metadata?: Record<string, string> }>;
  };
  const dirs = {} as Record<Operation, string>;
  for (const operation of OPERATIONS) {
    const id = stack.getLogicalId(stack.functions[operation].function.node.defaultChild as CfnElement);
    const assetPath = template.Resources[id]?.Metadata?.['aws:asset:path'];
    if (!assetPath) throw new Error(`no asset for ${operation}`);
    dirs[operation] = join(dir, assetPath);
  }
  return dirs;
}
