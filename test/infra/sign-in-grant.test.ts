/**
 * grantSignIn (lib/constructs/sign-in-grant.ts) in a synthesized template, as a tool's own CDK app uses it,
 * evaluated by an IAM policy evaluator (test/support/iam-policy.ts): every request an attacker holding the
 * role would send to harm the owner is denied. That each request the module itself sends is allowed is
 * shown on the requests it really sends (test/integration/sign-in.test.ts, "least privilege").
 */

import { describe, expect, it } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { PASSWORD_POLICY_ATTRIBUTE } from '#store/owner-policy-item';
import { ownerDeviceKeyKey, ownerPolicyKey, SIGN_IN_TABLE, signInStateKey, userKey } from '#store/table-layout';
import { grantSignIn, SIGN_IN_ACTIONS } from '../../lib/constructs/sign-in-grant';
import { decide, iamRequests, synthesizedGrant, tableArn } from '../support/iam-policy';

const OWNER_A = '0b7c8d2e-3f4a-4b5c-9d6e-7f8091a2b3c4';
const OWNER_B = '0b7c8d2e-3f4a-4b5c-9d6e-7f8091a2b3c5';
const [USERS, SIGN_IN, OWNERS] = ['UserManagement-prod-Users', 'UserManagement-prod-SignIn', 'UserManagement-prod-Owners'];
const GRANTS = {
  'for owner A': synthesizedGrant({ usersTable: tableArn(USERS), signInTable: tableArn(SIGN_IN), ownerId: OWNER_A }),
  'for every owner': synthesizedGrant({ usersTable: tableArn(USERS), signInTable: tableArn(SIGN_IN) }),
};
/** Owner A's own account (a profile carrying white_label and the policy) and one of A's users. */
const [ownerAccount, user] = [userKey(OWNER_A, 'owner@acme.example'), userKey(OWNER_A, 'jane@example.com')];

/** An UpdateItem of the users table, as the role could send it. */
const update = (Key: Record<string, string>, UpdateExpression: string, extra: Record<string, unknown> = {}) => ({
  TableName: USERS,
  Key,
  UpdateExpression,
  ...extra,
});

/** Requests that would harm the owner: each must be denied, by every grant. */
const FORBIDDEN: Record<string, [command: string, input: Record<string, unknown>]> = {
  "REMOVE white_label on the owner's account (every API key then answers 403)": [
    'UpdateCommand',
    update(ownerAccount, 'REMOVE white_label'),
  ],
  'SET white_label = true on a user (deleteUser then refuses it)': [
    'UpdateCommand',
    update(user, 'SET white_label = :yes', { ExpressionAttributeValues: { ':yes': true } }),
  ],
  "the owner's password policy written on its account": [
    'UpdateCommand',
    update(ownerAccount, `SET ${PASSWORD_POLICY_ATTRIBUTE} = :p`, { ExpressionAttributeValues: { ':p': {} } }),
  ],
  "the owner's password policy written on its copy, <ownerId>#OWNER": [
    'UpdateCommand',
    update(ownerPolicyKey(OWNER_A), `SET ${PASSWORD_POLICY_ATTRIBUTE} = :p`, { ExpressionAttributeValues: { ':p': {} } }),
  ],
  'a hash field written on <ownerId>#OWNER': [
    'UpdateCommand',
    update(ownerPolicyKey(OWNER_A), 'SET password_hash = :h', { ExpressionAttributeValues: { ':h': 'x' } }),
  ],
  'an expiry set on a profile (TTL would delete it)': [
    'UpdateCommand',
    update(user, 'SET expires_at = :t', { ExpressionAttributeValues: { ':t': 1 } }),
  ],
  'a hash written with the whole old item returned (ALL_OLD reads every attribute)': [
    'UpdateCommand',
    update(user, 'SET password_hash = :h', { ExpressionAttributeValues: { ':h': 'x' }, ReturnValues: 'ALL_OLD' }),
  ],
  'PutItem of a profile with any hash': [
    'PutCommand',
    { TableName: USERS, Item: { ...user, password_hash: 'x', should_reset_password: false } },
  ],
  'DeleteItem of a profile': ['DeleteCommand', { TableName: USERS, Key: user }],
  "DeleteItem of the owner's policy copy": ['DeleteCommand', { TableName: USERS, Key: ownerPolicyKey(OWNER_A) }],
  'BatchWriteItem on the users table': ['BatchWriteCommand', { RequestItems: { [USERS]: [] } }],
  'GetItem of a whole profile (no projection)': ['GetCommand', { TableName: USERS, Key: ownerAccount }],
  'GetItem of white_label': ['GetCommand', { TableName: USERS, Key: ownerAccount, ProjectionExpression: 'white_label' }],
  'Query of the users table': [
    'QueryCommand',
    { TableName: USERS, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': user.pk } },
  ],
  'Scan of the users table': ['ScanCommand', { TableName: USERS }],
  'GetItem on the owners table': ['GetCommand', { TableName: OWNERS, Key: { pk: 'OWNER#owner@acme.example' } }],
  'UpdateItem on the owners table': [
    'UpdateCommand',
    { TableName: OWNERS, Key: { pk: 'OWNER#owner@acme.example' }, UpdateExpression: 'SET password_hash = :h' },
  ],
  'PutItem on the owners table': ['PutCommand', { TableName: OWNERS, Item: { pk: 'KEY#digest', owner_email: 'owner@acme.example' } }],
};

/** For owner A's grant: the same requests at owner B's items. */
const ANOTHER_OWNER: Record<string, [command: string, input: Record<string, unknown>]> = {
  "a hash written on owner B's user": [
    'UpdateCommand',
    update(userKey(OWNER_B, 'jane@example.com'), 'SET password_hash = :h', { ExpressionAttributeValues: { ':h': 'x' } }),
  ],
  "owner B's profile read": [
    'BatchGetCommand',
    { RequestItems: { [USERS]: { Keys: [userKey(OWNER_B, 'jane@example.com')], ProjectionExpression: 'password_hash' } } },
  ],
  "owner B's policy copy read": [
    'GetCommand',
    { TableName: USERS, Key: ownerPolicyKey(OWNER_B), ProjectionExpression: PASSWORD_POLICY_ATTRIBUTE },
  ],
  "owner B's sign-in state counted": [
    'UpdateCommand',
    { TableName: SIGN_IN, Key: signInStateKey(OWNER_B, 'jane@example.com'), UpdateExpression: 'SET failures = :f' },
  ],
  "owner B's sign-in state deleted": ['DeleteCommand', { TableName: SIGN_IN, Key: signInStateKey(OWNER_B, 'jane@example.com') }],
  "owner B's user's trusted devices listed": [
    'QueryCommand',
    {
      TableName: SIGN_IN,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': signInStateKey(OWNER_B, 'jane@example.com').pk },
    },
  ],
  "owner B's device key read (it seals B's cookies)": [
    'UpdateCommand',
    {
      TableName: SIGN_IN,
      Key: ownerDeviceKeyKey(OWNER_B),
      UpdateExpression: 'SET device_key = if_not_exists(device_key, :k)',
      ReturnValues: 'ALL_NEW',
    },
  ],
  "A's and B's profiles in one read": [
    'BatchGetCommand',
    {
      RequestItems: {
        [USERS]: { Keys: [user, userKey(OWNER_B, 'jane@example.com')], ProjectionExpression: 'password_hash' },
      },
    },
  ],
};

/** The decisions on each IAM request a DynamoDB command makes. */
const decisions = async (grant: (typeof GRANTS)[keyof typeof GRANTS], [command, input]: [string, Record<string, unknown>]) => {
  const requests =
    command === 'BatchWriteCommand' ? [{ action: 'dynamodb:BatchWriteItem', table: USERS, context: {} }] : iamRequests(command, input);
  return Promise.all(requests.map((request) => decide(grant, request)));
};

describe('grantSignIn, evaluated as IAM evaluates it', () => {
  for (const [name, grant] of Object.entries(GRANTS)) {
    describe(name, () => {
      it.each(Object.entries(FORBIDDEN))('denies: %s', async (_, request) => {
        expect(await decisions(grant, request)).not.toContain('Allowed');
      });
      // A positive control for the denials above: a request the module sends, on the same item.
      it("allows the module's own write of a user's hash, conditional on the verified one", async () => {
        const request: [string, Record<string, unknown>] = [
          'UpdateCommand',
          update(user, 'SET password_hash = :new, #rehashed = :at', {
            ConditionExpression: 'password_hash = :verified',
            ExpressionAttributeNames: { '#rehashed': 'password_rehashed_at' },
          }),
        ];
        expect(await decisions(grant, request)).toEqual(['Allowed']);
      });
    });
  }

  describe('for owner A', () => {
    it.each(Object.entries(ANOTHER_OWNER))("denies another owner's items: %s", async (_, request) => {
      expect(await decisions(GRANTS['for owner A'], request)).not.toContain('Allowed');
    });
  });
});

describe('grantSignIn, the template', () => {
  it('three statements: reads and hash writes on the users table, the state on the sign-in table; nothing on any index', () => {
    const statements = GRANTS['for every owner'].Statement;
    expect(statements.map((s) => [s.Action, s.Resource])).toEqual([
      [['dynamodb:BatchGetItem', 'dynamodb:GetItem'], tableArn(USERS)],
      [['dynamodb:ConditionCheckItem', 'dynamodb:UpdateItem'], tableArn(USERS)],
      [['dynamodb:BatchGetItem', 'dynamodb:DeleteItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], tableArn(SIGN_IN)],
    ]);
    expect(new Set(statements.flatMap((s) => s.Action as string[]))).toEqual(new Set(SIGN_IN_ACTIONS));
    // The sign-in table has the TTL, and the users table's grant can never write an expiry.
    expect(SIGN_IN_TABLE.timeToLiveAttribute).toBeDefined();
  });

  it('takes table constructs too', () => {
    const stack = new Stack(new App(), 'Tool', { env: { region: 'eu-west-1', account: '123456789012' } });
    const table = (id: string) => new Table(stack, id, { partitionKey: { name: 'pk', type: AttributeType.STRING } });
    grantSignIn(new Role(stack, 'ToolRole', { assumedBy: new AccountRootPrincipal() }), {
      usersTable: table('Users'),
      signInTable: table('SignIn'),
    });
    const [policy] = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'));
    const resources = (policy!.Properties.PolicyDocument.Statement as { Resource: unknown }[]).map((s) => s.Resource);
    expect(resources).toEqual([
      { 'Fn::GetAtt': [expect.stringMatching(/^Users/), 'Arn'] },
      { 'Fn::GetAtt': [expect.stringMatching(/^Users/), 'Arn'] },
      { 'Fn::GetAtt': [expect.stringMatching(/^SignIn/), 'Arn'] },
    ]);
  });

  it('refuses an owner id that would widen the condition', () => {
    for (const ownerId of ['*', `${OWNER_A}?`]) {
      expect(() => synthesizedGrant({ usersTable: tableArn(USERS), signInTable: tableArn(SIGN_IN), ownerId })).toThrow(
        /ownerId must be an owner's id/,
      );
    }
  });
});
