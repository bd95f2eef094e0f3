/** The admin CLI's key commands: every argument and option is checked before anything is read or written. */

import { describe, expect, it } from '@jest/globals';
import { parseKeyCommand, UsageError } from '../../admin/key-commands';

const NOW = Date.parse('2026-06-15T12:00:00Z');
const parse = (positionals: string[], options: Record<string, string> = {}) => parseKeyCommand(positionals, options, NOW);
const scopeOf = (positionals: string[], options: Record<string, string>) => {
  const command = parse(positionals, options);
  return 'scope' in command ? command.scope : undefined;
};
const refusal = (positionals: string[], options: Record<string, string> = {}) => {
  try {
    parse(positionals, options);
    return 'accepted';
  } catch (error) {
    return error instanceof UsageError ? error.message : `not a UsageError: ${String(error)}`;
  }
};

describe('parseKeyCommand', () => {
  it('accepts the five commands; no options means every operation and no expiry', () => {
    expect(parse(['create-owner', 'Owner@Example.com '])).toEqual({ command: 'create-owner', email: 'Owner@Example.com ', scope: {} });
    expect(parse(['issue-key', 'owner@example.com'])).toEqual({ command: 'issue-key', email: 'owner@example.com', scope: {} });
    expect(parse(['list-keys', 'owner@example.com'])).toEqual({ command: 'list-keys', email: 'owner@example.com' });
    expect(parse(['revoke-key', 'key_0123456789abcdef'])).toEqual({ command: 'revoke-key', keyId: 'key_0123456789abcdef' });
    expect(parse(['reset-owner-password', 'owner@example.com'])).toEqual({ command: 'reset-owner-password', email: 'owner@example.com' });
  });

  it('reads --operations, --expires-in and --expires-at into the scope', () => {
    expect(scopeOf(['issue-key', 'o@example.com'], { operations: 'deleteUser, createUser' })).toEqual({
      operations: ['deleteUser', 'createUser'],
    });
    expect(scopeOf(['issue-key', 'o@example.com'], { 'expires-in': '90d' })).toEqual({ expiresAt: '2026-09-13T12:00:00.000Z' });
    for (const [text, expected] of [
      ['2027-01-31', '2027-01-31T00:00:00.000Z'],
      ['2027-01-31T12:30Z', '2027-01-31T12:30:00.000Z'],
      ['2027-01-31T12:30:15+02:00', '2027-01-31T10:30:15.000Z'],
      ['2027-01-31T12:30:15.250-05:30', '2027-01-31T18:00:15.250Z'],
      ['2028-02-29', '2028-02-29T00:00:00.000Z'],
    ]) {
      expect([text, scopeOf(['create-owner', 'o@example.com'], { 'expires-at': text! })]).toEqual([text, { expiresAt: expected }]);
    }
  });

  it.each([
    [[], {}, /^No command given/],
    [['frobnicate', 'x'], {}, /^Unknown command "frobnicate"/],
    [['issue-key'], {}, /^issue-key needs <email>/],
    [['revoke-key'], {}, /^revoke-key needs <key-id>/],
    [['reset-owner-password'], {}, /^reset-owner-password needs <email>/],
    [['reset-owner-password', 'o@example.com'], { 'expires-in': '9d' }, /^--expires-in applies only to create-owner and issue-key$/],
    [['issue-key', 'o@example.com', 'extra'], {}, /takes one argument/],
    [['issue-key', 'not-an-email'], {}, /^Invalid e-mail address "not-an-email"/],
    [['create-owner', 'a@b@example.com'], {}, /^Invalid e-mail/],
    [['create-owner', ''], {}, /^Invalid e-mail/],
    [['list-keys', `${'x'.repeat(250)}@example.com`], {}, /^Invalid e-mail/],
    [['create-owner', 'line\nbreak@example.com'], {}, /^Invalid e-mail address "line\\nbreak@example.com"$/],
    [['revoke-key', 'key_xyz'], {}, /^Invalid key id/],
    [['issue-key', 'o@example.com'], { operations: 'createUser,dropTable' }, /^Unknown operation "dropTable"/],
    [['issue-key', 'o@example.com'], { operations: 'createuser' }, /^Unknown operation "createuser"/],
    [['issue-key', 'o@example.com'], { operations: '' }, /^Unknown operation ""/],
    [['issue-key', 'o@example.com'], { operations: 'createUser,,deleteUser' }, /^Unknown operation ""/],
    [['issue-key', 'o@example.com'], { 'expires-in': '30' }, /^--expires-in must be a number of days/],
    [['issue-key', 'o@example.com'], { 'expires-in': '0d' }, /^--expires-in/],
    [['issue-key', 'o@example.com'], { 'expires-in': '-3d' }, /^--expires-in/],
    [['issue-key', 'o@example.com'], { 'expires-in': '36501d' }, /^--expires-in/],
    [['issue-key', 'o@example.com'], { 'expires-in': '1.5d' }, /^--expires-in/],
    [['issue-key', 'o@example.com'], { 'expires-at': '2026-06-15T12:00:00Z' }, /is not in the future$/],
    [['issue-key', 'o@example.com'], { 'expires-at': '2020-01-01' }, /is not in the future$/],
    [['issue-key', 'o@example.com'], { 'expires-at': '2027-02-29' }, /ISO-8601/],
    [['issue-key', 'o@example.com'], { 'expires-at': '2027-13-01' }, /ISO-8601/],
    [['issue-key', 'o@example.com'], { 'expires-at': '2027-01-01T24:00Z' }, /ISO-8601/],
    [['issue-key', 'o@example.com'], { 'expires-at': '2027-01-01T10:00' }, /ISO-8601/],
    [['issue-key', 'o@example.com'], { 'expires-at': '2027-01-01 10:00Z' }, /ISO-8601/],
    [['issue-key', 'o@example.com'], { 'expires-at': 'tomorrow' }, /ISO-8601/],
    [['issue-key', 'o@example.com'], { 'expires-at': '1767225600000' }, /ISO-8601/],
    [['issue-key', 'o@example.com'], { 'expires-in': '1d', 'expires-at': '2099-01-01' }, /not both/],
    [['list-keys', 'o@example.com'], { operations: 'createUser' }, /^--operations applies only to create-owner and issue-key$/],
    [['revoke-key', 'key_0123456789abcdef'], { 'expires-in': '1d' }, /^--expires-in applies only/],
  ] as [string[], Record<string, string>, RegExp][])('%j %j: %s', (positionals, options, pattern) => {
    expect(refusal(positionals, options)).toMatch(pattern);
  });
});
