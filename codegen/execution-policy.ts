/**
 * The CloudFormation execution policy for `cdk bootstrap --cloudformation-execution-policies`,
 * derived from the resource types the synthesized templates use: one `<service>:*` statement for each
 * AWS service a template creates a resource of, instead of bootstrap's default AdministratorAccess;
 * for IAM only the stacks' roles, each created and changed with the permissions boundary on it.
 * Pure: scripts/execution-policy.ts reads cdk.out and writes the document; test/infra/deploy-doc.test.ts
 * checks it against the app's templates.
 *
 * Resource types the stack is about to gain are named in {@link UPCOMING_TYPES} (CodeDeploy's, for
 * aliases and deployment groups), so the policy a bootstrap installs today still deploys them.
 */

/** Types the app does not synthesize yet but will: bootstrap once, for them too. */
export const UPCOMING_TYPES = [
  'AWS::CodeDeploy::Application',
  'AWS::CodeDeploy::DeploymentConfig',
  'AWS::CodeDeploy::DeploymentGroup',
  'AWS::Lambda::Alias',
  'AWS::Lambda::Version',
] as const;

/** The IAM service prefix of a resource type (`AWS::DynamoDB::Table` → `dynamodb`); undefined for what CloudFormation does itself. */
export function servicePrefix(type: string): string | undefined {
  const [vendor, service] = type.split('::');
  if (vendor !== 'AWS' || !service) return undefined; // Custom::*: run by a provider function the template creates.
  if (service === 'CDK' || service === 'CloudFormation') return undefined; // AWS::CDK::Metadata; CloudFormation's own.
  return service.toLowerCase();
}

/** Every resource type of the templates (each a parsed template). */
export function resourceTypes(templates: readonly { Resources?: Record<string, { Type: string }> }[]): string[] {
  return [...new Set(templates.flatMap((t) => Object.values(t.Resources ?? {}).map((r) => r.Type)))].sort();
}

export interface PolicyStatement {
  readonly Sid: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Action: readonly string[];
  readonly Resource: string | readonly string[];
  readonly Condition?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface PolicyDocument {
  readonly Version: '2012-10-17';
  readonly Statement: readonly PolicyStatement[];
}

/**
 * The names CloudFormation gives the roles of the app's stacks: `<stack>-<logical id>-<suffix>`, and
 * every stack is `UserManagement-<stage>` or `UserManagement-account` (lib/app.ts). PassRole and the
 * role actions stop there.
 */
export const STACK_ROLES = 'arn:aws:iam::*:role/UserManagement-*';

/** The execution policy's own name (docs/deploy.md creates it): the deploy may not rewrite it either. */
export const EXECUTION_POLICY_NAME = 'UserManagementCfnExecution';

/** What CloudFormation does to a stack's role that changes what the role may do: each only with the boundary on the role. */
export const BOUNDED_ROLE_ACTIONS = [
  'iam:AttachRolePolicy',
  'iam:CreateRole',
  'iam:DeleteRolePolicy',
  'iam:DetachRolePolicy',
  'iam:PutRolePermissionsBoundary',
  'iam:PutRolePolicy',
] as const;

/** The rest of a role's life in a stack: read it, tag it, describe it, delete it. */
export const ROLE_UPKEEP_ACTIONS = [
  'iam:DeleteRole',
  'iam:GetRole',
  'iam:GetRolePolicy',
  'iam:ListAttachedRolePolicies',
  'iam:ListRolePolicies',
  'iam:ListRoleTags',
  'iam:TagRole',
  'iam:UntagRole',
  'iam:UpdateAssumeRolePolicy',
  'iam:UpdateRole',
  'iam:UpdateRoleDescription',
] as const;

/** What would undo the boundary: take it off a role, or rewrite or delete the policy itself. */
export const BOUNDARY_REMOVING_ACTIONS = ['iam:DeleteRolePermissionsBoundary', 'iam:DeleteUserPermissionsBoundary'] as const;
export const POLICY_REWRITING_ACTIONS = [
  'iam:CreatePolicyVersion',
  'iam:DeletePolicy',
  'iam:DeletePolicyVersion',
  'iam:SetDefaultPolicyVersion',
] as const;

/**
 * The execution policy for these resource types and the upcoming ones, with `permissionsBoundary` the
 * policy every role of the stacks carries (lib/stage-config.ts). Every service the templates use gets
 * `<service>:*`, except IAM: CloudFormation creates and changes the stacks' roles only with the boundary
 * on them, passes only the stacks' roles, and may never take a boundary off or rewrite the boundary policy
 * (or this one). So no role a deploy creates holds more than the boundary allows.
 */
export function executionPolicy(types: readonly string[], permissionsBoundary: string): PolicyDocument {
  const services = [...new Set([...types, ...UPCOMING_TYPES].map(servicePrefix).filter((s): s is string => s !== undefined))].sort();
  const boundaryArn = `arn:aws:iam::*:policy/${permissionsBoundary}`;
  // The boundary's ARN names the deploying account; `*` there matches it (a role's boundary is a policy of its own account or AWS's).
  const withTheBoundary = { StringLike: { 'iam:PermissionsBoundary': boundaryArn } };
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'ResourcesOfTheTemplates',
        Effect: 'Allow',
        Action: services.filter((service) => service !== 'iam').map((service) => `${service}:*`),
        Resource: '*',
      },
      ...(services.includes('iam')
        ? ([
            {
              Sid: 'StackRolesOnlyWithTheBoundary',
              Effect: 'Allow',
              Action: [...BOUNDED_ROLE_ACTIONS],
              Resource: STACK_ROLES,
              Condition: withTheBoundary,
            },
            { Sid: 'StackRolesUpkeep', Effect: 'Allow', Action: [...ROLE_UPKEEP_ACTIONS], Resource: STACK_ROLES },
            // Lambda, CodeDeploy and API Gateway are handed the stacks' own roles, never another.
            { Sid: 'PassOnlyStackRoles', Effect: 'Allow', Action: ['iam:PassRole'], Resource: STACK_ROLES },
          ] as const)
        : []),
      // Explicit denies hold even when another policy on the execution role allows more.
      {
        Sid: 'NoRoleWithoutTheBoundary',
        Effect: 'Deny',
        Action: ['iam:CreateRole', 'iam:PutRolePermissionsBoundary'],
        Resource: '*',
        Condition: { StringNotLike: { 'iam:PermissionsBoundary': boundaryArn } },
      },
      { Sid: 'NeverRemoveTheBoundary', Effect: 'Deny', Action: [...BOUNDARY_REMOVING_ACTIONS], Resource: '*' },
      {
        Sid: 'NeverRewriteTheBoundaryOrThisPolicy',
        Effect: 'Deny',
        Action: [...POLICY_REWRITING_ACTIONS],
        Resource: [boundaryArn, `arn:aws:iam::*:policy/${EXECUTION_POLICY_NAME}`],
      },
      // Lambda reads each function's code from the bootstrap's asset bucket with the caller's (this role's) rights.
      { Sid: 'AssetsOfTheDeploy', Effect: 'Allow', Action: ['s3:GetObject'], Resource: 'arn:aws:s3:::cdk-hnb659fds-assets-*/*' },
      // CloudFormation reads the bootstrap version's SSM parameter when it evaluates the templates' rule.
      { Sid: 'BootstrapVersionParameter', Effect: 'Allow', Action: ['ssm:GetParameters'], Resource: '*' },
    ],
  };
}
