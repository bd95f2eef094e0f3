/**
 * The stage descriptor in the synthesized template: one SSM parameter whose value, once CloudFormation
 * resolves it, is what the sign-in package's parseDescriptor accepts (the stage's tables, Region,
 * setting, lengths, breach check; no secret), its outputs, and the roles that tools in other accounts
 * assume (`-c signInTools`): trusted by exactly that principal, with grantSignIn's statements and the
 * parameter's read, and nothing else.
 */

import { describe, expect, it } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { formatArgon2Setting } from '#platform/config';
import { PWNED_PASSWORDS_API } from '#platform/pwned-range';
import {
  grantSignIn,
  SIGN_IN_STATE_ACTIONS,
  SIGN_IN_USERS_READ_ACTIONS,
  SIGN_IN_USERS_WRITE_ACTIONS,
} from '../../lib/constructs/sign-in-grant';
import { parseDescriptor } from '../../packages/sign-in/src/descriptor';
import { baseStage, resourcesOf, synthStage, TEST_REGION } from './synth';

const OWNER = '0b7c8d2e-3f4a-4b5c-9d6e-7f8091a2b3c4';

/** The parameter's value as CloudFormation resolves it: each Ref, GetAtt and pseudo parameter by a readable stand-in. */
function resolvedDescriptor(template: Template): { raw: string; value: Record<string, unknown> } {
  const [parameter] = Object.values(resourcesOf(template)).filter((r) => r.Type === 'AWS::SSM::Parameter');
  const resolve = (node: unknown): string => {
    if (typeof node === 'string') return node;
    const n = node as Record<string, unknown>;
    if ('Fn::Join' in n) {
      const [separator, parts] = n['Fn::Join'] as [string, unknown[]];
      return parts.map(resolve).join(separator);
    }
    if ('Ref' in n) return n.Ref === 'AWS::Region' ? TEST_REGION : `ref:${String(n.Ref)}`;
    if ('Fn::GetAtt' in n) return `getatt:${(n['Fn::GetAtt'] as string[]).join('.')}`;
    return `other:${JSON.stringify(n)}`;
  };
  const raw = resolve(parameter!.Properties!.Value);
  return { raw, value: JSON.parse(raw) as Record<string, unknown> };
}

describe('the stage descriptor', () => {
  const { template, config } = synthStage('prod', { pwnedPasswordsCheck: 'true' });

  it('is one SSM parameter whose value the package accepts: the tables, the Region, the setting, the lengths, the breach check', () => {
    template.resourceCountIs('AWS::SSM::Parameter', 1);
    template.hasResourceProperties('AWS::SSM::Parameter', { Name: '/user-management/prod/sign-in-descriptor', Type: 'String' });
    const { value } = resolvedDescriptor(template);
    expect(() => parseDescriptor(value)).not.toThrow();
    expect(value).toMatchObject({
      descriptorVersion: 1,
      stage: 'prod',
      region: TEST_REGION,
      argon2Setting: formatArgon2Setting(config.argon2),
      passwordPolicy: { minLength: config.passwordMinLength, maxLength: config.passwordMaxLength },
      breachCheck: { pwnedPasswordsUrl: PWNED_PASSWORDS_API },
    });
    expect(value.usersTable).toEqual({ name: expect.stringMatching(/^ref:Tables/), arn: expect.stringMatching(/^getatt:Tables.*\.Arn$/) });
    expect(value.signInTable).toEqual({ name: expect.stringMatching(/^ref:Tables.*SignIn/), arn: expect.stringMatching(/\.Arn$/) });
    // Deployed, the SDK's own endpoint and the role's credentials: no endpoint, no development owner.
    expect(value).not.toHaveProperty('endpoint');
    expect(value).not.toHaveProperty('developmentOwner');
  });

  it('holds no secret: nothing but names, ARNs, the Region, the URLs and settings', () => {
    const { raw } = resolvedDescriptor(template);
    expect(raw).not.toMatch(/wlk_|secret|password_hash|\$argon2|Key"/i);
    const off = resolvedDescriptor(baseStage('prod').template).value;
    expect(off.breachCheck).toBeNull();
  });

  it('is named by two outputs (name and ARN)', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['SignInDescriptorParameter', 'SignInDescriptorParameterArn']));
  });
});

describe('tools in other accounts (-c signInTools)', () => {
  const tools = `123456789012,arn:aws:iam::210987654321:role/tool-backend=${OWNER}`;
  const { template } = synthStage('prod', { signInTools: tools });
  const roles = Object.entries(resourcesOf(template)).filter(
    ([id, r]) => r.Type === 'AWS::IAM::Role' && /^SignInTool\d{12}/.test(id) && !id.includes('DefaultPolicy'),
  );
  const policyOf = (roleId: string) =>
    Object.values(resourcesOf(template)).find(
      (r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties!.Roles) === JSON.stringify([{ Ref: roleId }]),
    )!.Properties!.PolicyDocument as { Statement: { Action: string | string[]; Condition?: Record<string, unknown> }[] };

  it('one role per tool, trusted by exactly that principal', () => {
    expect(roles).toHaveLength(2);
    const trust = roles.map(([, r]) => (r.Properties!.AssumeRolePolicyDocument as { Statement: { Principal: unknown }[] }).Statement);
    expect(trust[0]).toEqual([expect.objectContaining({ Action: 'sts:AssumeRole', Principal: { AWS: 'arn:aws:iam::123456789012:root' } })]);
    expect(trust[1]).toEqual([expect.objectContaining({ Principal: { AWS: 'arn:aws:iam::210987654321:role/tool-backend' } })]);
  });

  it("each role: grantSignIn's statements and the descriptor's read, nothing else; the owner's condition when named", () => {
    for (const [index, [id]] of roles.entries()) {
      const statements = policyOf(id).Statement;
      const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])).sort();
      expect(actions).toEqual(
        [...SIGN_IN_USERS_READ_ACTIONS, ...SIGN_IN_USERS_WRITE_ACTIONS, ...SIGN_IN_STATE_ACTIONS, 'ssm:GetParameter'].sort(),
      );
      const ssm = statements.find((s) => s.Action === 'ssm:GetParameter') as unknown as { Resource: unknown };
      expect(JSON.stringify(ssm.Resource)).toMatch(/:parameter",\{"Ref":"SignInDescriptor[0-9A-F]+"\}/);
      const owned = statements.filter((s) => JSON.stringify(s.Condition ?? {}).includes(`${OWNER}#`));
      expect(owned.length > 0).toBe(index === 1);
    }
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs).filter((k) => /^SignInTool\d{12}[0-9a-f]*RoleArn$/.test(k))).toHaveLength(2);
  });

  it("each role's logical id comes from its account; removing an account from the middle leaves every other role, logical id and ARN", () => {
    const three = '111111111111,222222222222,arn:aws:iam::333333333333:role/tool';
    const roleIds = (template: ReturnType<typeof synthStage>['template']) =>
      Object.entries(resourcesOf(template))
        .filter(([id, r]) => r.Type === 'AWS::IAM::Role' && id.startsWith('SignInTool'))
        .map(([id]) => id);
    const arns = (template: ReturnType<typeof synthStage>['template']) =>
      Object.fromEntries(
        Object.entries(template.toJSON().Outputs as Record<string, { Value: unknown }>)
          .filter(([k]) => /^SignInTool.*RoleArn$/.test(k))
          .map(([k, v]) => [k, JSON.stringify(v.Value)]),
      );
    const before = synthStage('staging', { signInTools: three }).template;
    const after = synthStage('staging', { signInTools: '111111111111,arn:aws:iam::333333333333:role/tool' }).template;
    const [first, middle, last] = roleIds(before);
    expect([first, middle].map((id) => id!.slice('SignInTool'.length, 'SignInTool'.length + 12))).toEqual(['111111111111', '222222222222']);
    expect(last!.startsWith('SignInTool333333333333')).toBe(true);
    expect(roleIds(after)).toEqual([first, last]);
    const trust = (template: ReturnType<typeof synthStage>['template'], id: string) =>
      JSON.stringify(resourcesOf(template)[id]!.Properties!.AssumeRolePolicyDocument);
    for (const id of [first!, last!]) expect(trust(after, id)).toBe(trust(before, id));
    const { [Object.keys(arns(before)).find((k) => k.startsWith('SignInTool222222222222'))!]: removed, ...kept } = arns(before);
    expect(removed).toBeDefined();
    expect(arns(after)).toEqual(kept);
    expect(() => synthStage('staging', { signInTools: '111111111111,111111111111' })).toThrow(/listed twice/);
  });

  it('refuses a principal that is neither an account id nor a role ARN', () => {
    expect(() => synthStage('prod', { signInTools: '*' })).toThrow(/Context signInTools: "\*"/);
    expect(() => synthStage('prod', { signInTools: '123456789012=o*' })).toThrow(/not an owner's id/);
  });

  it('none by default', () => {
    expect(Object.keys(resourcesOf(baseStage('prod').template)).filter((id) => /^SignInTool/.test(id))).toEqual([]);
  });
});

describe("grantSignIn's descriptorParameter in a tool's own CDK app", () => {
  it("adds exactly ssm:GetParameter on that parameter, by construct or by the output's ARN", () => {
    for (const given of ['construct', 'arn'] as const) {
      const stack = new Stack(new App(), 'Tool');
      const table = (id: string) => new Table(stack, id, { partitionKey: { name: 'pk', type: AttributeType.STRING } });
      const role = new Role(stack, 'ToolRole', { assumedBy: new AccountRootPrincipal() });
      const arn = 'arn:aws:ssm:eu-west-1:123456789012:parameter/user-management/prod/sign-in-descriptor';
      const parameter =
        given === 'arn' ? arn : StringParameter.fromStringParameterName(stack, 'P', '/user-management/prod/sign-in-descriptor');
      grantSignIn(role, { usersTable: table('Users'), signInTable: table('SignIn'), descriptorParameter: parameter });
      const [policy] = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'));
      const statements = (policy as { Properties: { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } } }).Properties
        .PolicyDocument.Statement;
      const ssm = statements.filter((s) => JSON.stringify(s.Action).includes('ssm:'));
      expect(ssm).toHaveLength(1);
      expect(ssm[0]!.Action).toBe('ssm:GetParameter');
      expect(JSON.stringify(ssm[0]!.Resource)).toContain(given === 'arn' ? arn : 'sign-in-descriptor');
    }
  });
});
