import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Annotations, Aws, CfnOutput, CfnRule, Duration, Fn, Stack, type StackProps, Tags, Validations } from 'aws-cdk-lib';
import { AccountPrincipal, ArnPrincipal, ManagedPolicy, PermissionsBoundary, Role } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { ParameterTier, StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { CATALOGUE, OPERATIONS, type OperationName, operationPath } from '#contract/operations';
import { formatArgon2Setting } from '#platform/config';
import { metricsNamespace } from '#platform/metrics';
import { PWNED_PASSWORDS_API } from '#platform/pwned-passwords';
import { KEY_LAST_USED_ATTRIBUTE, OWNERS_TABLE } from '#store/table-layout';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../codegen/openapi';
import { describeStage } from '../packages/sign-in/src/descriptor';
import { AlarmTopic } from './constructs/alarm-topic';
import { UserManagementApi } from './constructs/api';
import { EdgeProtection } from './constructs/edge-protection';
import { HandlerFunction } from './constructs/handler-function';
import { LifecycleEvents } from './constructs/lifecycle-events';
import { Monitoring } from './constructs/monitoring';
import { Release } from './constructs/release';
import { grantSignIn } from './constructs/sign-in-grant';
import { Tables } from './constructs/tables';
import { type StageConfig, topicRegion } from './stage-config';

const FUNCTIONS_DIR = fileURLToPath(new URL('../functions/', import.meta.url));

/** The operations, in route order: the catalogue's (functions/shared/contract/operations.ts). */
export { OPERATIONS };
export type Operation = OperationName;

export interface UserManagementStackProps extends StackProps {
  readonly config: StageConfig;
}

/**
 * One stage of the user-management API: tables, three functions, the REST API, the WAF web ACL in
 * front of it (unless turned off) and its monitoring.
 */
export class UserManagementStack extends Stack {
  readonly config: StageConfig;
  readonly tables: Tables;
  readonly functions: Record<Operation, HandlerFunction>;
  readonly api: UserManagementApi;
  /** Undefined when the stage runs without WAF (`-c waf=false`; dev's default). */
  readonly edge: EdgeProtection | undefined;
  readonly monitoring: Monitoring;
  readonly lifecycleEvents: LifecycleEvents;
  /** How a release reaches the functions' live aliases (CodeDeploy in staging and prod). */
  readonly release: Release;
  /** The SSM parameter holding the stage's sign-in descriptor. */
  readonly signInDescriptor: StringParameter;

  constructor(scope: Construct, id: string, props: UserManagementStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.config = config;
    Tags.of(this).add('service', 'user-management');
    Tags.of(this).add('stage', config.stage);
    // Every role of the stack, whatever construct creates it: the execution policy creates none without it.
    PermissionsBoundary.of(this).apply(ManagedPolicy.fromManagedPolicyName(this, 'PermissionsBoundary', config.permissionsBoundary));

    this.tables = new Tables(this, 'Tables', { retainData: config.retainData, recoveryPeriodDays: config.recoveryPeriodDays });

    // What every function of the stage logs and counts as, the stream consumer included.
    const observability = {
      POWERTOOLS_SERVICE_NAME: 'user-management',
      POWERTOOLS_LOG_LEVEL: config.logLevel,
      POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(config.stage),
    };
    const environment = {
      USERS_TABLE_NAME: this.tables.users.tableName,
      OWNERS_TABLE_NAME: this.tables.owners.tableName,
      IDEMPOTENCY_TABLE_NAME: this.tables.idempotency.tableName,
      SIGN_IN_TABLE_NAME: this.tables.signIn.tableName,
      PASSWORD_MIN_LENGTH: String(config.passwordMinLength),
      PASSWORD_MAX_LENGTH: String(config.passwordMaxLength),
      ARGON2_SETTING: formatArgon2Setting(config.argon2),
      API_KEY_CACHE_TTL_SECONDS: String(config.apiKeyCacheTtlSeconds),
      // The public endpoint over the internet (no VPC): only 5 hex characters of a password's SHA-1 leave.
      ...(config.pwnedPasswordsCheck && { PWNED_PASSWORDS_URL: PWNED_PASSWORDS_API }),
      ...observability,
    };

    const functions = {} as Record<Operation, HandlerFunction>;
    for (const operation of OPERATIONS) {
      const entry = CATALOGUE[operation];
      const fn = new HandlerFunction(this, upperFirst(operation), {
        entry: `${FUNCTIONS_DIR}${operation}/handler.ts`,
        description: `${entry.summary} (${config.stage})`,
        environment,
        memorySize: entry.memoryMb,
        // The catalogue's, which the local server's Lambda context reads too.
        timeout: Duration.seconds(entry.timeoutSeconds),
        logRetention: config.logRetention,
        logRemovalPolicy: config.removalPolicy,
      });
      // Every operation resolves the caller's API key and checks that its owner account still exists.
      fn.allow(this.tables.owners, 'GetItem');
      // And records the key's last use, hourly: last_used_at and nothing else of the key's item.
      fn.allowUpdateOf(this.tables.owners, [OWNERS_TABLE.partitionKey.name], [KEY_LAST_USED_ATTRIBUTE]);
      fn.allow(this.tables.users, 'GetItem', ...entry.usersTableActions);
      // The sign-in table only to erase a deleted user's part of it.
      if (entry.signInTableActions?.length) fn.allow(this.tables.signIn, ...entry.signInTableActions);
      // Idempotency-Key: claim (conditional put), record the response (update), drop the claim after a 500 (delete).
      fn.allow(this.tables.idempotency, 'PutItem', 'UpdateItem', 'DeleteItem');
      functions[operation] = fn;
    }
    this.functions = functions;

    this.api = new UserManagementApi(this, 'Api', {
      apiName: `user-management-${config.stage}`,
      stageName: config.stage,
      // API Gateway invokes each function's live alias, which a release moves.
      routes: Object.fromEntries(OPERATIONS.map((operation) => [operation, functions[operation].alias])),
      throttleRateLimit: config.throttleRateLimit,
      throttleBurstLimit: config.throttleBurstLimit,
      tracingSampleRate: config.tracingSampleRate,
      logRetention: config.logRetention,
      logRemovalPolicy: config.removalPolicy,
      // The stage's own password policy shows in the document's messages and limits; its server is
      // relative, right at the execute-api URL and behind a custom domain with any base path.
      openApiDocument: serializeOpenApiDocument(
        buildOpenApiDocument({ minLength: config.passwordMinLength, maxLength: config.passwordMaxLength }),
      ),
    });

    this.edge = config.waf
      ? new EdgeProtection(this, 'Edge', {
          stage: this.api.api.deploymentStage,
          name: `user-management-${config.stage}`,
          operationPaths: OPERATIONS.map(operationPath),
          windowSeconds: config.wafWindowSeconds,
          keyLimit: config.wafKeyLimit,
          ipLimit: config.wafIpLimit,
          anonymousIpLimit: config.wafAnonymousIpLimit,
        })
      : undefined;

    // Every alarm of the stage notifies one topic: the team's, or else the stage's own.
    const alarmTopic = config.alarmTopicArn
      ? Topic.fromTopicArn(this, 'AlarmTopic', config.alarmTopicArn)
      : new AlarmTopic(this, 'Alarms', {
          displayName: `user-management-${config.stage} alarms`,
          ...(config.alarmEmail && { email: config.alarmEmail }),
          removalPolicy: config.removalPolicy,
          alarmNamePrefix: this.stackName,
        }).topic;
    this.guardAlarmDelivery(config);
    this.monitoring = new Monitoring(this, 'Monitoring', {
      api: this.api.api,
      accessLogs: this.api.accessLogs,
      stageName: config.stage,
      functions: Object.fromEntries(OPERATIONS.map((operation) => [operation, functions[operation].function])),
      metricsNamespace: observability.POWERTOOLS_METRICS_NAMESPACE,
      latencyP99ThresholdMs: config.latencyAlarmP99Ms,
      breachCheckAlarm: config.pwnedPasswordsCheck,
      ...(this.edge && { webAcl: { name: this.edge.webAcl.name!, ruleMetricNames: this.edge.ruleMetricNames } }),
      alarmTopic,
    });

    this.lifecycleEvents = new LifecycleEvents(this, 'LifecycleEvents', {
      entry: `${FUNCTIONS_DIR}publishLifecycleEvents/handler.ts`,
      eventBusName: `user-management-${config.stage}`,
      usersTable: this.tables.users,
      deletionsTable: this.tables.deletions,
      undeliveredEventsTable: this.tables.undeliveredEvents,
      metricsNamespace: observability.POWERTOOLS_METRICS_NAMESPACE,
      recoveryPeriodDays: config.recoveryPeriodDays,
      environment: observability,
      logRetention: config.logRetention,
      logRemovalPolicy: config.removalPolicy,
      alarmTopic,
    });
    this.monitoring.showAlarms(...this.lifecycleEvents.alarms);

    // Releases: each API function's new version is watched by its own alarms and by the stage's 5xx rate
    // and function-500 alarms; the consumer's by its own and the lifecycle events' alarms.
    this.release = new Release(this, 'Release', {
      config: config.release,
      alarmTopic,
      latencyP99ThresholdMs: config.latencyAlarmP99Ms,
      logRetention: config.logRetention,
      logRemovalPolicy: config.removalPolicy,
    });
    for (const operation of OPERATIONS) {
      this.release.add(upperFirst(operation), functions[operation], this.monitoring.releaseAlarms, { hookPath: operationPath(operation) });
    }
    // The consumer is judged by its new version's own errors: a failed batch is retried through the alias,
    // where most retries land on the old version, so the stage's lag and dead-letter alarms barely move.
    // A batch of up to 100 records takes longer than a request by nature: no latency alarm.
    this.release.add('LifecycleEventsConsumer', this.lifecycleEvents.consumer, [], { latencyAlarm: false });
    this.monitoring.showAlarms(...this.release.versionAlarms);

    new CfnOutput(this, 'AlarmTopicArn', { description: 'The SNS topic every alarm of the stage notifies', value: alarmTopic.topicArn });
    new CfnOutput(this, 'ApiUrl', {
      description: 'Versioned API root; endpoints are {ApiUrl}/createUser, {ApiUrl}/resetUserPassword, {ApiUrl}/deleteUser',
      value: this.api.versionedUrl,
    });
    new CfnOutput(this, 'BaseUrl', {
      description: "The API's base_url: endpoints are {BaseUrl}/v1/<operation> (BASE_URL for the staging suite)",
      value: this.api.baseUrl,
    });
    new CfnOutput(this, 'UsersTableName', { description: 'USERS_TABLE_NAME for the admin CLI', value: this.tables.users.tableName });
    new CfnOutput(this, 'UsersTableArn', {
      description: "The users table's ARN, for a tool's role: grantSignIn (lib/constructs/sign-in-grant.ts) in the tool's own CDK app",
      value: this.tables.users.tableArn,
    });
    new CfnOutput(this, 'SignInTableName', {
      description: "The sign-in table: the sign-in module's signInTable option, and migrate-sign-in-state's --sign-in-table",
      value: this.tables.signIn.tableName,
    });
    new CfnOutput(this, 'SignInTableArn', {
      description: "The sign-in table's ARN, for a tool's role: grantSignIn's signInTable (lib/constructs/sign-in-grant.ts)",
      value: this.tables.signIn.tableArn,
    });
    new CfnOutput(this, 'OwnersTableName', { description: 'OWNERS_TABLE_NAME for the admin CLI', value: this.tables.owners.tableName });
    new CfnOutput(this, 'Argon2Setting', {
      description: "The argon2id setting new hashes use (m=KiB,t=passes,p=lanes): the data contract's rehash at sign-in uses it too",
      value: formatArgon2Setting(config.argon2),
    });
    new CfnOutput(this, 'EventBusName', {
      description: 'The EventBridge bus carrying UserCreated, UserPasswordReset and UserDeleted (source user-management)',
      value: this.lifecycleEvents.bus.eventBusName,
    });
    new CfnOutput(this, 'EventBusArn', { description: 'ARN of the lifecycle event bus', value: this.lifecycleEvents.bus.eventBusArn });
    new CfnOutput(this, 'DeletionsTableName', {
      description: 'The deletion ledger, for the admin CLI (reapply-deletions --deletions-table)',
      value: this.tables.deletions.tableName,
    });
    new CfnOutput(this, 'UndeliveredEventsTableName', {
      description: 'Lifecycle events kept after every delivery try failed, for the admin CLI (replay-events --undelivered-events-table)',
      value: this.tables.undeliveredEvents.tableName,
    });
    this.signInDescriptor = this.publishSignInDescriptor(config);
    for (const tool of config.signInTools) {
      // Keyed by the tool's account (and role), never its position: removing one tool leaves every
      // other tool's role, logical id and ARN where they were.
      const key = signInToolKey(tool.principal);
      // A tool in another account assumes this role: grantSignIn's permissions and the descriptor's read, nothing else.
      const role = new Role(this, `SignInTool${key}`, {
        assumedBy: /^\d{12}$/.test(tool.principal) ? new AccountPrincipal(tool.principal) : new ArnPrincipal(tool.principal),
        description: `A tool's sign-in (${tool.principal}${tool.ownerId ? `, owner ${tool.ownerId}` : ''}) on stage ${config.stage}`,
        maxSessionDuration: Duration.hours(1),
      });
      grantSignIn(role, {
        usersTable: this.tables.users,
        signInTable: this.tables.signIn,
        descriptorParameter: this.signInDescriptor,
        ...(tool.ownerId !== undefined && { ownerId: tool.ownerId }),
      });
      new CfnOutput(this, `SignInTool${key}RoleArn`, {
        description: `The role ${tool.principal} assumes to sign users in (grantSignIn and the descriptor)`,
        value: role.roleArn,
      });
    }
    new CfnOutput(this, 'DashboardUrl', {
      value: `https://console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards:name=${this.monitoring.dashboard.dashboardName}`,
    });

    this.acknowledgeNagFindings();
  }

  /** The stage descriptor (packages/sign-in: createSignIn({ descriptor: descriptorFromSsm(name) })): one JSON value, no secret. */
  private publishSignInDescriptor(config: StageConfig): StringParameter {
    const descriptor = describeStage({
      stage: config.stage,
      region: this.region,
      usersTable: { name: this.tables.users.tableName, arn: this.tables.users.tableArn },
      signInTable: { name: this.tables.signIn.tableName, arn: this.tables.signIn.tableArn },
      argon2Setting: formatArgon2Setting(config.argon2),
      passwordPolicy: { minLength: config.passwordMinLength, maxLength: config.passwordMaxLength },
      breachCheck: config.pwnedPasswordsCheck ? { pwnedPasswordsUrl: PWNED_PASSWORDS_API } : null,
      baseUrl: this.api.baseUrl,
    });
    const parameter = new StringParameter(this, 'SignInDescriptor', {
      parameterName: `/user-management/${config.stage}/sign-in-descriptor`,
      description: `What the sign-in module needs of stage ${config.stage} (no secret)`,
      stringValue: this.toJsonString(descriptor),
      tier: ParameterTier.STANDARD,
    });
    new CfnOutput(this, 'SignInDescriptorParameter', {
      description: "The sign-in module's descriptor: descriptorFromSsm(<this>) in the tool; grantSignIn's descriptorParameter",
      value: parameter.parameterName,
    });
    new CfnOutput(this, 'SignInDescriptorParameterArn', {
      description: 'The descriptor parameter by ARN: how a tool in another account names it',
      value: parameter.parameterArn,
    });
    return parameter;
  }

  /**
   * Template rules CloudFormation checks before it changes anything, whatever command deploys the
   * template: the team's topic must be in the stack's region (CloudWatch notifies no other), and a stage
   * that pages people must have someone to page. A synth only warns, so a newcomer's build still works.
   */
  private guardAlarmDelivery(config: StageConfig): void {
    if (config.alarmTopicArn) {
      const region = topicRegion(config.alarmTopicArn);
      new CfnRule(this, 'AlarmTopicInStackRegion', {
        assertions: [
          {
            assert: Fn.conditionEquals(Aws.REGION, region),
            assertDescription: `alarmTopicArn is in ${region}, and CloudWatch alarms notify only a topic of their own region: deploy ${this.stackName} to ${region}, or set a topic of this region as alarmTopicArn in lib/stage-config.ts.`,
          },
        ],
      });
    } else if (!config.alarmEmail && config.requireAlarmSubscriber) {
      const message = `${this.stackName}'s alarms reach no one: set alarmTopicArn (your alerting topic) or alarmEmail for ${config.stage} in lib/stage-config.ts, then deploy again.`;
      new CfnRule(this, 'AlarmsHaveASubscriber', {
        // Always false, so CloudFormation refuses the deploy with the message; written on the region like any rule.
        assertions: [{ assert: Fn.conditionNot(Fn.conditionEquals(Aws.REGION, Aws.REGION)), assertDescription: message }],
      });
      Annotations.of(this).addWarningV2('user-management:alarms-without-subscriber', `${message} A deploy refuses until then.`);
    }
  }

  /** cdk-nag findings that are design decisions, each acknowledged where it applies, with the reason. */
  private acknowledgeNagFindings(): void {
    Validations.of(this.api.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Request validation is done by the functions against the contract JSON Schemas, so every rejection carries the contract message; an API Gateway validator would answer first with its own text.',
      },
      {
        id: 'AwsSolutions-APIG4',
        reason:
          "Callers authenticate with an X-API-Key issued by the service, which the pipeline checks against the SHA-256 digests in the owners table before reading the body, with each key's operations and expiry and the contract's exact 401/403 answers and order. A REQUEST authorizer could read the header and cache its answer, but it would be a second function and a second key look-up per uncached key, answer with API Gateway's own bodies, and split one check across two places; the stage's WAF web ACL already refuses requests without a well-formed key at the edge.",
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'Callers are servers holding a service-issued API key, not Cognito users; see AwsSolutions-APIG4.',
      },
    );
    if (!this.edge) {
      Validations.of(this.api.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          "This stage runs without the stack's WAF web ACL (-c waf=false; the dev default): per-key authentication and stage throttling only. Where policy requires a web ACL, attach the organisation's (e.g. via Firewall Manager), since a stage takes one.",
      });
    }
  }
}

/**
 * A sign-in tool's key in construct ids: its account id, and for a role's ARN also the first 8 hex
 * digits of the ARN's SHA-256 (two roles of one account stay apart).
 */
export const signInToolKey = (principal: string): string =>
  /^\d{12}$/.test(principal) ? principal : `${principal.split(':')[4]}${createHash('sha256').update(principal).digest('hex').slice(0, 8)}`;

const upperFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
