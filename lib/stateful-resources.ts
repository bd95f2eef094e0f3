/**
 * The stateful resources of a stage and the properties whose change makes CloudFormation replace
 * them: the record in `lib/stateful-resources/<stage>.json` (written by `npm run stateful-resources
 * -- --write`) and the comparison that `test/infra/stateful-resources.test.ts` runs against every
 * freshly synthesized stage. A release may add a stateful resource; it may never replace, rename or
 * remove one without someone updating the record on purpose (and saying so in the commit).
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { Stack } from 'aws-cdk-lib';
import { buildApp } from './app';
import type { StageName } from './stage-config';

/** Where the record of each stage lives. */
export const RECORD_DIR = fileURLToPath(new URL('./stateful-resources/', import.meta.url));
export const recordPath = (stage: StageName) => `${RECORD_DIR}${stage}.json`;

/**
 * The types that hold data, that others hold on to, or that hold a position in a stream, and for each the properties whose change
 * replaces the resource (AWS CloudFormation template reference, "Update requires: Replacement" on
 * each property; the same list as `createOnlyProperties` in the resource type's provider schema,
 * which cfn-lint 1.51 bundles), or that can never change (the update fails).
 */
export const STATEFUL_TYPES: Readonly<
  Record<
    string,
    {
      readonly replacedBy: readonly string[];
      readonly source: string;
      readonly keptWithoutStack?: false;
      /** Only the resources of the type this holds for (all of them when absent). */
      readonly only?: (resource: TemplateResource) => boolean;
    }
  >
> = {
  'AWS::DynamoDB::Table': {
    replacedBy: ['TableName', 'KeySchema', 'LocalSecondaryIndexes', 'ImportSourceSpecification'],
    source:
      'Template reference, AWS::DynamoDB::Table: KeySchema "Update requires: Replacement", LocalSecondaryIndexes "Update requires: Replacement", TableName "Update requires: Replacement"; provider schema createOnlyProperties: TableName, ImportSourceSpecification',
  },
  'AWS::KMS::Key': {
    replacedBy: ['KeySpec', 'KeyUsage', 'Origin', 'MultiRegion'],
    source:
      'No property replaces a key (no createOnlyProperties in its provider schema); these four cannot change ("You can\'t change the KeySpec after the KMS key is created", KMS CreateKey), so a change fails the deploy: held all the same',
  },
  'AWS::SNS::Topic': {
    replacedBy: ['TopicName', 'FifoTopic'],
    source: 'Template reference, AWS::SNS::Topic: TopicName and FifoTopic "Update requires: Replacement" (createOnlyProperties)',
  },
  'AWS::Logs::LogGroup': {
    replacedBy: ['LogGroupName', 'LogGroupClass'],
    source:
      'Template reference, AWS::Logs::LogGroup: LogGroupName "Update requires: Replacement" (createOnlyProperties); LogGroupClass: a log group\'s class "can\'t be changed after a log group is created" (CloudWatch Logs)',
  },
  'AWS::SSM::Parameter': {
    replacedBy: ['Name'],
    source:
      'Template reference, AWS::SSM::Parameter: Name "Update requires: Replacement". Tools read the sign-in descriptor by its fixed name, so a new logical id would create the same name before deleting the old one, and fail. Written by the stack from the stage: not kept without it',
    keptWithoutStack: false,
  },
  'AWS::Events::EventBus': {
    replacedBy: ['Name'],
    source:
      'Template reference, AWS::Events::EventBus: Name "Update requires: Replacement". Consumers\' rules name the bus; a new logical id with the same fixed name fails. Holds no data of its own: not kept without the stack',
    keptWithoutStack: false,
  },
  'AWS::SQS::Queue': {
    replacedBy: ['QueueName', 'FifoQueue'],
    source: 'Template reference, AWS::SQS::Queue: QueueName and FifoQueue "Update requires: Replacement" (createOnlyProperties)',
  },
  'AWS::Lambda::EventSourceMapping': {
    replacedBy: ['EventSourceArn', 'StartingPosition', 'StartingPositionTimestamp', 'SelfManagedEventSource'],
    source:
      'Template reference, AWS::Lambda::EventSourceMapping: EventSourceArn, StartingPosition, StartingPositionTimestamp and SelfManagedEventSource "Update requires: Replacement" (createOnlyProperties). Its state is the consumer\'s position in the stream: a new mapping starts again at its StartingPosition and delivers again what the old one had. Not kept without its stack (it would invoke a deleted function)',
    keptWithoutStack: false,
  },
  'AWS::IAM::Role': {
    replacedBy: ['RoleName', 'Path'],
    source:
      'Provider schema createOnlyProperties: Path, RoleName ("Update requires: Replacement"). Held only for a role another account assumes (a sign-in tool\'s, keyed by its account): the tool names it by its ARN, whose name CloudFormation generates from the logical id, so a new logical id is a new ARN and the tool stops signing in. Not kept without its stack',
    keptWithoutStack: false,
    only: (resource) => assumedFromAnotherAccount(resource),
  },
  'AWS::SecretsManager::Secret': {
    replacedBy: ['Name'],
    source: 'Template reference, AWS::SecretsManager::Secret: Name "Update requires: Replacement" (createOnlyProperties)',
  },
};

/** Whether a role's trust policy names an AWS principal (an account or a role), not only services. */
function assumedFromAnotherAccount(resource: TemplateResource): boolean {
  const trust = resource.Properties?.AssumeRolePolicyDocument as { Statement?: { Principal?: Record<string, unknown> }[] } | undefined;
  return (trust?.Statement ?? []).some((statement) => statement.Principal?.AWS !== undefined);
}

/** Whether the guard holds this resource: its type is stateful, and it is one of those the type holds for. */
export const isStateful = (resource: TemplateResource): boolean => {
  const kind = STATEFUL_TYPES[resource.Type];
  return kind !== undefined && (kind.only?.(resource) ?? true);
};

export interface StatefulResource {
  readonly type: string;
  /** Each replacing property's value in the template (`null` when unset: CloudFormation's default). */
  readonly replacedBy: Readonly<Record<string, unknown>>;
}

/** One stage's record: its stack and its stateful resources by logical id. */
export interface StatefulRecord {
  readonly stack: string;
  readonly resources: Readonly<Record<string, StatefulResource>>;
}

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}
export type TemplateJson = { readonly Resources: Record<string, TemplateResource> };

/** The stateful resources of a template, as the record holds them. */
export function statefulResourcesOf(stackName: string, template: TemplateJson): StatefulRecord {
  const resources: Record<string, StatefulResource> = {};
  for (const [id, resource] of Object.entries(template.Resources).sort(([a], [b]) => a.localeCompare(b))) {
    const kind = STATEFUL_TYPES[resource.Type];
    if (!kind || !isStateful(resource)) continue;
    resources[id] = {
      type: resource.Type,
      replacedBy: Object.fromEntries(kind.replacedBy.map((property) => [property, resource.Properties?.[property] ?? null])),
    };
  }
  return { stack: stackName, resources };
}

/**
 * What a deploy of `current` would do to the recorded stateful resources, one line each: removed or
 * renamed (the logical id is gone), replaced (another type, or a replacing property changed), or new
 * and not yet recorded. Empty when the deploy keeps every one of them.
 */
export function compareStateful(recorded: StatefulRecord, current: StatefulRecord): string[] {
  const problems: string[] = [];
  for (const [id, was] of Object.entries(recorded.resources)) {
    const now = current.resources[id];
    if (!now) {
      problems.push(
        `${recorded.stack}: ${id} (${was.type}) would be removed or renamed: CloudFormation deletes a resource whose logical id leaves the template`,
      );
      continue;
    }
    if (now.type !== was.type) {
      problems.push(`${recorded.stack}: ${id} would change type from ${was.type} to ${now.type}: CloudFormation replaces it`);
      continue;
    }
    for (const [property, value] of Object.entries(was.replacedBy)) {
      const next = now.replacedBy[property] ?? null;
      if (!isDeepStrictEqual(next, value)) {
        problems.push(
          `${recorded.stack}: ${id} (${was.type}) ${property} would change from ${JSON.stringify(value)} to ${JSON.stringify(next)}: CloudFormation replaces the resource on a change of ${property}`,
        );
      }
    }
  }
  for (const [id, now] of Object.entries(current.resources)) {
    if (!recorded.resources[id]) {
      problems.push(`${current.stack}: ${id} (${now.type}) is not in the record: if it is new, run npm run stateful-resources -- --write`);
    }
  }
  return problems;
}

/**
 * The stateful resources of a stage that would not outlive their stack or their replacement: every
 * one that holds data (all but event source mappings, whose state is a position in a stream that
 * means nothing without their function) needs `DeletionPolicy` and `UpdateReplacePolicy` `Retain` in
 * a stage that keeps its data.
 */
export function unretained(template: TemplateJson): string[] {
  return Object.entries(template.Resources)
    .filter(([, resource]) => isStateful(resource) && STATEFUL_TYPES[resource.Type]!.keptWithoutStack !== false)
    .filter(([, resource]) => resource.DeletionPolicy !== 'Retain' || resource.UpdateReplacePolicy !== 'Retain')
    .map(
      ([id, resource]) =>
        `${id} (${resource.Type}): DeletionPolicy ${resource.DeletionPolicy ?? 'Delete'}, UpdateReplacePolicy ${resource.UpdateReplacePolicy ?? 'Delete'}`,
    );
}

/**
 * Each stage's stack as the record is made from it: the app as `cdk synth -c stage=<stage>` builds it
 * with no region (the templates' own), without bundling (no stateful property depends on an asset).
 * `modify` changes the stack before synthesis (the tests' injected defects).
 */
export function synthesizeForRecord(
  stage: StageName,
  options: { readonly context?: Record<string, unknown>; readonly modify?: (stack: ReturnType<typeof buildApp>['stack']) => void } = {},
): { stack: Stack; record: StatefulRecord; template: TemplateJson } {
  const { app, stack } = buildApp({ context: { stage, 'aws:cdk:bundling-stacks': [], ...options.context } });
  options.modify?.(stack);
  const template = app.synth({ validateOnSynthesis: false }).getStackByName(stack.stackName).template as TemplateJson;
  return { stack, record: statefulResourcesOf(stack.stackName, template), template };
}

export const readRecord = (stage: StageName): StatefulRecord => JSON.parse(readFileSync(recordPath(stage), 'utf8')) as StatefulRecord;
