/** Deployment configuration, read from the environment once at cold start. */

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
}

/**
 * The one integer parser for settings, from the environment here and from CDK context in
 * lib/stage-config.ts: absent or empty gives the fallback; anything but an integer from min to
 * max throws, naming the setting (`what`) and the value.
 */
export function parseInteger(raw: unknown, fallback: number, min: number, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${what} must be an integer >= ${min}, got "${String(raw)}"`);
  }
  if (value > max) throw new Error(`${what} must be at most ${max}, got "${String(raw)}"`);
  return value;
}

const integer = (name: string, fallback: number, min: number, max?: number): number =>
  parseInteger(process.env[name], fallback, min, `Environment variable ${name}`, max);

export interface PasswordPolicy {
  readonly minLength: number;
  readonly maxLength: number;
}

/** 8 to 1024 characters: NIST SP 800-63B's minimum length, and a bound on hashing work. */
export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = { minLength: 8, maxLength: 1024 };

export interface Config {
  readonly usersTableName: string;
  readonly ownersTableName: string;
  /** Where Idempotency-Key records live (24 hours each, DynamoDB TTL). */
  readonly idempotencyTableName: string;
  /** Set only when talking to DynamoDB Local. */
  readonly dynamodbEndpoint: string | undefined;
  readonly passwordPolicy: PasswordPolicy;
  /** How long a warm function trusts a looked-up API key; a revocation takes effect within it. */
  readonly apiKeyCacheTtlMs: number;
}

/** The deployment's password policy (PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH), checked. */
export function readPasswordPolicy(): PasswordPolicy {
  const policy = {
    minLength: integer('PASSWORD_MIN_LENGTH', DEFAULT_PASSWORD_POLICY.minLength, 1),
    maxLength: integer('PASSWORD_MAX_LENGTH', DEFAULT_PASSWORD_POLICY.maxLength, 1),
  };
  if (policy.maxLength < policy.minLength) {
    throw new Error('PASSWORD_MAX_LENGTH must not be less than PASSWORD_MIN_LENGTH');
  }
  return policy;
}

/** Reads and checks the configuration; throws naming the first bad variable. */
export function readConfig(): Config {
  return {
    usersTableName: required('USERS_TABLE_NAME'),
    ownersTableName: required('OWNERS_TABLE_NAME'),
    idempotencyTableName: required('IDEMPOTENCY_TABLE_NAME'),
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    passwordPolicy: readPasswordPolicy(),
    apiKeyCacheTtlMs: integer('API_KEY_CACHE_TTL_SECONDS', 30, 0) * 1000,
  };
}

/** DynamoDB's bounds on a point-in-time recovery period, in days. */
export const RECOVERY_PERIOD_DAYS = { min: 1, max: 35 } as const;

/** The lifecycle-event consumer's configuration (functions/publishLifecycleEvents). */
export interface EventDeliveryConfig {
  readonly eventBusName: string;
  readonly deletionsTableName: string;
  /** The users table's recovery period: how long a deletion stays in the ledger. */
  readonly recoveryPeriodDays: number;
  /** Set only when talking to DynamoDB Local. */
  readonly dynamodbEndpoint: string | undefined;
}

/** RECOVERY_PERIOD_DAYS, checked: 1 to 35, DynamoDB's longest (and default) window when unset. */
export function readRecoveryPeriodDays(): number {
  return integer('RECOVERY_PERIOD_DAYS', RECOVERY_PERIOD_DAYS.max, RECOVERY_PERIOD_DAYS.min, RECOVERY_PERIOD_DAYS.max);
}

/** Reads and checks the consumer's configuration; throws naming the first bad variable. */
export function readEventDeliveryConfig(): EventDeliveryConfig {
  return {
    eventBusName: required('EVENT_BUS_NAME'),
    deletionsTableName: required('DELETIONS_TABLE_NAME'),
    recoveryPeriodDays: readRecoveryPeriodDays(),
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
  };
}
