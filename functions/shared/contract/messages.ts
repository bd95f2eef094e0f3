/**
 * The messages every operation shares, byte for byte as docs/api-contract.md lists them; the
 * messages only one operation answers are in its module (operations/<name>.ts).
 */

import type { PasswordPolicy } from '#platform/config';

export const MESSAGES = {
  notFound: 'Not Found',
  methodNotAllowed: 'Method Not Allowed',
  tooManyRequests: 'Too Many Requests',
  unauthorized: 'Unauthorized: Invalid or unauthorized API key.',
  noOwner: 'No white label user found for api key',
  bodyTooLarge: 'Request body too large.',
  unsupportedMediaType: 'Content-Type must be application/json.',
  notAnObject: 'Request body must be a JSON object.',
  invalidUtf8: 'Request body must be valid UTF-8 JSON.',
  /**
   * The local server's answers to what is not an API request at all (a deployed stage's are API Gateway's):
   * what Node's HTTP parser refuses, no Host header or two, CONNECT; a header section over Node's limit;
   * an `Expect` other than `100-continue`.
   */
  badRequest: 'Bad Request',
  headersTooLarge: 'Request Header Fields Too Large',
  expectationFailed: 'Expectation Failed',
  missingParameters: 'Missing required parameters.',
  userEmailMissing: 'user_email is missing',
  userEmailInvalid: 'user_email is invalid.',
  shouldResetInvalid: 'should_reset_password must be "true" or "false".',
  userNotFound: 'User not found.',
  idempotencyKeyInvalid: 'Idempotency-Key is invalid.',
  idempotencyKeyReused: 'Idempotency-Key was already used with a different request.',
  idempotencyInProgress: 'A request with this Idempotency-Key is still being processed.',
} as const;

/** The most code points of a member name a message echoes; a longer name is cut there and `…` follows. */
export const ECHOED_NAME_CODE_POINTS = 64;

/** A member name as a message echoes it: its first 64 code points, then `…` when it is longer. */
export function echoedName(name: string): string {
  let end = 0;
  let count = 0;
  for (const character of name) {
    if (count === ECHOED_NAME_CODE_POINTS) return `${name.slice(0, end)}\u2026`;
    end += character.length;
    count++;
  }
  return name;
}

/** `Unknown parameter: <name>.` */
export const unknownParameter = (name: string) => `Unknown parameter: ${echoedName(name)}.`;

/** `Duplicate parameter: <name>.`: the body's object names a member twice (the first such name in the body's order). */
export const duplicateParameter = (name: string) => `Duplicate parameter: ${echoedName(name)}.`;

/** `<field> must be between <min> and <max> characters.` for the deployment's password policy. */
export const passwordOutOfPolicy = (field: string, policy: PasswordPolicy) =>
  `${field} must be between ${policy.minLength} and ${policy.maxLength} characters.`;

/** `<field> is too easy to guess: choose another.`: on the blocklist, the user's e-mail or its local part, an owner's blocked word, or a derivative of a context word. */
export const passwordGuessable = (field: string) => `${field} is too easy to guess: choose another.`;

/** `<field> has appeared in a data breach: choose another.`: found by the online check. */
export const passwordBreached = (field: string) => `${field} has appeared in a data breach: choose another.`;
