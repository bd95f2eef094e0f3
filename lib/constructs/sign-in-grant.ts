import { Token } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import { SIGN_IN_READ_ATTRIBUTES, SIGN_IN_WRITE_ATTRIBUTES } from '#store/table-layout';

/**
 * The DynamoDB actions the sign-in module sends (store/sign-in-store.ts), per table and kind. On the users
 * table: reads (BatchGetItem of a profile, GetItem of the owner's policy copy) and writes of a profile's
 * hash fields (UpdateItem: a success's upgrade and changePassword; ConditionCheckItem: a success without
 * an upgrade), each limited to the attributes it names. On the sign-in table: its own state (BatchGetItem,
 * UpdateItem to count, DeleteItem to clear). TransactWriteItems is authorised item by item through these.
 */
export const SIGN_IN_USERS_READ_ACTIONS = ['dynamodb:BatchGetItem', 'dynamodb:GetItem'] as const;
export const SIGN_IN_USERS_WRITE_ACTIONS = ['dynamodb:ConditionCheckItem', 'dynamodb:UpdateItem'] as const;
export const SIGN_IN_STATE_ACTIONS = ['dynamodb:BatchGetItem', 'dynamodb:DeleteItem', 'dynamodb:Query', 'dynamodb:UpdateItem'] as const;

/** Every action the grant allows, on either table. */
export const SIGN_IN_ACTIONS = [
  ...new Set([...SIGN_IN_USERS_READ_ACTIONS, ...SIGN_IN_USERS_WRITE_ACTIONS, ...SIGN_IN_STATE_ACTIONS]),
].sort();

export interface SignInGrantProps {
  /** The users table, or its ARN (the stack output `UsersTableArn`, in a tool's own CDK app). */
  readonly usersTable: ITable | string;
  /** The sign-in table, or its ARN (the stack output `SignInTableArn`). */
  readonly signInTable: ITable | string;
  /**
   * Only this owner's users: every key the role touches must start with `<ownerId>#` (IAM's
   * `dynamodb:LeadingKeys`). A tool serving several owners takes the owner from its own routing and
   * gets one role per owner, or omits this and must then never take an owner's id from a user.
   * @default - every owner's users
   */
  readonly ownerId?: string;
  /**
   * The stage's descriptor parameter (the stack's `signInDescriptor`, or its ARN: the stack output
   * `SignInDescriptorParameterArn`): the role may read it (ssm:GetParameter), so the module's
   * descriptorFromSsm picks up a changed setting. @default - no read of the descriptor
   */
  readonly descriptorParameter?: IStringParameter | string;
}

/** IAM's condition that every partition key of a request matches one of `patterns`, and that there is one. */
const leadingKeys = (patterns: readonly string[]) => ({
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...patterns] },
  // ForAllValues holds for a request with no key at all: require one.
  Null: { 'dynamodb:LeadingKeys': 'false' },
});

/** The IAM conditions that limit a role to the keys of one owner's users. */
export const ownerConditions = (ownerId: string) => leadingKeys([`${ownerId}#*`]);

/**
 * Grants a tool's role what the sign-in module needs, and as little else as IAM can express (ADR 26):
 * - users table, reads: GetItem and BatchGetItem of SIGN_IN_READ_ATTRIBUTES only (a projection is required);
 * - users table, writes: UpdateItem and ConditionCheckItem of SIGN_IN_WRITE_ATTRIBUTES only (the hash fields;
 *   never `white_label`, `password_policy` or an expiry), returning nothing, and only on partition keys
 *   holding an `@` (a user's, `<ownerId>#<email>`: never the policy copy `<ownerId>#OWNER`); no PutItem or
 *   DeleteItem there at all;
 * - sign-in table: BatchGetItem, UpdateItem and DeleteItem of its state;
 * - nothing on the owners table or any index; with `ownerId`, only that owner's keys on both tables.
 */
export function grantSignIn(grantee: IGrantable, props: SignInGrantProps): Grant {
  const { ownerId } = props;
  if (ownerId !== undefined && !Token.isUnresolved(ownerId) && !/^[A-Za-z0-9-]+$/.test(ownerId)) {
    // `*` or `?` would widen the StringLike condition to other owners; an owner's id is a UUID.
    throw new Error(`grantSignIn: ownerId must be an owner's id (letters, digits and dashes), got "${ownerId}"`);
  }
  const arn = (table: ITable | string) => (typeof table === 'string' ? table : table.tableArn);
  const owner = ownerId ?? '*';
  const reads = Grant.addToPrincipal({
    grantee,
    actions: [...SIGN_IN_USERS_READ_ACTIONS],
    resourceArns: [arn(props.usersTable)],
    conditions: {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...SIGN_IN_READ_ATTRIBUTES] },
      // AWS's own pattern: a read must name its attributes (a projection), so it cannot return all of them.
      StringEqualsIfExists: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
      ...(ownerId !== undefined && ownerConditions(ownerId)),
    },
  });
  const writes = Grant.addToPrincipal({
    grantee,
    actions: [...SIGN_IN_USERS_WRITE_ACTIONS],
    resourceArns: [arn(props.usersTable)],
    conditions: {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...SIGN_IN_WRITE_ATTRIBUTES] },
      // An UpdateItem always has ReturnValues (NONE unless asked): ALL_OLD or ALL_NEW would read other attributes.
      StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
      // A user's profile only: its partition key holds the e-mail's `@`; the owner's `<ownerId>#OWNER` has none.
      ...leadingKeys([`${owner}#*@*`]),
    },
  });
  const state = Grant.addToPrincipal({
    grantee,
    actions: [...SIGN_IN_STATE_ACTIONS],
    resourceArns: [arn(props.signInTable)],
    ...(ownerId !== undefined && { conditions: ownerConditions(ownerId) }),
  });
  const all = reads.combine(writes).combine(state);
  const parameter = props.descriptorParameter;
  if (parameter === undefined) return all;
  return all.combine(
    Grant.addToPrincipal({
      grantee,
      actions: ['ssm:GetParameter'],
      resourceArns: [typeof parameter === 'string' ? parameter : parameter.parameterArn],
    }),
  );
}
