/**
 * Where the local processes find DynamoDB: `npm start`, the admin CLI and the tests resolve it
 * here, so they cannot disagree. No imports on purpose: the admin CLI reads this without loading
 * the DynamoDB Local launcher (local/, which the admin CLI may not import), and no handler imports it.
 */

/** The tables' names on the local engine. */
export const LOCAL_TABLES = {
  usersTableName: 'users',
  ownersTableName: 'owners',
  idempotencyTableName: 'idempotency',
  signInTableName: 'sign-in',
  deletionsTableName: 'deletions',
  undeliveredEventsTableName: 'undelivered-events',
} as const;

/** The tables' names, as the service's configuration holds them. */
export interface TableNames {
  readonly usersTableName: string;
  readonly ownersTableName: string;
  readonly idempotencyTableName: string;
  /** The sign-in module's state (its failed attempts), erased with a deleted user. */
  readonly signInTableName: string;
  /** The deletion ledger, where lifecycle events run (`npm start`, the tests). */
  readonly deletionsTableName?: string;
  /** Lifecycle events kept after every delivery try failed, where lifecycle events run. */
  readonly undeliveredEventsTableName?: string;
}

/** DynamoDB Local's port when DYNAMODB_PORT is unset. */
export const DEFAULT_DYNAMODB_PORT = 8000;

type Env = Readonly<Record<string, string | undefined>>;

/** A TCP port from the environment variable `name`, or `fallback` when it is unset; throws one line naming the variable. */
export function portFromEnv(name: string, fallback: number, env: Env = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65_535) throw new Error(`${name} must be a port number from 1 to 65535, got "${raw}".`);
  return port;
}

/**
 * The local engine's endpoint: DYNAMODB_ENDPOINT when set, else DynamoDB Local on
 * `http://127.0.0.1:${DYNAMODB_PORT}` (default 8000). `external` tells whether the engine is
 * someone else's (never started nor stopped by `npm start`).
 */
export function localEngine(env: Env = process.env): { endpoint: string; port: number; external: boolean } {
  const configured = env.DYNAMODB_ENDPOINT;
  if (configured) {
    let url: URL;
    try {
      url = new URL(configured);
    } catch {
      throw new Error(`DYNAMODB_ENDPOINT must be an http:// or https:// URL, got "${configured}".`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`DYNAMODB_ENDPOINT must be an http:// or https:// URL, got "${configured}".`);
    }
    return { endpoint: configured, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)), external: true };
  }
  const port = portFromEnv('DYNAMODB_PORT', DEFAULT_DYNAMODB_PORT, env);
  return { endpoint: `http://127.0.0.1:${port}`, port, external: false };
}

/**
 * The endpoint the admin CLI talks to: undefined (the AWS SDK's own, for the caller's region) when
 * the command names a deployed stage's tables and neither DYNAMODB_ENDPOINT nor DYNAMODB_PORT is
 * set; otherwise the local engine, found as `npm start` finds it.
 */
export function adminEndpoint(deployedTablesNamed: boolean, env: Env = process.env): string | undefined {
  const local = Boolean(env.DYNAMODB_ENDPOINT || env.DYNAMODB_PORT);
  return deployedTablesNamed && !local ? undefined : localEngine(env).endpoint;
}
