import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { CATALOGUE, OPERATIONS } from '#contract/operations';
import {
  type Argon2Setting,
  DEFAULT_ARGON2_SETTING,
  DEFAULT_PASSWORD_POLICY,
  parseArgon2Setting,
  parseInteger,
  RECOVERY_PERIOD_DAYS,
} from '#platform/config';
import { WAF_MAX_LIMIT, WAF_MIN_LIMIT, WAF_WINDOWS, type WafWindowSeconds } from './constructs/edge-protection';
import { RELEASE_CONFIG_NAMES, type ReleaseConfigName } from './constructs/release';

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
  /**
   * The argon2id setting new password hashes use: one of OWASP's five equivalent settings
   * (`-c argon2=m=9216,t=4,p=1`), the cheapest on the committed bench run by default. Existing
   * hashes keep verifying after a change (the PHC string names its own parameters).
   */
  readonly argon2: Argon2Setting;
  /**
   * The online password check (Pwned Passwords range API, at most 1 s, fail-open to the offline
   * list, an alarm when it keeps failing): off by default; `-c pwnedPasswordsCheck=true`.
   */
  readonly pwnedPasswordsCheck: boolean;
  /** How long a warm function trusts a looked-up API key (revocation delay). */
  readonly apiKeyCacheTtlSeconds: number;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Point-in-time recovery period of the users, owners and idempotency tables (1-35 days): how far back a
   * restore can go, and so how long a deleted user's data survives in backups. The deletion
   * ledger keeps each deletion exactly this long.
   */
  readonly recoveryPeriodDays: number;
  /**
   * The team's existing SNS topic that every alarm notifies. When unset, the stack creates the
   * stage's own topic (output `AlarmTopicArn`): a stage never deploys with mute alarms.
   */
  readonly alarmTopicArn: string | undefined;
  /** An e-mail address subscribed to the stage's own topic (only when `alarmTopicArn` is unset). */
  readonly alarmEmail: string | undefined;
  /**
   * Tools in other AWS accounts that sign users in: for each, a role in this stage's account that the
   * tool's principal (an account id, or a role's ARN) assumes, with grantSignIn's permissions and the
   * descriptor's read; `<principal>=<ownerId>` limits it to one owner's users.
   * `-c signInTools=123456789012,arn:aws:iam::210987654321:role/tool=<ownerId>`. None by default.
   */
  readonly signInTools: readonly { readonly principal: string; readonly ownerId: string | undefined }[];
  /**
   * Whether a deploy refuses while the alarms reach no one (neither `alarmTopicArn` nor `alarmEmail`
   * set): staging and prod page people, dev may stay silent.
   */
  readonly requireAlarmSubscriber: boolean;
  /** The share of requests X-Ray traces (0 to 1), after one per second (the sampling rule's reservoir). */
  readonly tracingSampleRate: number;
  /** Whether a WAF web ACL guards the stage (per-key and per-address limits, key shape, body size). */
  readonly waf: boolean;
  /** The window the WAF rate limits count over, in seconds (60, 120, 300 or 600); also the 429's Retry-After. */
  readonly wafWindowSeconds: WafWindowSeconds;
  /** Requests one API key may send per window: by default half the stage throttle, so no key takes it all. */
  readonly wafKeyLimit: number;
  /** Requests one IP address may send per window, whatever its keys (by default the per-key limit). */
  readonly wafIpLimit: number;
  /** Requests one IP address may send per window without a well-formed key. */
  readonly wafAnonymousIpLimit: number;
  /** Each operation's p99 function duration, in milliseconds, above which its latency alarm fires. */
  readonly latencyAlarmP99Ms: number;
  /**
   * How a release reaches the functions' `live` aliases: one of CodeDeploy's predefined Lambda
   * configurations (gradual, rolled back on alarm), or `AllAtOnce` (no CodeDeploy: the alias moves at
   * once). Staging's is shorter than prod's, so each release rehearses the path before prod
   * (docs/deploy.md, "Releases"; ADR 23).
   */
  readonly release: ReleaseConfigName;
  /**
   * The managed policy every IAM role of the stack carries as its permissions boundary (`-c
   * permissionsBoundary=<name>`): by default the one `cdk bootstrap --example-permissions-boundary`
   * creates. The bootstrap's execution policy lets CloudFormation create a role only with it
   * (codegen/execution-policy.ts), so a role the deploy creates can never hold more than the boundary
   * allows (docs/deploy.md, "Bootstrap").
   */
  readonly permissionsBoundary: string;
}

type ContextDerived = 'stage' | 'wafKeyLimit' | 'wafIpLimit';

/** The boundary `cdk bootstrap --example-permissions-boundary` creates (qualifier hnb659fds, the default). */
export const DEFAULT_PERMISSIONS_BOUNDARY = 'cdk-hnb659fds-permissions-boundary';

const DEFAULTS: Record<StageName, Omit<StageConfig, ContextDerived>> = {
  dev: {
    retainData: false,
    removalPolicy: RemovalPolicy.DESTROY,
    logRetention: RetentionDays.ONE_WEEK,
    throttleRateLimit: 20,
    throttleBurstLimit: 40,
    passwordMinLength: DEFAULT_PASSWORD_POLICY.minLength,
    passwordMaxLength: DEFAULT_PASSWORD_POLICY.maxLength,
    argon2: DEFAULT_ARGON2_SETTING,
    pwnedPasswordsCheck: false,
    apiKeyCacheTtlSeconds: 30,
    logLevel: 'DEBUG',
    waf: false,
    wafWindowSeconds: 60,
    wafAnonymousIpLimit: 100,
    latencyAlarmP99Ms: 1000,
    // A disposable stage: every release takes all traffic at once, with no CodeDeploy deployment.
    release: 'AllAtOnce',
    // Alarms go to the stage's own topic; set the team's topic or an address here, in code, for every deploy.
    alarmTopicArn: undefined,
    alarmEmail: undefined,
    signInTools: [],
    requireAlarmSubscriber: false,
    tracingSampleRate: 1,
    // Disposable test data: the shortest window DynamoDB allows.
    recoveryPeriodDays: 1,
    permissionsBoundary: DEFAULT_PERMISSIONS_BOUNDARY,
  },
  staging: {
    retainData: true,
    removalPolicy: RemovalPolicy.RETAIN,
    logRetention: RetentionDays.ONE_MONTH,
    throttleRateLimit: 50,
    throttleBurstLimit: 100,
    passwordMinLength: DEFAULT_PASSWORD_POLICY.minLength,
    passwordMaxLength: DEFAULT_PASSWORD_POLICY.maxLength,
    argon2: DEFAULT_ARGON2_SETTING,
    pwnedPasswordsCheck: false,
    apiKeyCacheTtlSeconds: 30,
    logLevel: 'INFO',
    waf: true,
    wafWindowSeconds: 60,
    wafAnonymousIpLimit: 100,
    latencyAlarmP99Ms: 1000,
    // 10 % for 5 minutes: long enough for the new version's 1-minute alarms to speak, short enough to rehearse often.
    release: 'Canary10Percent5Minutes',
    alarmTopicArn: undefined,
    alarmEmail: undefined,
    signInTools: [],
    requireAlarmSubscriber: true,
    tracingSampleRate: 0.2,
    // A week: enough to rehearse a restore or undo a bad deploy caught in testing.
    recoveryPeriodDays: 7,
    permissionsBoundary: DEFAULT_PERMISSIONS_BOUNDARY,
  },
  prod: {
    retainData: true,
    removalPolicy: RemovalPolicy.RETAIN,
    logRetention: RetentionDays.ONE_YEAR,
    throttleRateLimit: 100,
    throttleBurstLimit: 200,
    passwordMinLength: DEFAULT_PASSWORD_POLICY.minLength,
    passwordMaxLength: DEFAULT_PASSWORD_POLICY.maxLength,
    argon2: DEFAULT_ARGON2_SETTING,
    pwnedPasswordsCheck: false,
    apiKeyCacheTtlSeconds: 30,
    logLevel: 'INFO',
    waf: true,
    wafWindowSeconds: 60,
    wafAnonymousIpLimit: 100,
    latencyAlarmP99Ms: 1000,
    // 10 % for 15 minutes: the stage's 5xx rate (5-minute periods, 2 of 3) can fire within the canary too.
    release: 'Canary10Percent15Minutes',
    alarmTopicArn: undefined,
    alarmEmail: undefined,
    signInTools: [],
    requireAlarmSubscriber: true,
    tracingSampleRate: 0.05,
    // 30 days: a corruption noticed at a monthly review can still be undone, and every copy of a
    // deleted user is gone within the month GDPR gives to act on an erasure request (DynamoDB's own
    // default is 35, the maximum).
    recoveryPeriodDays: 30,
    permissionsBoundary: DEFAULT_PERMISSIONS_BOUNDARY,
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

/** The region an SNS topic ARN names (`arn:<partition>:sns:<region>:<account>:<name>`). */
export const topicRegion = (topicArn: string): string => topicArn.split(':')[3]!;

/**
 * Reads one stage's settings (`stage`, default the one `-c stage=` names) and its overrides from
 * CDK context. Context given on the command line arrives as strings, so every value is parsed and
 * checked here: a typo fails the synth instead of deploying a surprising stack. `region`, when the
 * deploy's region is known at synth, is checked against `alarmTopicArn` (the template checks it again
 * where it is deployed).
 */
export function stageConfigFromContext(node: Node, stage: StageName = stagesFromContext(node)[0]!, region?: string): StageConfig {
  if (node.tryGetContext('apiGatewayCloudWatchRole') !== undefined) {
    throw new Error(
      'Context apiGatewayCloudWatchRole is no longer read: stage stacks never set the API Gateway account role; deploy UserManagement-account once per account and region unless your landing zone manages it.',
    );
  }
  const defaults = DEFAULTS[stage];
  const int = (key: string, fallback: number, min: number, max?: number): number =>
    parseInteger(node.tryGetContext(key), fallback, min, `Context ${key}`, max);
  const bool = (key: string, fallback: boolean): boolean => {
    const raw: unknown = node.tryGetContext(key);
    if (raw === undefined || raw === '') return fallback;
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    throw new Error(`Context ${key} must be true or false, got "${String(raw)}"`);
  };
  const optionalText = (key: string, fallback: string | undefined, shape: RegExp): string | undefined => {
    const raw: unknown = node.tryGetContext(key);
    if (raw === undefined) return fallback;
    if (raw === '' || raw === 'none') return undefined;
    if (typeof raw !== 'string' || !shape.test(raw)) throw new Error(`Context ${key} is malformed, got "${String(raw)}"`);
    return raw;
  };
  const fraction = (key: string, fallback: number): number => {
    const raw: unknown = node.tryGetContext(key);
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > 1)
      throw new Error(`Context ${key} must be a number from 0 to 1, got "${String(raw)}"`);
    return value;
  };
  const logLevel = String(node.tryGetContext('logLevel') ?? defaults.logLevel).toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new Error(`Context logLevel must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const release = String(node.tryGetContext('release') ?? defaults.release);
  if (!(RELEASE_CONFIG_NAMES as readonly string[]).includes(release)) {
    throw new Error(`Context release must be one of ${RELEASE_CONFIG_NAMES.join(', ')}, got "${release}"`);
  }
  const throttleRateLimit = int('throttleRateLimit', defaults.throttleRateLimit, 1);
  const wafWindowSeconds = int('wafWindowSeconds', defaults.wafWindowSeconds, 1);
  if (!(WAF_WINDOWS as readonly number[]).includes(wafWindowSeconds)) {
    throw new Error(`Context wafWindowSeconds must be one of ${WAF_WINDOWS.join(', ')}, got "${wafWindowSeconds}"`);
  }
  const wafLimit = (key: string, fallback: number) =>
    int(key, Math.min(Math.max(fallback, WAF_MIN_LIMIT), WAF_MAX_LIMIT), WAF_MIN_LIMIT, WAF_MAX_LIMIT);
  // A fair share: one key may use at most half of what the stage throttle lets through in a window.
  const wafKeyLimit = wafLimit('wafKeyLimit', Math.floor((throttleRateLimit * wafWindowSeconds) / 2));
  const config: StageConfig = {
    ...defaults,
    stage,
    throttleRateLimit,
    throttleBurstLimit: int('throttleBurstLimit', defaults.throttleBurstLimit, 1),
    passwordMinLength: int('passwordMinLength', defaults.passwordMinLength, 8),
    passwordMaxLength: int('passwordMaxLength', defaults.passwordMaxLength, 8),
    argon2:
      node.tryGetContext('argon2') === undefined ? defaults.argon2 : parseArgon2Setting(node.tryGetContext('argon2'), 'Context argon2'),
    pwnedPasswordsCheck: bool('pwnedPasswordsCheck', defaults.pwnedPasswordsCheck),
    apiKeyCacheTtlSeconds: int('apiKeyCacheTtlSeconds', defaults.apiKeyCacheTtlSeconds, 0),
    logLevel: logLevel as StageConfig['logLevel'],
    recoveryPeriodDays: int('recoveryPeriodDays', defaults.recoveryPeriodDays, RECOVERY_PERIOD_DAYS.min, RECOVERY_PERIOD_DAYS.max),
    alarmTopicArn: optionalText('alarmTopicArn', defaults.alarmTopicArn, /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]{1,256}$/),
    alarmEmail: optionalText('alarmEmail', defaults.alarmEmail, /^[^@\s]+@[^@\s]+\.[^@\s]+$/),
    tracingSampleRate: fraction('tracingSampleRate', defaults.tracingSampleRate),
    waf: bool('waf', defaults.waf),
    wafWindowSeconds: wafWindowSeconds as WafWindowSeconds,
    wafKeyLimit,
    wafIpLimit: wafLimit('wafIpLimit', wafKeyLimit),
    wafAnonymousIpLimit: wafLimit('wafAnonymousIpLimit', defaults.wafAnonymousIpLimit),
    latencyAlarmP99Ms: int('latencyAlarmP99Ms', defaults.latencyAlarmP99Ms, 1),
    release: release as ReleaseConfigName,
    signInTools: signInTools(node.tryGetContext('signInTools'), defaults.signInTools),
    permissionsBoundary: permissionsBoundaryFromContext(node, defaults.permissionsBoundary),
  };
  if (config.passwordMaxLength < config.passwordMinLength) {
    throw new Error('Context passwordMaxLength must not be less than passwordMinLength');
  }
  // Above the shortest function timeout, a p99 duration can never exceed it: that alarm could never fire.
  const shortestTimeoutMs = Math.min(...OPERATIONS.map((operation) => CATALOGUE[operation].timeoutSeconds * 1000));
  if (config.latencyAlarmP99Ms >= shortestTimeoutMs) {
    throw new Error(
      `Context latencyAlarmP99Ms must be below the shortest function timeout (${shortestTimeoutMs} ms), got ${config.latencyAlarmP99Ms}`,
    );
  }
  if (config.alarmTopicArn && region && topicRegion(config.alarmTopicArn) !== region) {
    throw new Error(
      `alarmTopicArn is in ${topicRegion(config.alarmTopicArn)} but ${stage} deploys to ${region}, and CloudWatch alarms notify only a topic of their own region: set a topic of ${region} in lib/stage-config.ts`,
    );
  }
  return config;
}

/**
 * The permissions boundary's policy name, `-c permissionsBoundary=<name>`, else `fallback` (a stage's
 * default; the account stack's is {@link DEFAULT_PERMISSIONS_BOUNDARY}).
 */
export function permissionsBoundaryFromContext(node: Node, fallback: string = DEFAULT_PERMISSIONS_BOUNDARY): string {
  const raw: unknown = node.tryGetContext('permissionsBoundary');
  if (raw === undefined || raw === '') return fallback;
  // IAM's policy name: up to 128 of letters, digits and +=,.@_-.
  if (typeof raw !== 'string' || !/^[\w+=,.@-]{1,128}$/.test(raw))
    throw new Error(`Context permissionsBoundary must be an IAM policy's name, got "${String(raw)}"`);
  return raw;
}

/** `-c signInTools=<principal>[=<ownerId>],...`: an account id or an IAM role's ARN, optionally one owner's id. */
function signInTools(raw: unknown, fallback: StageConfig['signInTools']): StageConfig['signInTools'] {
  if (raw === undefined) return fallback;
  if (raw === '' || raw === 'none') return [];
  if (typeof raw !== 'string') throw new Error('Context signInTools must be a comma-separated list');
  const tools = raw.split(',').map((entry) => {
    const [principal = '', ownerId, extra] = entry.trim().split('=');
    if (!/^\d{12}$|^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/.test(principal) || extra !== undefined)
      throw new Error(`Context signInTools: "${entry}" is not an account id or an IAM role's ARN (optionally =<ownerId>)`);
    if (ownerId !== undefined && !/^[A-Za-z0-9-]+$/.test(ownerId))
      throw new Error(`Context signInTools: "${ownerId}" is not an owner's id`);
    return { principal, ownerId };
  });
  // One role per principal: the role is keyed by it (lib/user-management-stack.ts).
  const principals = tools.map((tool) => tool.principal);
  const repeated = principals.find((principal, index) => principals.indexOf(principal) !== index);
  if (repeated) throw new Error(`Context signInTools: "${repeated}" is listed twice; give each principal one entry`);
  return tools;
}
