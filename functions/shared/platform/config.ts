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

/** An argon2id cost setting (memory in KiB, passes, lanes). */
export interface Argon2Setting {
  readonly memoryCost: number;
  readonly timeCost: number;
  readonly parallelism: 1;
}

/**
 * OWASP's five argon2id settings that "provide an equal level of defense" (Password Storage Cheat
 * Sheet): the only ones a stage may choose. They cost very different CPU (`npm run bench` measures
 * all five side by side), so the choice is a measurement, not a judgement of strength.
 */
export const OWASP_ARGON2ID_SETTINGS: readonly Argon2Setting[] = [
  { memoryCost: 47104, timeCost: 1, parallelism: 1 },
  { memoryCost: 19456, timeCost: 2, parallelism: 1 },
  { memoryCost: 12288, timeCost: 3, parallelism: 1 },
  { memoryCost: 9216, timeCost: 4, parallelism: 1 },
  { memoryCost: 7168, timeCost: 5, parallelism: 1 },
];

/** `m=7168,t=5,p=1`: how a setting is written in ARGON2_SETTING, in stage settings and in PHC strings. */
export const formatArgon2Setting = (setting: Argon2Setting): string =>
  `m=${setting.memoryCost},t=${setting.timeCost},p=${setting.parallelism}`;

/**
 * The setting new hashes use when none is configured: the cheapest of the five on the committed
 * bench run (bench/RESULTS.md). Hashes made with another setting keep verifying: the PHC string
 * carries its own parameters.
 */
export const DEFAULT_ARGON2_SETTING: Argon2Setting = OWASP_ARGON2ID_SETTINGS[4]!;

/** One of OWASP's five, written `m=<KiB>,t=<n>,p=1`; anything else throws naming `what` and the five. */
export function parseArgon2Setting(raw: unknown, what: string): Argon2Setting {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_ARGON2_SETTING;
  const text = String(raw).replace(/\s+/g, '');
  const found = OWASP_ARGON2ID_SETTINGS.find((setting) => formatArgon2Setting(setting) === text);
  if (!found) {
    throw new Error(
      `${what} must be one of OWASP's five argon2id settings (${OWASP_ARGON2ID_SETTINGS.map(formatArgon2Setting).join(' | ')}), got "${String(raw)}"`,
    );
  }
  return found;
}

/** How passwords are checked and hashed in this deployment. */
export interface PasswordSettings {
  readonly passwordPolicy: PasswordPolicy;
  /** The argon2id setting new hashes use (ARGON2_SETTING). */
  readonly argon2: Argon2Setting;
}

/** The deployment's password settings (PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, ARGON2_SETTING), checked. */
export function readPasswordSettings(): PasswordSettings {
  return {
    passwordPolicy: readPasswordPolicy(),
    argon2: parseArgon2Setting(process.env.ARGON2_SETTING, 'Environment variable ARGON2_SETTING'),
  };
}

export interface Config extends PasswordSettings {
  readonly usersTableName: string;
  readonly ownersTableName: string;
  /** Where Idempotency-Key records live (24 hours each, DynamoDB TTL). */
  readonly idempotencyTableName: string;
  /** The sign-in module's state (SIGN_IN_TABLE_NAME): the API only erases a deleted user's part of it. */
  readonly signInTableName: string;
  /** Set only when talking to DynamoDB Local. */
  readonly dynamodbEndpoint: string | undefined;
  /** How long a warm function trusts a looked-up API key; a revocation takes effect within it. */
  readonly apiKeyCacheTtlMs: number;
  /** The Pwned Passwords range API's base URL when the stage's online check is on (PWNED_PASSWORDS_URL); unset, off. */
  readonly pwnedPasswordsUrl: string | undefined;
}

/** PWNED_PASSWORDS_URL: unset or empty is off; anything else must be an http(s) URL. */
export function readPwnedPasswordsUrl(): string | undefined {
  const raw = process.env.PWNED_PASSWORDS_URL;
  if (!raw) return undefined;
  let protocol: string;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'https:' && protocol !== 'http:')
    throw new Error(`Environment variable PWNED_PASSWORDS_URL must be an http(s) URL, got "${raw}"`);
  return raw;
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

/** How long a warm function trusts a resolved API key when API_KEY_CACHE_TTL_SECONDS is unset: a revocation's delay. */
export const DEFAULT_API_KEY_CACHE_TTL_SECONDS = 30;

/** Reads and checks the configuration; throws naming the first bad variable. */
export function readConfig(): Config {
  return {
    usersTableName: required('USERS_TABLE_NAME'),
    ownersTableName: required('OWNERS_TABLE_NAME'),
    idempotencyTableName: required('IDEMPOTENCY_TABLE_NAME'),
    signInTableName: required('SIGN_IN_TABLE_NAME'),
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    ...readPasswordSettings(),
    apiKeyCacheTtlMs: integer('API_KEY_CACHE_TTL_SECONDS', DEFAULT_API_KEY_CACHE_TTL_SECONDS, 0) * 1000,
    pwnedPasswordsUrl: readPwnedPasswordsUrl(),
  };
}

/** DynamoDB's bounds on a point-in-time recovery period, in days. */
export const RECOVERY_PERIOD_DAYS = { min: 1, max: 35 } as const;

/** The lifecycle-event consumer's configuration (functions/publishLifecycleEvents). */
export interface EventDeliveryConfig {
  readonly eventBusName: string;
  readonly deletionsTableName: string;
  /** Where events that kept failing are kept whole for replay. */
  readonly undeliveredEventsTableName: string;
  /** How long an undelivered event is kept (UNDELIVERED_EVENT_DAYS: at least 14). */
  readonly undeliveredEventDays: number;
  /** The users table's recovery period: how long a deletion stays in the ledger. */
  readonly recoveryPeriodDays: number;
  /** Set only when talking to DynamoDB Local. */
  readonly dynamodbEndpoint: string | undefined;
}

/** RECOVERY_PERIOD_DAYS, checked: 1 to 35, DynamoDB's longest (and default) window when unset. */
export function readRecoveryPeriodDays(): number {
  return integer('RECOVERY_PERIOD_DAYS', RECOVERY_PERIOD_DAYS.max, RECOVERY_PERIOD_DAYS.min, RECOVERY_PERIOD_DAYS.max);
}

/** Undelivered lifecycle events are kept two weeks at least: time to notice the alarm and replay them. */
export const UNDELIVERED_EVENT_DAYS = { min: 14, max: 365, default: 14 } as const;

/** UNDELIVERED_EVENT_DAYS, checked: 14 to 365, 14 when unset. */
export function readUndeliveredEventDays(): number {
  return integer('UNDELIVERED_EVENT_DAYS', UNDELIVERED_EVENT_DAYS.default, UNDELIVERED_EVENT_DAYS.min, UNDELIVERED_EVENT_DAYS.max);
}

/** Reads and checks the consumer's configuration; throws naming the first bad variable. */
export function readEventDeliveryConfig(): EventDeliveryConfig {
  return {
    eventBusName: required('EVENT_BUS_NAME'),
    deletionsTableName: required('DELETIONS_TABLE_NAME'),
    undeliveredEventsTableName: required('UNDELIVERED_EVENTS_TABLE_NAME'),
    undeliveredEventDays: readUndeliveredEventDays(),
    recoveryPeriodDays: readRecoveryPeriodDays(),
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
  };
}
