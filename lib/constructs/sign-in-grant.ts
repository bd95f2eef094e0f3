import { Token } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';

/**
 * Exactly the DynamoDB actions the sign-in module sends (sign-in-store.ts): BatchGetItem (the profile
 * and the attempt state), UpdateItem (counting; a success's upgrade and changePassword inside a
 * transaction), ConditionCheckItem and DeleteItem (a success's transaction), GetItem (the owner's
 * policy, for changePassword). TransactWriteItems is authorised item by item through these.
 */
export const SIGN_IN_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DeleteItem',
  'dynamodb:GetItem',
  'dynamodb:UpdateItem',
] as const;

export interface SignInGrantProps {
  /** The users table, or its ARN (the stack output `UsersTableArn`, in a tool's own CDK app). */
  readonly usersTable: ITable | string;
  /**
   * Only this owner's users: every key the role touches must start with `<ownerId>#` (IAM's
   * `dynamodb:LeadingKeys`). A tool serving several owners takes the owner from its own routing and
   * gets one role per owner, or omits this and must then never take an owner's id from a user.
   * @default - every owner's users
   */
  readonly ownerId?: string;
}

/** The IAM conditions that limit a role to the keys of one owner's users. */
export const ownerConditions = (ownerId: string) => ({
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${ownerId}#*`] },
  // ForAllValues holds for a request with no key at all: require one.
  Null: { 'dynamodb:LeadingKeys': 'false' },
});

/**
 * Grants a tool's role what the sign-in module needs on the users table, and nothing else: the
 * table itself (not its indexes), SIGN_IN_ACTIONS, and with `ownerId` only that owner's items.
 */
export function grantSignIn(grantee: IGrantable, props: SignInGrantProps): Grant {
  const { ownerId } = props;
  if (ownerId !== undefined && !Token.isUnresolved(ownerId) && !/^[A-Za-z0-9-]+$/.test(ownerId)) {
    // `*` or `?` would widen the StringLike condition to other owners; an owner's id is a UUID.
    throw new Error(`grantSignIn: ownerId must be an owner's id (letters, digits and dashes), got "${ownerId}"`);
  }
  return Grant.addToPrincipal({
    grantee,
    actions: [...SIGN_IN_ACTIONS],
    resourceArns: [typeof props.usersTable === 'string' ? props.usersTable : props.usersTable.tableArn],
    ...(ownerId !== undefined && { conditions: ownerConditions(ownerId) }),
  });
}
