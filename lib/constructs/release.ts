import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IAlarm, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { type ILambdaDeploymentConfig, LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { HandlerFunction } from './handler-function';
import { notifying } from './monitoring';

/**
 * How a release moves traffic to the new version of each function: one of CodeDeploy's predefined
 * Lambda configurations (a canary: 10 % first, the rest after the interval; linear: 10 % more every
 * interval), or `AllAtOnce`, where CloudFormation points the alias at the new version itself and no
 * CodeDeploy deployment runs (dev).
 */
export const RELEASE_CONFIGS = {
  AllAtOnce: { deploymentConfig: undefined, firstShare: 1, minutesToFull: 0 },
  Canary10Percent5Minutes: { deploymentConfig: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES, firstShare: 0.1, minutesToFull: 5 },
  Canary10Percent10Minutes: { deploymentConfig: LambdaDeploymentConfig.CANARY_10PERCENT_10MINUTES, firstShare: 0.1, minutesToFull: 10 },
  Canary10Percent15Minutes: { deploymentConfig: LambdaDeploymentConfig.CANARY_10PERCENT_15MINUTES, firstShare: 0.1, minutesToFull: 15 },
  Canary10Percent30Minutes: { deploymentConfig: LambdaDeploymentConfig.CANARY_10PERCENT_30MINUTES, firstShare: 0.1, minutesToFull: 30 },
  Linear10PercentEvery1Minute: {
    deploymentConfig: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE,
    firstShare: 0.1,
    minutesToFull: 9,
  },
  Linear10PercentEvery2Minutes: {
    deploymentConfig: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_2MINUTES,
    firstShare: 0.1,
    minutesToFull: 18,
  },
  Linear10PercentEvery3Minutes: {
    deploymentConfig: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_3MINUTES,
    firstShare: 0.1,
    minutesToFull: 27,
  },
  Linear10PercentEvery10Minutes: {
    deploymentConfig: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_10MINUTES,
    firstShare: 0.1,
    minutesToFull: 90,
  },
} as const satisfies Record<string, { deploymentConfig: ILambdaDeploymentConfig | undefined; firstShare: number; minutesToFull: number }>;
export type ReleaseConfigName = keyof typeof RELEASE_CONFIGS;
export const RELEASE_CONFIG_NAMES = Object.keys(RELEASE_CONFIGS) as ReleaseConfigName[];

/** The period of the new version's own alarms: Lambda publishes its metrics every minute. */
export const VERSION_ALARM_PERIOD = Duration.minutes(1);

export interface ReleaseProps {
  readonly config: ReleaseConfigName;
  /** Where the new version's alarms send ALARM and OK. */
  readonly alarmTopic?: ITopic;
  /** p99 duration (ms) of the new version above which its latency alarm fires. */
  readonly latencyP99ThresholdMs: number;
}

/**
 * Gradual releases on CodeDeploy: one application per stage, one deployment group per function
 * alias, which shifts traffic by the stage's configuration and rolls back on its alarms, on a failed
 * deployment and on a stopped one. With `AllAtOnce` it creates nothing: CloudFormation moves the alias.
 */
export class Release extends Construct {
  readonly application: LambdaApplication | undefined;
  readonly groups: Record<string, LambdaDeploymentGroup> = {};
  /** Each function's alarms on its new version alone (errors, p99 duration), by the deployment group's name. */
  readonly versionAlarms: Alarm[] = [];
  private readonly role: Role | undefined;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ReleaseProps,
  ) {
    super(scope, id);
    if (!RELEASE_CONFIGS[props.config].deploymentConfig) return;
    this.application = new LambdaApplication(this, 'Application');
    // One service role for every group of the stage; CDK attaches AWS's policy for Lambda deployments to it.
    this.role = new Role(this, 'ServiceRole', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      description: 'CodeDeploy: shifts the live aliases of this stage and reads the alarms that stop a release',
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "AWS's own policy for CodeDeploy's Lambda deployments, which LambdaDeploymentGroup always attaches to the group's role: lambda:GetAlias, UpdateAlias and GetProvisionedConcurrencyConfig and cloudwatch:DescribeAlarms on any resource of the account, s3:GetObject of CodeDeploy revisions, and lambda:InvokeFunction of functions named CodeDeployHook_* only (this stack has none). Only CodeDeploy can assume the role; a hand-written narrower one could not be exercised here before a real deploy, and a role CodeDeploy cannot use fails every release (ADR 23).",
    });
  }

  /** Whether releases shift gradually under CodeDeploy (false: all at once). */
  get gradual(): boolean {
    return this.application !== undefined;
  }

  /**
   * Puts the function's live alias under the release: its own alarms on the new version (errors; p99
   * duration unless `latencyAlarm` is false), plus `alarms` (stage-wide ones that a bad version would
   * trip), any of which in ALARM stops the deployment and rolls it back.
   */
  add(name: string, fn: HandlerFunction, alarms: readonly IAlarm[], options: { readonly latencyAlarm?: boolean } = {}): void {
    if (!this.application || !this.role) return;
    const { alias, version } = fn;
    const prefix = Stack.of(this).stackName;
    // Lambda's metrics of invocations through the alias, for the version that ran them: during a shift
    // both versions run behind the alias, and these see only the new one.
    const metric = (metricName: string, statistic: string) =>
      new Metric({
        namespace: 'AWS/Lambda',
        metricName,
        dimensionsMap: {
          FunctionName: fn.function.functionName,
          Resource: `${fn.function.functionName}:${alias.aliasName}`,
          ExecutedVersion: version.version,
        },
        statistic,
        period: VERSION_ALARM_PERIOD,
      });
    const errors = notifying(
      new Alarm(this, `${name}VersionErrors`, {
        alarmName: `${prefix}-${name}-new-version-errors`,
        alarmDescription: `${name}: the version being released failed an invocation (crash, timeout, out of memory): CodeDeploy rolls the release back.`,
        metric: metric('Errors', Stats.SUM),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      this.props.alarmTopic,
    );
    const latency =
      options.latencyAlarm === false
        ? undefined
        : notifying(
            new Alarm(this, `${name}VersionLatency`, {
              alarmName: `${prefix}-${name}-new-version-p99-latency`,
              alarmDescription: `${name}: the version being released ran slower than the threshold at p99 in 2 of 3 minutes: CodeDeploy rolls the release back.`,
              metric: metric('Duration', Stats.p(99)),
              threshold: this.props.latencyP99ThresholdMs,
              comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
              evaluationPeriods: 3,
              datapointsToAlarm: 2,
              treatMissingData: TreatMissingData.NOT_BREACHING,
            }),
            this.props.alarmTopic,
          );
    const own = latency ? [errors, latency] : [errors];
    this.versionAlarms.push(...own);
    // The alarms follow the new version (ExecutedVersion) before the alias update starts the deployment.
    alias.node.addDependency(...own);
    this.groups[name] = new LambdaDeploymentGroup(this, `${name}Group`, {
      application: this.application,
      alias,
      deploymentConfig: RELEASE_CONFIGS[this.props.config].deploymentConfig,
      role: this.role,
      alarms: [...own, ...alarms],
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
    });
  }
}
