import { RemovalPolicy, Stack, type StackProps, Tags, Validations } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, PermissionsBoundary, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { DEFAULT_PERMISSIONS_BOUNDARY } from './stage-config';

/** The one-time stack's name: one per account and region, whatever the number of stages. */
export const ACCOUNT_STACK_NAME = 'UserManagement-account';

/**
 * API Gateway's account-wide setting: the role it uses to write the stages' access and execution
 * logs to CloudWatch. The setting is one per account and region, so it lives here, deployed once,
 * never in a stage stack (two stages would otherwise overwrite each other's, and a stage could
 * not deploy where a landing zone already manages it). Both survive the stack's deletion: every
 * stage's logging relies on them.
 */
export interface ApiGatewayAccountStackProps extends StackProps {
  /** The managed policy the stack's role carries as its permissions boundary. @default DEFAULT_PERMISSIONS_BOUNDARY */
  readonly permissionsBoundaryName?: string;
}

export class ApiGatewayAccountStack extends Stack {
  readonly role: Role;
  readonly apiGatewayAccount: CfnAccount;

  constructor(scope: Construct, id: string, props: ApiGatewayAccountStackProps = {}) {
    super(scope, id, props);
    Tags.of(this).add('service', 'user-management');
    const boundary = props.permissionsBoundaryName ?? DEFAULT_PERMISSIONS_BOUNDARY;
    PermissionsBoundary.of(this).apply(ManagedPolicy.fromManagedPolicyName(this, 'PermissionsBoundary', boundary));

    this.role = new Role(this, 'CloudWatchRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway account role: writes the access and execution logs of every REST API stage in this region',
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);

    this.apiGatewayAccount = new CfnAccount(this, 'Account', { cloudWatchRoleArn: this.role.roleArn });
    this.apiGatewayAccount.applyRemovalPolicy(RemovalPolicy.RETAIN);

    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account-level role API Gateway uses to write access and execution logs; AWS documents this managed policy for exactly that role and maintains it.',
    });
  }
}
