import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { DEFAULT_PASSWORD_POLICY, parseInteger, RECOVERY_PERIOD_DAYS } from '../functions/shared/config';

export const STAGES = ['dev', 'staging', 'prod'] as const;
export type StageName = (typeof STAGES)[number];

/** Everything that differs between stages; one value per stage, overridable with `-c key=value`. */
export interface StageConfig {
  readonly stage: StageName;
  /** Dev is disposable; staging and prod keep their data when the stack or a resource goes away. */
  readonly retainData: boolean;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  /** Steady-state requests per second the stage accepts before answering 429. */
  readonly throttleRateLimit: number;
  /** Requests the stage accepts in a burst above the steady rate. */
  readonly throttleBurstLimit: number;
  readonly passwordMinLength: number;
  readonly passwordMaxLength: number;
  /** How long a warm function trusts a looked-up API key (revocation delay). */
  readonly apiKeyCacheTtlSeconds: number;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Point-in-time recovery period of the users, owners and idempotency tables (1-35 days): how far back a
   * restore can go, and so how long a deleted user's data survives in backups. The deletion
   * ledger keeps each deletion exactly this long.
   */
  readonly recoveryPeriodDays: number;
  /** SNS topic (the team's existing alerting) that alarms notify; none means alarms only show on the dashboard. */
  readonly alarmTopicArn: string | undefined;
}

const DEFAULTS: Record<StageName, Omit<StageConfig, 'stage' | 'alarmTopicArn'>> = {
  dev: {
    retainData: false,
    removalPolicy: RemovalPolicy.DESTROY,
    logRetention: RetentionDays.ONE_WEEK,
    throttleRateLimit: 20,
    throttleBurstLimit: 40,
    passwordMinLength: DEFAULT_PASSWORD_POLICY.minLength,
    passwordMaxLength: DEFAULT_PASSWORD_POLICY.maxLength,
    apiKeyCacheTtlSeconds: 30,
    logLevel: 'DEBUG',
    // Disposable test data: the shortest window DynamoDB allows.
    recoveryPeriodDays: 1,
  },
  staging: {
    retainData: true,
    removalPolicy: RemovalPolicy.RETAIN,
    logRetention: RetentionDays.ONE_MONTH,
    throttleRateLimit: 50,
    throttleBurstLimit: 100,
    passwordMinLength: DEFAULT_PASSWORD_POLICY.minLength,
    passwordMaxLength: DEFAULT_PASSWORD_POLICY.maxLength,
    apiKeyCacheTtlSeconds: 30,
    logLevel: 'INFO',
    // A week: enough to rehearse a restore or undo a bad deploy caught in testing.
    recoveryPeriodDays: 7,
  },
  prod: {
    retainData: true,
    removalPolicy: RemovalPolicy.RETAIN,
    logRetention: RetentionDays.ONE_YEAR,
    throttleRateLimit: 100,
    throttleBurstLimit: 200,
    passwordMinLength: DEFAULT_PASSWORD_POLICY.minLength,
    passwordMaxLength: DEFAULT_PASSWORD_POLICY.maxLength,
    apiKeyCacheTtlSeconds: 30,
    logLevel: 'INFO',
    // 30 days: a corruption noticed at a monthly review can still be undone, and every copy of a
    // deleted user is gone within the month GDPR gives to act on an erasure request (DynamoDB's own
    // default is 35, the maximum).
    recoveryPeriodDays: 30,
  },
};

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/**
 * The stages to synthesize: `-c stage=dev|staging|prod` (default dev), or several separated by
 * commas (`-c stage=dev,staging,prod`), each checked.
 */
export function stagesFromContext(node: Node): StageName[] {
  const stages = String(node.tryGetContext('stage') ?? 'dev')
    .split(',')
    .map((stage) => stage.trim());
  for (const stage of stages) {
    if (!(STAGES as readonly string[]).includes(stage)) {
      throw new Error(`Unknown stage "${stage}": use -c stage=${STAGES.join('|')}`);
    }
  }
  return [...new Set(stages)] as StageName[];
}

/**
 * Reads one stage's settings (`stage`, default the one `-c stage=` names) and its overrides from
 * CDK context. Context given on the command line arrives as strings, so every value is parsed and
 * checked here: a typo fails the synth instead of deploying a surprising stack.
 */
export function stageConfigFromContext(node: Node, stage: StageName = stagesFromContext(node)[0]!): StageConfig {
  if (node.tryGetContext('apiGatewayCloudWatchRole') !== undefined) {
    throw new Error(
      'Context apiGatewayCloudWatchRole is no longer read: stage stacks never set the API Gateway account role; deploy UserManagement-account once per account and region unless your landing zone manages it.',
    );
  }
  const defaults = DEFAULTS[stage];
  const int = (key: string, fallback: number, min: number): number =>
    parseInteger(node.tryGetContext(key), fallback, min, `Context ${key}`);
  const logLevel = String(node.tryGetContext('logLevel') ?? defaults.logLevel).toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new Error(`Context logLevel must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const config: StageConfig = {
    ...defaults,
    stage,
    throttleRateLimit: int('throttleRateLimit', defaults.throttleRateLimit, 1),
    throttleBurstLimit: int('throttleBurstLimit', defaults.throttleBurstLimit, 1),
    passwordMinLength: int('passwordMinLength', defaults.passwordMinLength, 8),
    passwordMaxLength: int('passwordMaxLength', defaults.passwordMaxLength, 8),
    apiKeyCacheTtlSeconds: int('apiKeyCacheTtlSeconds', defaults.apiKeyCacheTtlSeconds, 0),
    logLevel: logLevel as StageConfig['logLevel'],
    recoveryPeriodDays: int('recoveryPeriodDays', defaults.recoveryPeriodDays, RECOVERY_PERIOD_DAYS.min),
    alarmTopicArn: (node.tryGetContext('alarmTopicArn') as string | undefined) || undefined,
  };
  if (config.recoveryPeriodDays > RECOVERY_PERIOD_DAYS.max) {
    throw new Error(`Context recoveryPeriodDays must be at most ${RECOVERY_PERIOD_DAYS.max}, got "${config.recoveryPeriodDays}"`);
  }
  if (config.passwordMaxLength < config.passwordMinLength) {
    throw new Error('Context passwordMaxLength must not be less than passwordMinLength');
  }
  return config;
}
