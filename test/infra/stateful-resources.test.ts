/**
 * No release can replace or remove a stateful resource: every stage, synthesized afresh, against the
 * committed record (lib/stateful-resources/<stage>.json); and every stateful resource of a stage that
 * keeps its data survives its stack and its replacement (DeletionPolicy and UpdateReplacePolicy Retain).
 * The defects the comparison must catch are injected into stacks synthesized here, in process.
 */

import { describe, expect, it } from '@jest/globals';
import { type CfnElement, RemovalPolicy } from 'aws-cdk-lib';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnLogGroup } from 'aws-cdk-lib/aws-logs';
import { STAGES } from '../../lib/stage-config';
import {
  compareStateful,
  isStateful,
  readRecord,
  STATEFUL_TYPES,
  synthesizeForRecord,
  type TemplateJson,
  unretained,
} from '../../lib/stateful-resources';
import { signInToolKey, type UserManagementStack } from '../../lib/user-management-stack';

const fresh = Object.fromEntries(STAGES.map((stage) => [stage, synthesizeForRecord(stage)])) as Record<
  (typeof STAGES)[number],
  ReturnType<typeof synthesizeForRecord>
>;
const idOf = (stack: UserManagementStack, element: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(element.node.defaultChild as CfnElement);
const prodStack = fresh.prod.stack as UserManagementStack;
const usersTable = idOf(prodStack, prodStack.tables.users);

describe.each(STAGES)('%s', (stage) => {
  it('keeps every recorded stateful resource: none replaced, renamed or removed, none unrecorded', () => {
    expect(compareStateful(readRecord(stage), fresh[stage].record)).toEqual([]);
  });

  it('the record holds every resource of a stateful type in the template, with each replacing property', () => {
    const template = fresh[stage].template;
    const stateful = Object.entries(template.Resources).filter(([, resource]) => isStateful(resource));
    expect(Object.keys(readRecord(stage).resources).sort()).toEqual(stateful.map(([id]) => id).sort());
    for (const [id, resource] of stateful) {
      expect(Object.keys(readRecord(stage).resources[id]!.replacedBy)).toEqual(STATEFUL_TYPES[resource.Type]!.replacedBy);
    }
  });
});

describe.each(['staging', 'prod'] as const)('%s keeps its data', (stage) => {
  it('every stateful resource in the template that holds data: DeletionPolicy and UpdateReplacePolicy Retain', () => {
    const { template } = fresh[stage];
    const holdingData = Object.entries(template.Resources).filter(
      ([, resource]) => isStateful(resource) && STATEFUL_TYPES[resource.Type]!.keptWithoutStack !== false,
    );
    expect(holdingData.length).toBeGreaterThan(0);
    expect(unretained(template)).toEqual([]);
    for (const [id, resource] of holdingData)
      expect([id, resource.DeletionPolicy, resource.UpdateReplacePolicy]).toEqual([id, 'Retain', 'Retain']);
  });
});

describe('the checks fail on each defect, naming the resource and the property', () => {
  const problemsOf = (modify: (stack: UserManagementStack) => void, context: Record<string, unknown> = {}) =>
    compareStateful(
      readRecord('prod'),
      synthesizeForRecord('prod', { context, modify: (stack) => modify(stack as UserManagementStack) }).record,
    );

  it("a table's partition key renamed", () => {
    const problems = problemsOf((stack) => {
      const table = stack.tables.users.node.defaultChild as CfnTable;
      table.addPropertyOverride('KeySchema.0.AttributeName', 'user_pk');
      table.addPropertyOverride('AttributeDefinitions.0.AttributeName', 'user_pk');
    });
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(`^UserManagement-prod: ${usersTable} \\(AWS::DynamoDB::Table\\) KeySchema would change from .*"pk".* to .*"user_pk"`),
      ),
    ]);
  });

  it("a table's construct id changed (a new logical id)", () => {
    const problems = problemsOf((stack) => {
      // What renaming the construct `Users` to `Accounts` does to the template: the logical id follows the construct path.
      (stack.tables.users.node.defaultChild as CfnTable).overrideLogicalId(usersTable.replace('Users', 'Accounts'));
    });
    expect(problems).toEqual([
      // The stream's mapping would follow the new table's stream: replaced too.
      expect.stringMatching(/\(AWS::Lambda::EventSourceMapping\) EventSourceArn would change from .*TablesUsers.* to .*TablesAccounts/),
      expect.stringContaining(`${usersTable} (AWS::DynamoDB::Table) would be removed or renamed`),
      expect.stringContaining(`${usersTable.replace('Users', 'Accounts')} (AWS::DynamoDB::Table) is not in the record`),
    ]);
  });

  it("the alarm topic's key removed (the team's topic named instead of the stage's own)", () => {
    const problems = problemsOf(() => {}, { alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alerts' });
    const removed = Object.entries(readRecord('prod').resources)
      .filter(([, resource]) => resource.type === 'AWS::KMS::Key' || resource.type === 'AWS::SNS::Topic')
      .map(([id, resource]) => expect.stringContaining(`${id} (${resource.type}) would be removed or renamed`));
    expect(removed.length).toBeGreaterThan(0);
    expect(problems.sort()).toEqual(removed);
    expect(problems.some((problem) => problem.includes('(AWS::KMS::Key) would be removed'))).toBe(true);
  });

  it("the stream's event source mapping moved to another construct (its position in the stream would start over)", () => {
    const mapping = Object.entries(readRecord('prod').resources).find(
      ([, resource]) => resource.type === 'AWS::Lambda::EventSourceMapping',
    )![0];
    const problems = problemsOf((stack) => {
      const child = stack.lifecycleEvents.consumer.alias.node.children.find((c) => c.node.id.startsWith('DynamoDBEventSource'))!;
      (child.node.defaultChild as CfnElement).overrideLogicalId('LifecycleEventsConsumerLiveMapping');
    });
    expect(problems).toEqual([
      expect.stringContaining(`${mapping} (AWS::Lambda::EventSourceMapping) would be removed or renamed`),
      expect.stringContaining('LifecycleEventsConsumerLiveMapping (AWS::Lambda::EventSourceMapping) is not in the record'),
    ]);
    // The logical id it had on the function before releases moved it to the alias: CloudFormation updates it in place.
    expect(mapping).toBe('LifecycleEventsConsumerFunctionDynamoDBEventSourceUserManagementprodTablesUsers5699FFB7FFE37BFE');
  });

  it("a log group's name set", () => {
    const logGroup = idOf(prodStack, prodStack.functions.createUser.logGroup);
    const problems = problemsOf((stack) => {
      (stack.functions.createUser.logGroup.node.defaultChild as CfnLogGroup).logGroupName = '/user-management/create-user';
    });
    expect(problems).toEqual([
      `UserManagement-prod: ${logGroup} (AWS::Logs::LogGroup) LogGroupName would change from null to "/user-management/create-user": CloudFormation replaces the resource on a change of LogGroupName`,
    ]);
  });

  it("a log group's class set (it can't be changed after the log group is created)", () => {
    const logGroup = idOf(prodStack, prodStack.functions.createUser.logGroup);
    const problems = problemsOf((stack) => {
      (stack.functions.createUser.logGroup.node.defaultChild as CfnLogGroup).logGroupClass = 'INFREQUENT_ACCESS';
    });
    expect(problems).toEqual([
      expect.stringContaining(`${logGroup} (AWS::Logs::LogGroup) LogGroupClass would change from null to "INFREQUENT_ACCESS"`),
    ]);
  });

  it.each([
    ['the sign-in descriptor parameter', (stack: UserManagementStack) => stack.signInDescriptor, 'AWS::SSM::Parameter'],
    ['the event bus', (stack: UserManagementStack) => stack.lifecycleEvents.bus, 'AWS::Events::EventBus'],
  ] as const)("%s's construct renamed (a new logical id for a fixed name)", (_, construct, type) => {
    const id = idOf(prodStack, construct(prodStack));
    const problems = problemsOf((stack) => (construct(stack).node.defaultChild as CfnElement).overrideLogicalId(`${id}Renamed`));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`${id} (${type}) would be removed or renamed`),
        expect.stringContaining(`${id}Renamed (${type}) is not in the record`),
      ]),
    );
  });

  it('a stateful resource of a stage that keeps its data, left to be deleted with its stack', () => {
    const { template } = synthesizeForRecord('prod', {
      modify: (stack) => (stack as UserManagementStack).lifecycleEvents.deadLetters.applyRemovalPolicy(RemovalPolicy.DESTROY),
    });
    const queue = idOf(prodStack, prodStack.lifecycleEvents.deadLetters);
    expect(unretained(template as TemplateJson)).toEqual([`${queue} (AWS::SQS::Queue): DeletionPolicy Delete, UpdateReplacePolicy Delete`]);
    // And dev, which keeps nothing, fails the same check on every one that holds data.
    expect(unretained(fresh.dev.template).length).toBe(
      Object.values(fresh.dev.record.resources).filter((resource) => STATEFUL_TYPES[resource.type]!.keptWithoutStack !== false).length,
    );
  });
});

describe("a sign-in tool's cross-account role: keyed by its account, never its place in signInTools", () => {
  // Three tools, the middle one a role's ARN; then the middle one removed, as an edit of signInTools would.
  const tools = ['111111111111', 'arn:aws:iam::222222222222:role/tool', '333333333333'];
  const kept = [tools[0]!, tools[2]!];
  const before = synthesizeForRecord('prod', { context: { signInTools: tools.join(',') } });
  const after = synthesizeForRecord('prod', { context: { signInTools: kept.join(',') } });
  type Template = TemplateJson & { Outputs: Record<string, { Value: unknown }> };
  /** The logical id of the role `principal` assumes in `template`: the one whose trust policy names it. */
  const roleOf = (template: TemplateJson, principal: string) => {
    const named = /^\d{12}$/.test(principal) ? `:iam::${principal}:root` : principal;
    const ids = Object.entries(template.Resources)
      .filter(
        ([, resource]) =>
          resource.Type === 'AWS::IAM::Role' && JSON.stringify(resource.Properties?.AssumeRolePolicyDocument).includes(named),
      )
      .map(([id]) => id);
    expect([principal, ids.length]).toEqual([principal, 1]);
    return ids[0]!;
  };

  it('the guard holds every tool role (and no role of a function or service)', () => {
    const roles = Object.values(before.record.resources).filter((resource) => resource.type === 'AWS::IAM::Role');
    expect(roles.length).toBe(tools.length);
    expect(Object.keys(before.record.resources)).toEqual(expect.arrayContaining(tools.map((tool) => roleOf(before.template, tool))));
  });

  it('removing the middle tool: the guard names its role, and only it', () => {
    const removed = roleOf(before.template, tools[1]!);
    // The role's logical id names the tool's account (lib/user-management-stack.ts, signInToolKey).
    expect(removed).toContain('222222222222');
    expect(removed).toMatch(new RegExp(`^SignInTool${signInToolKey(tools[1]!)}`));
    expect(compareStateful(before.record, after.record)).toEqual([
      `UserManagement-prod: ${removed} (AWS::IAM::Role) would be removed or renamed: CloudFormation deletes a resource whose logical id leaves the template`,
    ]);
  });

  it("every other tool's role keeps its logical id, its every property, its policy and the ARN its output gives", () => {
    for (const tool of kept) {
      const id = roleOf(before.template, tool);
      expect(roleOf(after.template, tool)).toBe(id);
      // The role's name, and so its ARN, CloudFormation generates from the stack and the logical id: both unchanged, no name set.
      expect(after.template.Resources[id]).toEqual(before.template.Resources[id]);
      expect(after.template.Resources[id]!.Properties?.RoleName).toBeUndefined();
      const policies = (template: TemplateJson) =>
        Object.entries(template.Resources).filter(
          ([, resource]) =>
            resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties?.Roles) === JSON.stringify([{ Ref: id }]),
        );
      expect(policies(after.template).length).toBe(1);
      expect(policies(after.template)).toEqual(policies(before.template));
      // The output that gives the tool its role's ARN: the same name, the same value.
      const arnOutputs = (template: TemplateJson) =>
        Object.entries((template as Template).Outputs).filter(
          ([, output]) => JSON.stringify(output.Value) === JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }),
        );
      expect(arnOutputs(after.template).length).toBe(1);
      expect(arnOutputs(after.template)).toEqual(arnOutputs(before.template));
    }
  });
});
