/**
 * The sign-in's outcomes without their device cookie and session, for the tests of what came before trusted
 * devices and sessions: each result is checked to carry a cookie and its expiry exactly when it is a success
 * (`ok`, `must-reset`, `changed`) and a session exactly when it starts one (`ok`, `changed`), then compared
 * without them.
 */

const ISSUING = new Set(['ok', 'must-reset', 'changed']);
const STARTING = new Set(['ok', 'changed']);

/** A result without its cookie, outcome by outcome (an Omit over the whole union would keep only the common fields). */
export type WithoutCookie<T> = T extends unknown ? Omit<T, 'deviceCookie' | 'deviceCookieExpiresAt' | 'session'> : never;

export function withoutCookie<T extends { readonly outcome: string }>(result: T): WithoutCookie<T> {
  const { deviceCookie, deviceCookieExpiresAt, session, ...rest } = result as T & {
    deviceCookie?: unknown;
    deviceCookieExpiresAt?: unknown;
    session?: unknown;
  };
  const carries = typeof deviceCookie === 'string' && typeof deviceCookieExpiresAt === 'string';
  if (carries !== ISSUING.has(result.outcome))
    throw new Error(`a device cookie ${carries ? 'on' : 'missing from'} ${JSON.stringify(result)}`);
  if ((typeof session === 'string') !== STARTING.has(result.outcome))
    throw new Error(`a session ${typeof session === 'string' ? 'on' : 'missing from'} ${JSON.stringify(result)}`);
  return rest as WithoutCookie<T>;
}

/** A sign-in (the package's or the domain's) whose signIn and changePassword answer {@link withoutCookie}. */
export function plainOutcomes<
  S extends { signIn(r: never): Promise<{ outcome: string }>; changePassword(r: never): Promise<{ outcome: string }> },
>(tool: S): S {
  return new Proxy(tool, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'signIn' && property !== 'changePassword') return value;
      return async (request: never) => withoutCookie(await (value as (r: never) => Promise<{ outcome: string }>).call(target, request));
    },
  });
}
