/** Deployment configuration, read from the environment once at cold start. */

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
}

function integer(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`Environment variable ${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

export interface PasswordPolicy {
  readonly minLength: number;
  readonly maxLength: number;
}

export interface Config {
  readonly usersTableName: string;
  readonly ownersTableName: string;
  /** Set only when talking to DynamoDB Local. */
  readonly dynamodbEndpoint: string | undefined;
  readonly passwordPolicy: PasswordPolicy;
  /** How long a warm function trusts a looked-up API key; a revocation takes effect within it. */
  readonly apiKeyCacheTtlMs: number;
}

/** The deployment's password policy (PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH), checked. */
export function readPasswordPolicy(): PasswordPolicy {
  const policy = {
    minLength: integer('PASSWORD_MIN_LENGTH', 8, 1),
    maxLength: integer('PASSWORD_MAX_LENGTH', 1024, 1),
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
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    passwordPolicy: readPasswordPolicy(),
    apiKeyCacheTtlMs: integer('API_KEY_CACHE_TTL_SECONDS', 30, 0) * 1000,
  };
}
