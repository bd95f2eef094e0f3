/**
 * Whether the password lists refuse a field of a body: the shipped blocklist, the user's e-mail, its
 * local part, and derivatives of the e-mail's context words, in comparison form
 * (domain/password-policy.ts). No JSON Schema can state them, so properties that hold the service's
 * validation to a schema leave such bodies out. fast-check draws them more often than chance would:
 * "prototype" and "arguments", on the list, are among its biased strings.
 */

import { checkPassword } from '#domain/password-policy';

export function refusedByLists(fields: readonly string[], body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const record = body as Record<string, unknown>;
  const email = typeof record.user_email === 'string' ? record.user_email : undefined;
  const limits = { minLength: 0, maxLength: Number.MAX_SAFE_INTEGER };
  return fields.some((field) => {
    const value = record[field];
    return typeof value === 'string' && checkPassword(value, { limits, email }) === 'guessable';
  });
}
