/**
 * A deployer that cannot escalate: the execution policy `npm run execution-policy` generates, as an IAM
 * policy evaluator (`@cloud-copilot/iam-simulate`, as in test/support/iam-policy.ts) decides on it, lets
 * CloudFormation create and change the stacks' roles only with the permissions boundary on them, pass
 * only the stacks' roles, and never take the boundary off a role nor rewrite or delete the boundary
 * policy. And every role each stage's template (and the account stack's) creates carries that boundary.
 */

import { runSimulation } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { EXECUTION_POLICY_NAME, executionPolicy, type PolicyDocument } from '../../codegen/execution-policy';
import { DEFAULT_PERMISSIONS_BOUNDARY, STAGES } from '../../lib/stage-config';
import { resourcesOf, synthStage } from './synth';

const ACCOUNT = '123456789012';
const policyArn = (name: string) => `arn:aws:iam::${ACCOUNT}:policy/${name}`;
const BOUNDARY = policyArn(DEFAULT_PERMISSIONS_BOUNDARY);
const STACK_ROLE = `arn:aws:iam::${ACCOUNT}:role/UserManagement-prod-CreateUserRole009436B3-AbCdEf123456`;
const FOREIGN_ROLE = `arn:aws:iam::${ACCOUNT}:role/OrganizationAccountAccessRole`;

// The resource types the stages synthesize today (the policy adds CodeDeploy's itself).
const TYPES = ['AWS::DynamoDB::Table', 'AWS::IAM::Policy', 'AWS::IAM::Role', 'AWS::Lambda::Function', 'AWS::Logs::LogGroup'];
const policy = executionPolicy(TYPES, DEFAULT_PERMISSIONS_BOUNDARY);

/** IAM's decision on one request of CloudFormation's execution role, whose only identity policy is `document`. */
async function decide(document: PolicyDocument, action: string, resource: string, context: Record<string, string> = {}): Promise<string> {
  const result = await runSimulation(
    {
      identityPolicies: [{ name: 'execution-policy', policy: document }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        action,
        principal: `arn:aws:iam::${ACCOUNT}:role/cdk-hnb659fds-cfn-exec-role-${ACCOUNT}-eu-west-1`,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: context,
      },
    } as unknown as Parameters<typeof runSimulation>[0],
    {},
  );
  if (result.resultType === 'error') throw new Error(`the evaluator refused the request: ${JSON.stringify(result.errors)}`);
  return result.overallResult;
}

describe('the execution policy, as IAM evaluates it', () => {
  it('grants no action on every service, and no iam:* at all', () => {
    const actions = policy.Statement.filter((s) => s.Effect === 'Allow').flatMap((s) => s.Action);
    expect(actions).not.toContain('*');
    expect(actions).not.toContain('iam:*');
  });

  it.each([['iam:CreateRole'], ['iam:PutRolePolicy'], ['iam:AttachRolePolicy'], ['iam:PutRolePermissionsBoundary']])(
    '%s on a stack role: allowed with the boundary, denied without it or with another',
    async (action) => {
      expect(await decide(policy, action, STACK_ROLE, { 'iam:PermissionsBoundary': BOUNDARY })).toBe('Allowed');
      expect(await decide(policy, action, STACK_ROLE)).not.toBe('Allowed');
      expect(await decide(policy, action, STACK_ROLE, { 'iam:PermissionsBoundary': policyArn('AdministratorAccess') })).not.toBe('Allowed');
    },
  );

  it('creating a role without the boundary is denied explicitly, so no other policy on the role can allow it', async () => {
    expect(await decide(policy, 'iam:CreateRole', STACK_ROLE)).toBe('ExplicitlyDenied');
    // Even beside an administrator's policy.
    const admin: PolicyDocument = {
      Version: '2012-10-17',
      Statement: [...policy.Statement, { Sid: 'Admin', Effect: 'Allow', Action: ['*'], Resource: '*' }],
    };
    expect(await decide(admin, 'iam:CreateRole', STACK_ROLE)).toBe('ExplicitlyDenied');
    expect(await decide(admin, 'iam:CreateRole', STACK_ROLE, { 'iam:PermissionsBoundary': BOUNDARY })).toBe('Allowed');
  });

  it('a role outside the stacks is neither created nor changed, even with the boundary', async () => {
    for (const action of ['iam:CreateRole', 'iam:PutRolePolicy', 'iam:AttachRolePolicy', 'iam:UpdateAssumeRolePolicy', 'iam:DeleteRole'])
      expect([action, await decide(policy, action, FOREIGN_ROLE, { 'iam:PermissionsBoundary': BOUNDARY })]).toEqual([
        action,
        expect.not.stringMatching(/^Allowed$/),
      ]);
  });

  it("taking the boundary off a role is denied, the stack's own roles included", async () => {
    expect(await decide(policy, 'iam:DeleteRolePermissionsBoundary', STACK_ROLE, { 'iam:PermissionsBoundary': BOUNDARY })).toBe(
      'ExplicitlyDenied',
    );
  });

  it.each([['iam:DeletePolicy'], ['iam:CreatePolicyVersion'], ['iam:SetDefaultPolicyVersion'], ['iam:DeletePolicyVersion']])(
    '%s on the boundary policy, or on the execution policy itself, is denied',
    async (action) => {
      expect(await decide(policy, action, BOUNDARY)).toBe('ExplicitlyDenied');
      expect(await decide(policy, action, policyArn(EXECUTION_POLICY_NAME))).toBe('ExplicitlyDenied');
    },
  );

  it('PassRole: a stack role allowed, a foreign role denied', async () => {
    expect(await decide(policy, 'iam:PassRole', STACK_ROLE, { 'iam:PassedToService': 'lambda.amazonaws.com' })).toBe('Allowed');
    expect(await decide(policy, 'iam:PassRole', FOREIGN_ROLE, { 'iam:PassedToService': 'lambda.amazonaws.com' })).not.toBe('Allowed');
  });

  it('still deploys the rest: the services of the templates, the assets and the bootstrap version', async () => {
    expect(await decide(policy, 'dynamodb:CreateTable', `arn:aws:dynamodb:eu-west-1:${ACCOUNT}:table/UserManagement-prod-Users`)).toBe(
      'Allowed',
    );
    expect(await decide(policy, 'iam:DeleteRole', STACK_ROLE)).toBe('Allowed');
    expect(await decide(policy, 'iam:TagRole', STACK_ROLE)).toBe('Allowed');
    expect(await decide(policy, 's3:GetObject', 'arn:aws:s3:::cdk-hnb659fds-assets-123456789012-eu-west-1/code.zip')).toBe('Allowed');
  });

  it('a custom boundary name moves every condition and deny with it', async () => {
    const custom = executionPolicy(TYPES, 'team-boundary');
    expect(await decide(custom, 'iam:CreateRole', STACK_ROLE, { 'iam:PermissionsBoundary': policyArn('team-boundary') })).toBe('Allowed');
    expect(await decide(custom, 'iam:CreateRole', STACK_ROLE, { 'iam:PermissionsBoundary': BOUNDARY })).toBe('ExplicitlyDenied');
    expect(await decide(custom, 'iam:DeletePolicy', policyArn('team-boundary'))).toBe('ExplicitlyDenied');
  });
});

/** Every role of a template, by logical id, with its PermissionsBoundary (undefined when it has none). */
const boundaries = (template: Template) =>
  Object.fromEntries(
    Object.entries(resourcesOf(template))
      .filter(([, resource]) => resource.Type === 'AWS::IAM::Role')
      .map(([id, resource]) => [id, JSON.stringify(resource.Properties?.PermissionsBoundary)]),
  );

/** The boundary's ARN as the templates write it (synthStage pins the region, so the partition is known; the account is the deploy's). */
const boundaryInTemplate = (name: string) =>
  JSON.stringify({ 'Fn::Join': ['', ['arn:aws:iam::', { Ref: 'AWS::AccountId' }, `:policy/${name}`]] });

describe.each(STAGES)('%s: every role carries the permissions boundary', (stage) => {
  // A sign-in tool's cross-account role too.
  const { template, accountStack } = synthStage(stage, { signInTools: '210987654321' });

  it("every AWS::IAM::Role of the stage's template, the sign-in tool's included", () => {
    const roles = boundaries(template);
    expect(Object.keys(roles).length).toBeGreaterThan(4);
    expect(Object.keys(roles)).toContainEqual(expect.stringMatching(/^SignInTool210987654321/));
    for (const [id, boundary] of Object.entries(roles))
      expect([id, boundary]).toEqual([id, boundaryInTemplate(DEFAULT_PERMISSIONS_BOUNDARY)]);
  });

  it("the account stack's role", () => {
    const roles = boundaries(Template.fromStack(accountStack));
    expect(Object.keys(roles).length).toBe(1);
    for (const [id, boundary] of Object.entries(roles))
      expect([id, boundary]).toEqual([id, boundaryInTemplate(DEFAULT_PERMISSIONS_BOUNDARY)]);
  });
});

describe('the boundary is a setting', () => {
  it('-c permissionsBoundary=<name> puts that policy on every role of every stack', () => {
    const { template, accountStack } = synthStage('prod', { permissionsBoundary: 'team-boundary' });
    for (const roles of [boundaries(template), boundaries(Template.fromStack(accountStack))])
      for (const [id, boundary] of Object.entries(roles)) expect([id, boundary]).toEqual([id, boundaryInTemplate('team-boundary')]);
  });

  it('a malformed name fails the synth', () => {
    expect(() => synthStage('dev', { permissionsBoundary: 'arn:aws:iam::123456789012:policy/x' })).toThrow(
      /Context permissionsBoundary must be an IAM policy's name/,
    );
  });
});
