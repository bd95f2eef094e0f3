/**
 * The sign-in module a tool's back end imports (`@white-label-user-management/sign-in`, Node.js 20+):
 * it checks a user's password against the profile the service stored, on the stage's users table,
 * and lets the user choose a new one. A thin entry: the rules are the domain's
 * (packages/sign-in/src/domain/sign-in.ts, sign-in-attempts.ts, change-password.ts; the same hash formats
 * and ceilings as the import, the same password policy as the API), the storage its DynamoDB adapter;
 * nothing of the Lambda pipeline comes with it. Its public types are declared beside it (types.ts), so the
 * built declarations stand alone.
 */

import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { normalizeEmail } from '@white-label-user-management/shared/domain/email';
import { DEFAULT_PASSWORD_POLICY, parseArgon2Setting, parseInteger } from '@white-label-user-management/shared/platform/config';
import { pwnedRangeCheck } from '@white-label-user-management/shared/platform/pwned-range';
import { isLoopbackEndpoint, type SignInDescriptor } from './descriptor.js';
import { changePassword as changePasswordRule } from './domain/change-password';
import { createCostlyLane } from './domain/costly-lane';
import { checkSession as checkSessionRule, SESSION_LIFETIME_HOURS } from './domain/sessions';
import { dummyHash, signIn as signInRule } from './domain/sign-in';
import { listDevices as listDevicesRule, revokeDevices as revokeDevicesRule } from './domain/sign-in-devices';
import { createSignInMemory } from './domain/sign-in-memory';
import {
  deviceCookieName as cookieName,
  DEVICE_COOKIE_DAYS,
  DEVICE_COOKIE_PREFIX,
  DEVICE_COOKIES_PER_BROWSER,
  DEVICE_FAILURE_LIMIT,
  MAX_DEVICES_PER_USER,
  ROTATION_GRACE_SECONDS,
} from './domain/trusted-devices';
import { createSignInStore } from './store/sign-in-store';
import type { DescriptorSignInOptions, SignIn, SignInOptions } from './types.js';

export {
  DESCRIPTOR_VERSION,
  type DescriptorSource,
  descriptorFromFile,
  descriptorFromSsm,
  descriptorValue,
  type LoaderOptions,
  parseDescriptor,
  type SignInDescriptor,
  type SsmLoaderOptions,
} from './descriptor.js';
export type {
  ChangePasswordRequest,
  ChangePasswordResult,
  DescriptorSignInOptions,
  IssuedDeviceCookie,
  IssuedSession,
  SessionRequest,
  SessionResult,
  SignIn,
  SignInOptions,
  SignInOutcome,
  SignInRequest,
  SignInResult,
  TrustedDevice,
  UserRequest,
} from './types.js';

/**
 * What a tool must add in front of the module: a limit per client address on sign-in and
 * change-password requests, since the module's limits are per e-mail and one address spraying a
 * common password over many e-mails meets none of them. At most `attempts` per `windowSeconds` per
 * address (AWS WAF's lowest rate-based limit, 10 per 60 s window, expresses it at the edge); raise it
 * for an address many users share (an office's NAT), and answer past it as `throttled` with the
 * window's rest.
 */
export const ADDRESS_LIMIT = { attempts: 10, windowSeconds: 60 } as const;

/**
 * Trusted devices: a browser that signed a user in holds a device cookie, and its attempts are counted
 * per cookie, so that a stranger's guesses never keep that user out (the waits and `locked` do not refuse
 * it). Keep the cookie as `Set-Cookie: <name>=<deviceCookie>; Expires=<deviceCookieExpiresAt>; Path=/;
 * Secure; HttpOnly; SameSite=Lax`, apart from the session, under {@link deviceCookieName}, at most
 * `perBrowser` of them (drop the least recently used), and pass it back on the next `signIn` and
 * `changePassword`.
 * - `days`: a cookie's lifetime after the success that issued it (every success issues a fresh one);
 * - `failureLimit`: a device's own consecutive failures after which it is no longer trusted (other devices'
 *   failures never count against it; only its own success clears them);
 * - `perUser`: device records kept per user, the least recently used deleted past it (untrusted attempts lock
 *   at 100 less `perUser` × `failureLimit`);
 * - `graceSeconds`: how long after a rotation the device's previous cookie is still accepted, once.
 */
export const DEVICE_COOKIE = {
  prefix: DEVICE_COOKIE_PREFIX,
  days: DEVICE_COOKIE_DAYS,
  perBrowser: DEVICE_COOKIES_PER_BROWSER,
  failureLimit: DEVICE_FAILURE_LIMIT,
  perUser: MAX_DEVICES_PER_USER,
  graceSeconds: ROTATION_GRACE_SECONDS,
} as const;

/**
 * Sessions: `ok` and `changed` carry `session`; {@link SignIn.checkSession} answers `ended` past
 * `lifetimeHours` after the sign-in that started it, whatever else happened.
 */
export const SESSION = { lifetimeHours: SESSION_LIFETIME_HOURS } as const;

/** The device cookie's name for one account of one owner's tool (`__Host-device-` and 16 characters that name neither). */
export const deviceCookieName = (ownerId: string, email: string): string => cookieName(ownerId, normalizeEmail(email));

function strings<K extends string>(request: unknown, method: string, fields: readonly K[], optional: readonly string[] = []): void {
  for (const field of fields) {
    if (typeof (request as Record<K, unknown> | null)?.[field] !== 'string') throw new TypeError(`${method}: ${field} must be a string`);
  }
  for (const field of optional) {
    const value = (request as Record<string, unknown>)[field];
    if (value !== undefined && typeof value !== 'string') throw new TypeError(`${method}: ${field} must be a string when given`);
  }
}

/** The explicit options a descriptor stands for. */
function optionsOf(descriptor: SignInDescriptor, dynamodb: DynamoDBClientConfig | undefined): SignInOptions {
  const local = descriptor.endpoint !== undefined && isLoopbackEndpoint(descriptor.endpoint);
  return {
    usersTable: descriptor.usersTable.name,
    signInTable: descriptor.signInTable.name,
    argon2Setting: descriptor.argon2Setting,
    passwordPolicy: descriptor.passwordPolicy,
    dynamodb: {
      region: descriptor.region,
      ...(descriptor.endpoint !== undefined && { endpoint: descriptor.endpoint }),
      // DynamoDB Local takes any credentials: no AWS variable is needed on a developer's machine.
      ...(local && { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
      ...dynamodb,
    },
    ...(descriptor.breachCheck && {
      breachCheck: pwnedRangeCheck(descriptor.breachCheck.pwnedPasswordsUrl, 1_000, () => undefined),
    }),
  };
}

/**
 * A sign-in for one stage. Build it once per process: from the stage's descriptor
 * (`{ descriptor: descriptorFromSsm(name) }`, re-read past its cache), or from explicit options.
 */
export function createSignIn(options: DescriptorSignInOptions | SignInOptions): SignIn {
  if (options !== null && typeof options === 'object' && 'descriptor' in options) return fromDescriptor(options);
  return fromOptions(options as SignInOptions);
}

function fromDescriptor(options: DescriptorSignInOptions): SignIn {
  const source = options.descriptor;
  if (typeof source?.load !== 'function')
    throw new TypeError('createSignIn: descriptor must be a descriptor source (descriptorFromSsm, descriptorFromFile or descriptorValue)');
  let current: { descriptor: SignInDescriptor; key: string; signIn: SignIn } | undefined;
  const retired: SignIn[] = [];
  const lane = { ...options.costlyLane };
  async function instance(): Promise<SignIn> {
    const descriptor = await source.load();
    if (current?.descriptor === descriptor) return current.signIn;
    const key = JSON.stringify(descriptor);
    if (current?.key === key) {
      current = { ...current, descriptor };
      return current.signIn;
    }
    // A new or changed descriptor: a sign-in built from it; the one before closes once its calls end.
    const signIn = fromOptions({
      ...optionsOf(descriptor, options.dynamodb),
      costlyLane: lane,
      ...(options.now && { now: options.now }),
    });
    if (current) retired.push(current.signIn);
    current = { descriptor, key, signIn };
    return signIn;
  }
  return {
    async signIn(request) {
      return (await instance()).signIn(request);
    },
    async changePassword(request) {
      return (await instance()).changePassword(request);
    },
    async checkSession(request) {
      return (await instance()).checkSession(request);
    },
    async listDevices(request) {
      return (await instance()).listDevices(request);
    },
    async revokeDevices(request) {
      return (await instance()).revokeDevices(request);
    },
    async close() {
      await Promise.all([...retired.splice(0), ...(current ? [current.signIn] : [])].map((s) => s.close()));
      current = undefined;
    },
  };
}

/**
 * On Node.js 20 (past its end of life since April 2026; this package still runs there) the AWS SDK
 * prints an 8-line notice that its releases after January 2027 need Node.js 22. The package says so
 * in its README instead, and mutes the notice through the SDK's own switch, unless the process set it.
 */
function muteSdkNodeNotice(): void {
  if (Number(process.versions.node.split('.')[0]) < 22) process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

function fromOptions(options: SignInOptions): SignIn {
  for (const table of ['usersTable', 'signInTable'] as const) {
    if (typeof options?.[table] !== 'string' || options[table] === '') throw new TypeError(`createSignIn: ${table} must be a table name`);
  }
  if (options.usersTable === options.signInTable) throw new TypeError('createSignIn: signInTable must be another table than usersTable');
  const setting = parseArgon2Setting(options.argon2Setting, 'argon2Setting');
  const minLength = parseInteger(options.passwordPolicy?.minLength, DEFAULT_PASSWORD_POLICY.minLength, 1, 'passwordPolicy.minLength');
  const maxLength = parseInteger(
    options.passwordPolicy?.maxLength,
    DEFAULT_PASSWORD_POLICY.maxLength,
    minLength,
    'passwordPolicy.maxLength',
  );
  muteSdkNodeNotice();
  const client = new DynamoDBClient({ maxAttempts: 3, retryMode: 'standard', ...options.dynamodb });
  const store = createSignInStore(DynamoDBDocumentClient.from(client), {
    usersTable: options.usersTable,
    signInTable: options.signInTable,
  });
  const lane = createCostlyLane(options.costlyLane);
  const deps = {
    store,
    setting,
    lane,
    memory: createSignInMemory(setting),
    passwordPolicy: { minLength, maxLength },
    ...(options.now && { now: options.now }),
    ...(options.breachCheck && { breachCheck: options.breachCheck }),
  };
  void dummyHash(setting);
  return {
    async signIn(request) {
      // A deviceCookie of any type but a string (an object, as cookie parsers make of `j:` values) is no cookie: the rule sees to it.
      strings(request, 'signIn', ['ownerId', 'email', 'password']);
      return signInRule(deps, request as Parameters<typeof signInRule>[1]);
    },
    async changePassword(request) {
      strings(request, 'changePassword', ['ownerId', 'email', 'currentPassword', 'newPassword']);
      return changePasswordRule(deps, request as Parameters<typeof changePasswordRule>[1]);
    },
    async checkSession(request) {
      // A session of any type but a string is ended: the rule sees to it.
      strings(request, 'checkSession', ['ownerId', 'email']);
      return checkSessionRule(deps, request);
    },
    async listDevices(request) {
      strings(request, 'listDevices', ['ownerId', 'email']);
      return listDevicesRule(deps, request);
    },
    async revokeDevices(request) {
      strings(request, 'revokeDevices', ['ownerId', 'email'], ['deviceId']);
      return revokeDevicesRule(deps, request);
    },
    async close() {
      await lane.close();
      client.destroy();
    },
  };
}
