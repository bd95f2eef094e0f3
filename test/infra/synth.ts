import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/app';
import type { StageName } from '../../lib/stage-config';

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
