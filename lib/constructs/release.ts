import { fileURLToPath } from 'node:url';
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, type CfnAlarm, ComparisonOperator, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { type ILambdaDeploymentConfig, LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type CfnFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
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

/**
 * How long the first share runs before more traffic moves (a canary's interval; one of a linear
 * configuration's nine steps): an alarm the deployment watches must be able to fire within it.
 */
export const bakeMinutes = (name: ReleaseConfigName): number =>
  name.startsWith('Linear') ? RELEASE_CONFIGS[name].minutesToFull / 9 : RELEASE_CONFIGS[name].minutesToFull;
export const RELEASE_CONFIG_NAMES = Object.keys(RELEASE_CONFIGS) as ReleaseConfigName[];

const HOOK_ENTRY = fileURLToPath(new URL('../release-hook/handler.ts', import.meta.url));

/** An alarm's evaluation window in seconds: its period (the metric's, or each math expression's) times its evaluation periods. */
export function alarmWindowSeconds(alarm: Alarm): number {
  const cfn = alarm.node.defaultChild as CfnAlarm;
  const metrics = Stack.of(alarm).resolve(cfn.metrics) as { period?: number; metricStat?: { period: number } }[] | undefined;
  const period = cfn.period ?? Math.max(...(metrics ?? []).map((metric) => metric.period ?? metric.metricStat?.period ?? 0));
  return period * (cfn.evaluationPeriods ?? 1);
}

/** The period of the new version's own alarms: Lambda publishes its metrics every minute. */
export const VERSION_ALARM_PERIOD = Duration.minutes(1);

export interface ReleaseProps {
  readonly config: ReleaseConfigName;
  /** Where the new version's alarms send ALARM and OK. */
  readonly alarmTopic?: ITopic;
  /** p99 duration (ms) of the new version above which its latency alarm fires. */
  readonly latencyP99ThresholdMs: number;
  /** The pre-traffic hooks' log retention and what happens to their logs when the stack goes away. */
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

/**
 * Gradual releases on CodeDeploy: one application per stage, one deployment group per function
 * alias, which shifts traffic by the stage's configuration and rolls back on its alarms, on a failed
 * deployment and on a stopped one. With `AllAtOnce` it creates nothing: CloudFormation moves the alias.
 */
export class Release extends Construct {
  readonly application: LambdaApplication | undefined;
  readonly groups: Record<string, LambdaDeploymentGroup> = {};
  /** Each group's pre-traffic hook, by the group's name. */
  readonly hooks: Record<string, NodejsFunction> = {};
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
   * Puts the function's live alias under the release: a pre-traffic hook that invokes the new version
   * before any traffic moves (`hookPath`: the API operation's path; none: the stream consumer's
   * check), its own alarms on the new version (errors; p99 duration unless `latencyAlarm` is false),
   * plus those of `alarms` (stage-wide ones that a bad version would trip) that can fire within the
   * bake time; any of them in ALARM stops the deployment and rolls it back.
   */
  add(
    name: string,
    fn: HandlerFunction,
    alarms: readonly Alarm[],
    options: { readonly latencyAlarm?: boolean; readonly hookPath?: string } = {},
  ): void {
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
        alarmDescription: `${name}: an invocation through the live alias failed (crash, timeout, out of memory) on the version the last deploy published. During a release that is the new version alone, and CodeDeploy rolls it back. Between releases it is the live version: this fires on a live crash, and stays in ALARM for about a minute after it, so a deploy started then stops at once.`,
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
              alarmDescription: `${name}: the version the last deploy published ran slower than the threshold at p99 in 2 of 3 minutes through the live alias. During a release that is the new version alone, and CodeDeploy rolls it back. Between releases it is the live version: this fires when the live version is slow, and a deploy started while it is in ALARM stops at once.`,
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
    // An alarm that cannot fire within the bake time would judge the release after full traffic has moved.
    const bakeSeconds = bakeMinutes(this.props.config) * 60;
    const watched = alarms.filter((alarm) => alarmWindowSeconds(alarm) <= bakeSeconds);
    const group = new LambdaDeploymentGroup(this, `${name}Group`, {
      application: this.application,
      alias,
      deploymentConfig: RELEASE_CONFIGS[this.props.config].deploymentConfig,
      role: this.role,
      alarms: [...own, ...watched],
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
    });
    const hook = this.preTrafficHook(name, fn, options.hookPath);
    group.addPreHook(hook);
    this.hooks[name] = hook;
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(hook.node.defaultChild as CfnFunction)}.Arn>:*]`,
      reason:
        "LambdaDeploymentGroup's grant to CodeDeploy of invoking the group's pre-traffic hook: the hook function and its versions (`:*`), one function of this stack, no other.",
    });
    this.groups[name] = group;
  }

  /**
   * The BeforeAllowTraffic hook of one deployment group (lib/release-hook): it may invoke the version
   * this deploy publishes and nothing else, and report its verdict (the group grants that).
   */
  private preTrafficHook(name: string, fn: HandlerFunction, hookPath: string | undefined): NodejsFunction {
    const logGroup = new LogGroup(this, `${name}HookLogs`, {
      retention: this.props.logRetention,
      removalPolicy: this.props.logRemovalPolicy,
    });
    const role = new Role(this, `${name}HookRole`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${name}: the pre-traffic hook's role (invoke the new version, report to CodeDeploy)`,
    });
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    const hook = new NodejsFunction(this, `${name}Hook`, {
      entry: HOOK_ENTRY,
      handler: 'handler',
      description: `${name}: invokes the new version before CodeDeploy moves traffic to it`,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      // The new version's cold start and one answer; CodeDeploy waits up to an hour for the report.
      timeout: Duration.seconds(60),
      role,
      logGroup,
      environment: {
        TARGET_VERSION_ARN: fn.version.functionArn,
        ...(hookPath !== undefined && { TARGET_PATH: hookPath }),
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        mainFields: ['module', 'main'],
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        externalModules: [],
      },
    });
    fn.version.grantInvoke(role);
    return hook;
  }
}
