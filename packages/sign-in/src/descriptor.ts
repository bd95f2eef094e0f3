/**
 * The stage descriptor: everything the sign-in module needs to know about one stage, as one JSON
 * value, and the loaders that read it where each place keeps it (the stack's SSM parameter, the file
 * `npm start` writes). It holds no secret: table names and ARNs, the Region, the argon2id setting,
 * the password lengths and whether the online breach check is on.
 */

import { readFile } from 'node:fs/promises';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

/** The descriptor's format version; a loader refuses another. */
export const DESCRIPTOR_VERSION = 1;

/** One stage, as the stack publishes it (SSM parameter `SignInDescriptorParameter`) and `npm start` writes it (`.data/sign-in.json`). */
export interface SignInDescriptor {
  readonly descriptorVersion: 1;
  /** The stage's name (`local` for `npm start`). */
  readonly stage: string;
  /** The stage's AWS Region. */
  readonly region: string;
  /** DynamoDB Local's address: only in the descriptor `npm start` writes. The module then uses static dummy credentials. */
  readonly endpoint?: string;
  readonly usersTable: { readonly name: string; readonly arn: string };
  readonly signInTable: { readonly name: string; readonly arn: string };
  /** The argon2id setting of new and upgraded hashes, e.g. `m=7168,t=5,p=1`. */
  readonly argon2Setting: string;
  /** A new password's lengths in code points (an owner's own minimum replaces `minLength`). */
  readonly passwordPolicy: { readonly minLength: number; readonly maxLength: number };
  /** The online breach check for new passwords when the stage has it on (Pwned Passwords' range API); `null` when off. */
  readonly breachCheck: { readonly pwnedPasswordsUrl: string } | null;
  /** The API's base_url (operations are `{baseUrl}/v1/<operation>`): the stack output `BaseUrl`, `http://127.0.0.1:3000` under `npm start`. */
  readonly baseUrl: string;
  /** Only in the descriptor `npm start` writes: its development owner (the id is no secret: `admin show-owner` prints it). */
  readonly developmentOwner?: { readonly email: string; readonly ownerId: string };
}

/** The descriptor of a stage from its parts: the one builder the stack and `npm start` share. */
export function describeStage(parts: Omit<SignInDescriptor, 'descriptorVersion'>): SignInDescriptor {
  return {
    descriptorVersion: DESCRIPTOR_VERSION,
    stage: parts.stage,
    region: parts.region,
    ...(parts.endpoint !== undefined && { endpoint: parts.endpoint }),
    usersTable: { name: parts.usersTable.name, arn: parts.usersTable.arn },
    signInTable: { name: parts.signInTable.name, arn: parts.signInTable.arn },
    argon2Setting: parts.argon2Setting,
    passwordPolicy: { minLength: parts.passwordPolicy.minLength, maxLength: parts.passwordPolicy.maxLength },
    breachCheck: parts.breachCheck ? { pwnedPasswordsUrl: parts.breachCheck.pwnedPasswordsUrl } : null,
    baseUrl: parts.baseUrl,
    ...(parts.developmentOwner && { developmentOwner: { email: parts.developmentOwner.email, ownerId: parts.developmentOwner.ownerId } }),
  };
}

/** Where a sign-in finds its descriptor; each `load()` answers from a short cache and re-reads past it. */
export interface DescriptorSource {
  /** The descriptor, at most `maxAgeSeconds` old. Past that it is read again; if that fails, the last good one is kept and the next call retries. */
  load(): Promise<SignInDescriptor>;
  /** What the source reads, for messages: the file's path or the parameter's name. */
  readonly description: string;
}

export interface LoaderOptions {
  /** How long a read descriptor is used before it is read again: a changed setting is picked up within it. @default 60 */
  readonly maxAgeSeconds?: number;
  /** The clock, in epoch milliseconds. For tests only. @default Date.now */
  readonly now?: () => number;
}

const fail = (where: string, what: string): never => {
  throw new TypeError(`sign-in descriptor ${where}: ${what}`);
};

/** Checks a parsed JSON value as a descriptor; throws one line naming the first bad field. */
export function parseDescriptor(value: unknown, where = '(value)'): SignInDescriptor {
  const d = value as Record<string, unknown> | null;
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return fail(where, 'not a JSON object');
  if (d.descriptorVersion !== DESCRIPTOR_VERSION) fail(where, `descriptorVersion must be ${DESCRIPTOR_VERSION}`);
  for (const field of ['stage', 'region', 'argon2Setting', 'baseUrl'] as const) {
    if (typeof d[field] !== 'string' || d[field] === '') fail(where, `${field} must be a non-empty string`);
  }
  if (d.endpoint !== undefined && (typeof d.endpoint !== 'string' || !/^https?:\/\//.test(d.endpoint)))
    fail(where, 'endpoint must be an http(s) URL');
  for (const field of ['usersTable', 'signInTable'] as const) {
    const table = d[field] as Record<string, unknown> | null;
    if (typeof table?.name !== 'string' || table.name === '' || typeof table.arn !== 'string' || table.arn === '')
      fail(where, `${field} must be { name, arn }`);
  }
  const policy = d.passwordPolicy as Record<string, unknown> | null;
  if (!Number.isInteger(policy?.minLength) || !Number.isInteger(policy?.maxLength))
    fail(where, 'passwordPolicy must be { minLength, maxLength } (integers)');
  const breach = d.breachCheck as Record<string, unknown> | null | undefined;
  if (breach !== null && (typeof breach?.pwnedPasswordsUrl !== 'string' || !/^https?:\/\//.test(breach.pwnedPasswordsUrl)))
    fail(where, 'breachCheck must be null or { pwnedPasswordsUrl }');
  const owner = d.developmentOwner as Record<string, unknown> | undefined;
  if (owner !== undefined && (typeof owner?.email !== 'string' || typeof owner.ownerId !== 'string'))
    fail(where, 'developmentOwner must be { email, ownerId }');
  return d as unknown as SignInDescriptor;
}

/** A source that reads with `read` and caches for `maxAgeSeconds`, keeping the last good value when a re-read fails. */
function cachedSource(description: string, read: () => Promise<SignInDescriptor>, options: LoaderOptions = {}): DescriptorSource {
  const maxAgeMs = (options.maxAgeSeconds ?? 60) * 1000;
  if (!Number.isFinite(maxAgeMs) || maxAgeMs < 0) throw new TypeError('maxAgeSeconds must be a number, 0 or more');
  const now = options.now ?? Date.now;
  let last: { value: SignInDescriptor; at: number } | undefined;
  let reading: Promise<SignInDescriptor> | undefined;
  return {
    description,
    load() {
      if (last && now() - last.at < maxAgeMs) return Promise.resolve(last.value);
      reading ??= read()
        .then((value) => {
          last = { value, at: now() };
          return value;
        })
        .catch((error: unknown) => {
          if (last) {
            // Keep serving the last good descriptor; try again on the next call.
            last = { value: last.value, at: now() - maxAgeMs };
            return last.value;
          }
          throw error;
        })
        .finally(() => {
          reading = undefined;
        });
      return reading;
    },
  };
}

/**
 * The descriptor in a file: the one `npm start` writes (`.data/sign-in.json` in the service's folder),
 * or a copy a deployment puts beside the tool.
 */
export function descriptorFromFile(path: string, options?: LoaderOptions): DescriptorSource {
  return cachedSource(
    path,
    async () => {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new Error(
          code === 'ENOENT'
            ? `sign-in descriptor ${path}: no such file (npm start writes it on start-up)`
            : `sign-in descriptor ${path}: cannot read it (${code ?? (error as Error).name})`,
        );
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new Error(`sign-in descriptor ${path}: not JSON`);
      }
      return parseDescriptor(json, path);
    },
    options,
  );
}

export interface SsmLoaderOptions extends LoaderOptions {
  /** The parameter's Region (the stack output `SignInDescriptorParameter` names it in its ARN). @default the AWS SDK's default Region */
  readonly region?: string;
  /** Credentials for the read, e.g. a role in the stage's account assumed from another account (`fromTemporaryCredentials`). @default the AWS SDK's defaults */
  readonly credentials?: DynamoDBClientConfig['credentials'];
}

/**
 * The descriptor the stack publishes: the SSM parameter named by the stack output
 * `SignInDescriptorParameter` (its name, or its ARN from another account). `grantSignIn` lets the
 * tool's role read it.
 */
export function descriptorFromSsm(parameter: string, options: SsmLoaderOptions = {}): DescriptorSource {
  if (typeof parameter !== 'string' || parameter === '') throw new TypeError('descriptorFromSsm: parameter must be a name or an ARN');
  let client: { send(command: object): Promise<{ Parameter?: { Value?: string } }> } | undefined;
  let command: ((name: string) => object) | undefined;
  return cachedSource(
    parameter,
    async () => {
      if (!client || !command) {
        // An optional peer dependency: only a tool that reads a deployed stage's parameter installs it.
        let ssm: typeof import('@aws-sdk/client-ssm');
        try {
          ssm = await import('@aws-sdk/client-ssm');
        } catch {
          throw new Error("descriptorFromSsm needs the AWS SDK's SSM client: npm install @aws-sdk/client-ssm");
        }
        client = new ssm.SSMClient({
          maxAttempts: 3,
          ...(options.region && { region: options.region }),
          ...(options.credentials && { credentials: options.credentials }),
        }) as unknown as typeof client;
        const { GetParameterCommand } = ssm;
        command = (Name) => new GetParameterCommand({ Name });
      }
      const answer = await client!.send(command(parameter));
      let json: unknown;
      try {
        json = JSON.parse(answer.Parameter?.Value ?? '');
      } catch {
        throw new Error(`sign-in descriptor ${parameter}: the parameter's value is not JSON`);
      }
      return parseDescriptor(json, parameter);
    },
    options,
  );
}

/** A fixed descriptor value (already read, e.g. from the tool's own configuration): never re-read. */
export function descriptorValue(value: unknown): DescriptorSource {
  const descriptor = parseDescriptor(value);
  return { description: '(value)', load: () => Promise.resolve(descriptor) };
}

/** Static dummy credentials are supplied only for an endpoint on this machine (DynamoDB Local). */
export function isLoopbackEndpoint(endpoint: string): boolean {
  let host: string;
  try {
    host = new URL(endpoint).hostname;
  } catch {
    return false;
  }
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host === '::1';
}
