/**
 * The CloudFormation execution policy for `cdk bootstrap --cloudformation-execution-policies`,
 * derived from the resource types the synthesized templates use: one `<service>:*` statement for each
 * AWS service a template creates a resource of, instead of bootstrap's default AdministratorAccess.
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

export interface PolicyDocument {
  readonly Version: '2012-10-17';
  readonly Statement: readonly {
    readonly Sid: string;
    readonly Effect: 'Allow';
    readonly Action: readonly string[];
    readonly Resource: string;
  }[];
}

/** The execution policy for these resource types and the upcoming ones. */
export function executionPolicy(types: readonly string[]): PolicyDocument {
  const services = [...new Set([...types, ...UPCOMING_TYPES].map(servicePrefix).filter((s): s is string => s !== undefined))].sort();
  return {
    Version: '2012-10-17',
    Statement: [
      { Sid: 'ResourcesOfTheTemplates', Effect: 'Allow', Action: services.map((service) => `${service}:*`), Resource: '*' },
      // Lambda reads each function's code from the bootstrap's asset bucket with the caller's (this role's) rights.
      { Sid: 'AssetsOfTheDeploy', Effect: 'Allow', Action: ['s3:GetObject'], Resource: 'arn:aws:s3:::cdk-hnb659fds-assets-*/*' },
      // CloudFormation reads the bootstrap version's SSM parameter when it evaluates the templates' rule.
      { Sid: 'BootstrapVersionParameter', Effect: 'Allow', Action: ['ssm:GetParameters'], Resource: '*' },
    ],
  };
}
