/**
 * grantSignIn (lib/constructs/sign-in-grant.ts) in a synthesized template, as a tool's own CDK app
 * would use it: exactly the actions the sign-in module sends (sign-in.test.ts holds the module to the
 * same list), on the users table and nothing else, and with `ownerId` a condition that lets the role
 * touch that owner's keys and no other owner's. The condition is evaluated here as IAM evaluates
 * ForAllValues:StringLike over dynamodb:LeadingKeys.
 */

import { describe, expect, it } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { userPk } from '#store/table-layout';
import { grantSignIn, SIGN_IN_ACTIONS } from '../../lib/constructs/sign-in-grant';
import { TEST_REGION } from './synth';

const OWNER_A = '0b7c8d2e-3f4a-4b5c-9d6e-7f8091a2b3c4';
const OWNER_B = '0b7c8d2e-3f4a-4b5c-9d6e-7f8091a2b3c5';
const USERS_TABLE_ARN = 'arn:aws:dynamodb:eu-west-1:123456789012:table/UserManagement-prod-UsersTable-ABC';

type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };

/** The tool's stack: a role granted the sign-in, by ARN (as from the stack output UsersTableArn) or by table. */
function toolStack(grant: (role: Role, stack: Stack) => void): Statement[] {
  const stack = new Stack(new App(), 'Tool', { env: { region: TEST_REGION, account: '123456789012' } });
  const role = new Role(stack, 'ToolRole', { assumedBy: new AccountRootPrincipal() });
  grant(role, stack);
  const policies = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'));
  expect(policies).toHaveLength(1);
  return (policies[0]!.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument.Statement;
}

/** IAM's reading of the condition for a request whose keys lead with these partition keys. */
function allows(statement: Statement, leadingKeys: readonly string[]): boolean {
  const condition = statement.Condition ?? {};
  for (const [operator, entries] of Object.entries(condition)) {
    for (const [key, raw] of Object.entries(entries)) {
      const patterns = [raw].flat() as string[];
      if (key !== 'dynamodb:LeadingKeys') throw new Error(`unexpected condition key ${key}`);
      if (operator === 'Null' && (patterns[0] === 'false') !== leadingKeys.length > 0) return false;
      if (operator === 'ForAllValues:StringLike') {
        const like = (value: string, pattern: string) =>
          new RegExp(
            `^${pattern
              .replace(/[.+^${}()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '.*')
              .replace(/\?/g, '.')}$`,
          ).test(value);
        if (!leadingKeys.every((value) => patterns.some((pattern) => like(value, pattern)))) return false;
      } else if (operator !== 'Null') throw new Error(`unexpected operator ${operator}`);
    }
  }
  return true;
}

describe('grantSignIn', () => {
  it('exactly the actions the module sends, on the users table only (not its indexes)', () => {
    const [statement, ...others] = toolStack((role) => grantSignIn(role, { usersTable: USERS_TABLE_ARN }));
    expect(others).toEqual([]);
    expect(statement).toEqual({ Effect: 'Allow', Action: [...SIGN_IN_ACTIONS].sort(), Resource: USERS_TABLE_ARN });
    expect(SIGN_IN_ACTIONS).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
    ]);
  });

  it('takes a table construct too', () => {
    const [statement] = toolStack((role, stack) =>
      grantSignIn(role, { usersTable: new Table(stack, 'Users', { partitionKey: { name: 'pk', type: AttributeType.STRING } }) }),
    );
    expect(statement!.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Users/), 'Arn'] });
  });

  it("for owner A: A's users' keys only, never owner B's, and never a request without a key", () => {
    const [statement] = toolStack((role) => grantSignIn(role, { usersTable: USERS_TABLE_ARN, ownerId: OWNER_A }));
    expect(statement!.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${OWNER_A}#*`] },
      Null: { 'dynamodb:LeadingKeys': 'false' },
    });
    const a = userPk(OWNER_A, 'jane@example.com');
    const b = userPk(OWNER_B, 'jane@example.com');
    // The sign-in's own keys: a user's profile and state, the policy's copy beside the owner's users.
    expect(allows(statement!, [a])).toBe(true);
    expect(allows(statement!, [`${OWNER_A}#OWNER`])).toBe(true);
    expect(allows(statement!, [b])).toBe(false);
    expect(allows(statement!, [`${OWNER_B}#OWNER`])).toBe(false);
    expect(allows(statement!, [a, b])).toBe(false);
    // An id that merely starts like A's is another owner.
    expect(allows(statement!, [`${OWNER_A}0#jane@example.com`])).toBe(false);
    expect(allows(statement!, [])).toBe(false);
  });

  it('refuses an owner id that would widen the condition', () => {
    expect(() => toolStack((role) => grantSignIn(role, { usersTable: USERS_TABLE_ARN, ownerId: '*' }))).toThrow(
      /ownerId must be an owner's id/,
    );
    expect(() => toolStack((role) => grantSignIn(role, { usersTable: USERS_TABLE_ARN, ownerId: `${OWNER_A}?` }))).toThrow(
      /ownerId must be an owner's id/,
    );
  });
});
