/** The contract as an oracle: every status and message an operation may answer with. */

import { expect } from '@jest/globals';
import { echoedName } from '#contract/messages';
import { DEFINITIONS, ALL_MESSAGES as MESSAGES, OPERATIONS, type OperationName } from '#contract/operations';
import type { PasswordPolicy } from '#platform/config';
import { duplicateName } from '#platform/json-names';

export { OPERATIONS };
export type Operation = OperationName;

/** Every fixed message an operation may answer with (other than `Unknown parameter: <name>.` and `Duplicate parameter: <name>.`), with its status. */
export function contractMessages(operation: Operation, policy: PasswordPolicy): Map<string, number> {
  const common: [string, number][] = [
    [MESSAGES.unauthorized, 401],
    [MESSAGES.noOwner, 403],
    [MESSAGES.bodyTooLarge, 413],
    [MESSAGES.unsupportedMediaType, 415],
    [MESSAGES.notAnObject, 400],
    [MESSAGES.invalidUtf8, 400],
    [MESSAGES.userEmailInvalid, 400],
  ];
  // The operation's own, from its module: each validation row's message (400), its refusals and its success.
  const { rows, docs } = DEFINITIONS[operation];
  const own: [string, number][] = [
    ...rows(policy)
      .filter((row) => row.fields !== '*')
      .map((row): [string, number] => [row.message(row.fields[0]!), 400]),
    ...[...docs.refusals, docs.success]
      .filter((c) => typeof c.response.message === 'string')
      .map((c): [string, number] => [c.response.message as string, c.status]),
  ];
  return new Map([...common, ...own]);
}

/** Text no response may contain: hashes, API keys, stack frames, internal error names. */
export const LEAK_PATTERNS: readonly RegExp[] = [
  /\$argon2/i,
  /wlk_[A-Za-z0-9_-]{8}/,
  /\n\s+at /,
  /\bat .*\.(ts|js):\d+/,
  /Exception|TypeError|ReferenceError|RangeError|SyntaxError|ECONN|ETIMEDOUT|DynamoDB|middy|undefined/,
];

/**
 * Fails unless the response is one the contract allows for this operation and
 * this request body (as the handler decoded it): never a 5xx, always JSON, an
 * error body exactly `{message}` with one of the operation's messages and its status.
 */
export function expectContractResponse(
  operation: Operation,
  policy: PasswordPolicy,
  response: { status: number; contentType: string | undefined; text: string },
  requestBody: string | null,
): void {
  const problem = contractProblem(operation, policy, response, requestBody);
  // Checked every call; the details are there only to show what went wrong.
  expect(
    problem && {
      problem,
      operation,
      status: response.status,
      response: response.text.slice(0, 300),
      request: requestBody?.slice(0, 300),
    },
  ).toBeUndefined();
}

function contractProblem(
  operation: Operation,
  policy: PasswordPolicy,
  response: { status: number; contentType: string | undefined; text: string },
  requestBody: string | null,
): string | undefined {
  if (response.status >= 500) return 'a 5xx';
  if (!/^application\/json\b/.test(response.contentType ?? '')) return 'not application/json';
  const body = parseObject(response.text);
  if (!body) return 'not a JSON object';
  const keys = Object.keys(body).join();
  if (operation === 'createUser' && response.status === 200) {
    return keys === 'user_email,user_password' && typeof body.user_email === 'string' && typeof body.user_password === 'string'
      ? undefined
      : 'not a created user';
  }
  if (keys !== 'message' || typeof body.message !== 'string') return 'not exactly {message}';
  const status = contractMessages(operation, policy).get(body.message);
  if (status !== undefined) return status === response.status ? undefined : 'a contract message with the wrong status';
  const named = /^(Unknown|Duplicate) parameter: ([\s\S]*)\.$/.exec(body.message);
  if (!named || response.status !== 400) return 'not a contract message';
  const sent = parseObject(requestBody ?? '');
  if (named[1] === 'Duplicate') {
    const twice = sent && requestBody !== null ? duplicateName(requestBody) : undefined;
    return twice !== undefined && echoedName(twice) === named[2] ? undefined : 'names a duplicate the caller did not send';
  }
  return sent && Object.keys(sent).some((name) => echoedName(name) === named[2]) ? undefined : 'names a parameter the caller did not send';
}

const parseObject = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};
