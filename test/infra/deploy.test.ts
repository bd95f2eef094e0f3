/**
 * What a first deploy meets, on the app as `cdk synth -c stage=dev,staging,prod` builds it: all
 * three stages and the one-time account stack synthesized together, with no region configured.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ACCOUNT_STACK_NAME } from '../../lib/account-stack';
import { buildApp } from '../../lib/app';
import { STAGES } from '../../lib/stage-config';
import type { UserManagementStack } from '../../lib/user-management-stack';
import { resourcesOf } from './synth';

// The CLI hands the app a region it found (or its us-east-1 fallback) in these: the app must not
// write it into a template.
const REGION_VARIABLES = ['CDK_DEFAULT_REGION', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'CDK_DEFAULT_ACCOUNT'] as const;
const saved = Object.fromEntries(REGION_VARIABLES.map((name) => [name, process.env[name]]));
let built: ReturnType<typeof buildApp>;
let templates: Record<string, Template>;

beforeAll(() => {
  Object.assign(process.env, { CDK_DEFAULT_REGION: 'us-east-1', AWS_REGION: 'ap-south-2', CDK_DEFAULT_ACCOUNT: '123456789012' });
  built = buildApp({ context: { stage: STAGES.join(','), 'aws:cdk:bundling-stacks': [] } });
  templates = Object.fromEntries(
    built.app.node.children.filter(Stack.isStack).map((stack) => [stack.stackName, Template.fromStack(stack)]),
  );
});
afterAll(() => {
  for (const name of REGION_VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const stageStacks = () => STAGES.map((stage) => built.stages[stage]!);
const logicalId = (stack: UserManagementStack, element: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(element.node.defaultChild as CfnElement);

it('holds the account stack and one stack per stage', () => {
  expect(Object.keys(templates).sort()).toEqual([
    ACCOUNT_STACK_NAME,
    'UserManagement-dev',
    'UserManagement-prod',
    'UserManagement-staging',
  ]);
});

describe('API Gateway account role', () => {
  it('one AWS::ApiGateway::Account and its role in the whole app, in the account stack, both retained', () => {
    const counts = Object.fromEntries(
      Object.entries(templates).map(([name, template]) => [name, Object.keys(template.findResources('AWS::ApiGateway::Account')).length]),
    );
    expect(counts).toEqual({ [ACCOUNT_STACK_NAME]: 1, 'UserManagement-dev': 0, 'UserManagement-staging': 0, 'UserManagement-prod': 0 });
    const account = templates[ACCOUNT_STACK_NAME]!;
    const roleId = built.accountStack.getLogicalId(built.accountStack.role.node.defaultChild as CfnElement);
    account.hasResource('AWS::ApiGateway::Account', {
      Properties: { CloudWatchRoleArn: { 'Fn::GetAtt': [roleId, 'Arn'] } },
      DeletionPolicy: 'Retain',
    });
    account.hasResource('AWS::IAM::Role', {
      Properties: {
        AssumeRolePolicyDocument: Match.objectLike({
          Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
        }),
        ManagedPolicyArns: [
          { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs']] },
        ],
      },
      DeletionPolicy: 'Retain',
    });
    account.resourceCountIs('AWS::IAM::Role', 1);
    expect(built.accountStack.terminationProtection).toBe(true);
  });

  it('no stage stack holds a role API Gateway could assume, so a stage deploys where a landing zone owns the setting', () => {
    for (const stack of stageStacks()) {
      const roles = Object.values(templates[stack.stackName]!.findResources('AWS::IAM::Role'));
      expect(roles.filter((role) => JSON.stringify(role).includes('apigateway.amazonaws.com'))).toEqual([]);
    }
  });

  it('the account stack passes cdk-nag with only the managed-policy acknowledgement', () => {
    expect(new AwsSolutionsChecks(built.app).validateScope(built.accountStack).violations).toEqual([]);
  });

  it('refuses the context key that used to put the role into stage stacks, pointing at the account stack', () => {
    expect(() => buildApp({ context: { stage: 'prod', apiGatewayCloudWatchRole: 'false' } })).toThrow(
      /apiGatewayCloudWatchRole is no longer read: .*UserManagement-account/,
    );
  });
});

describe('region', () => {
  it('no template names a region: each resolves AWS::Region where it is deployed', () => {
    for (const [name, template] of Object.entries(templates)) {
      const text = JSON.stringify(template.toJSON());
      expect([name, text.match(/\b(?:us|eu|ap|sa|ca|me|af|il|mx)-(?:gov-)?[a-z]+-\d\b/g)]).toEqual([name, null]);
    }
    for (const stack of stageStacks()) {
      expect(stack.region).toBe(Stack.of(stack).region);
      expect(templates[stack.stackName]!.toJSON().Outputs.BaseUrl.Value['Fn::Join'][1]).toContainEqual({ Ref: 'AWS::Region' });
    }
  });
});

describe('per-stage names that must not clash', () => {
  it('dashboard names carry the stage and the region (dashboards are global to the account)', () => {
    const names = stageStacks().map((stack) => {
      const [dashboard] = Object.values(templates[stack.stackName]!.findResources('AWS::CloudWatch::Dashboard'));
      return dashboard?.Properties?.DashboardName;
    });
    expect(names).toEqual(STAGES.map((stage) => ({ 'Fn::Join': ['', [`UserManagement-${stage}-`, { Ref: 'AWS::Region' }]] })));
  });

  it("API Gateway's execution-log group is the stack's, with the stage's retention and removal policy, before the stage", () => {
    const expected = { dev: [7, 'Delete'], staging: [30, 'Retain'], prod: [365, 'Retain'] } as const;
    for (const stage of STAGES) {
      const stack = built.stages[stage]!;
      const template = templates[stack.stackName]!;
      const [retention, policy] = expected[stage];
      const groupId = logicalId(stack, stack.api.executionLogs);
      template.hasResource('AWS::Logs::LogGroup', {
        Properties: {
          LogGroupName: { 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: logicalId(stack, stack.api.api) }, `/${stage}`]] },
          RetentionInDays: retention,
        },
        DeletionPolicy: policy,
        UpdateReplacePolicy: policy,
      });
      const stageResource = resourcesOf(template)[logicalId(stack, stack.api.api.deploymentStage)];
      expect(stageResource?.DependsOn).toEqual(expect.arrayContaining([groupId]));
    }
  });
});
