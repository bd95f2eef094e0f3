import { describe, expect, it } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
import type { OperationName } from '#contract/operations';
import { validationStep } from '../support/validation';

const policy = { minLength: 8, maxLength: 1024 };

/** Runs a body through the operation's validation step; returns the 400 message, or the normalised body. */
function check(operation: OperationName, body: Record<string, unknown>): string | Record<string, unknown> {
  const middleware = validationStep(operation, policy);
  const event = { body: structuredClone(body) };
  try {
    (middleware.before as (r: unknown) => void)({ event });
    return event.body;
  } catch (error) {
    const { statusCode, message } = error as { statusCode: number; message: string };
    // A refusal that is not a 400 comes back with its status, so it never equals the message a test expects.
    return statusCode === 400 ? message : `${statusCode}: ${message}`;
  }
}

const PASSWORD_MESSAGE = 'user_password must be between 8 and 1024 characters.';
const NEW_PASSWORD_MESSAGE = 'new_password must be between 8 and 1024 characters.';

describe('createUser schema', () => {
  it.each([
    ['absent e-mail', {}, MESSAGES.userEmailMissing],
    ['null e-mail', { user_email: null }, MESSAGES.userEmailMissing],
    ['empty e-mail', { user_email: '' }, MESSAGES.userEmailMissing],
    ['blank e-mail', { user_email: '   ' }, MESSAGES.userEmailMissing],
    ['unknown field', { user_email: 'a@example.com', role: 'admin' }, 'Unknown parameter: role.'],
    ['__proto__ field', JSON.parse('{"user_email":"a@example.com","__proto__":{"x":1}}'), 'Unknown parameter: __proto__.'],
    ['e-mail of wrong type', { user_email: 42 }, MESSAGES.userEmailInvalid],
    ['e-mail object', { user_email: { a: 1 } }, MESSAGES.userEmailInvalid],
    ['not an e-mail', { user_email: 'bob' }, MESSAGES.userEmailInvalid],
    ['e-mail over 254 characters', { user_email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` }, MESSAGES.userEmailInvalid],
    ['password not a string', { user_email: 'a@example.com', user_password: 12345678 }, PASSWORD_MESSAGE],
    ['password too short', { user_email: 'a@example.com', user_password: 'short' }, PASSWORD_MESSAGE],
    ['password empty', { user_email: 'a@example.com', user_password: '' }, PASSWORD_MESSAGE],
    ['password null', { user_email: 'a@example.com', user_password: null }, PASSWORD_MESSAGE],
    ['password too long', { user_email: 'a@example.com', user_password: 'x'.repeat(1025) }, PASSWORD_MESSAGE],
    ['should_reset_password word', { user_email: 'a@example.com', should_reset_password: 'yes' }, MESSAGES.shouldResetInvalid],
    ['should_reset_password upper case', { user_email: 'a@example.com', should_reset_password: 'TRUE' }, MESSAGES.shouldResetInvalid],
    ['should_reset_password number', { user_email: 'a@example.com', should_reset_password: 1 }, MESSAGES.shouldResetInvalid],
    ['should_reset_password null', { user_email: 'a@example.com', should_reset_password: null }, MESSAGES.shouldResetInvalid],
  ])('%s', (_, body, message) => {
    expect(check('createUser', body)).toBe(message);
  });

  it.each([
    ['missing e-mail beats an unknown field', { role: 'x' }, MESSAGES.userEmailMissing],
    ['unknown field beats an invalid e-mail', { user_email: 'bob', role: 'x' }, 'Unknown parameter: role.'],
    ['invalid e-mail beats a bad password', { user_email: 'bob', user_password: 1 }, MESSAGES.userEmailInvalid],
    [
      'bad password beats bad should_reset_password',
      { user_email: 'a@example.com', user_password: 1, should_reset_password: 'no' },
      PASSWORD_MESSAGE,
    ],
  ])('first row wins: %s', (_, body, message) => {
    expect(check('createUser', body)).toBe(message);
  });

  it('accepts the four should_reset_password values and a password at the policy bounds', () => {
    for (const value of ['true', 'false', true, false]) {
      expect(check('createUser', { user_email: 'a@example.com', should_reset_password: value })).toEqual({
        user_email: 'a@example.com',
        should_reset_password: value,
      });
    }
    expect(
      typeof check('createUser', { user_email: 'a@example.com', user_password: 'kq7#vZ2p' /* 8, not on the blocklist ('xxxxxxxx' is) */ }),
    ).toBe('object');
    expect(typeof check('createUser', { user_email: 'a@example.com', user_password: 'x'.repeat(1024) })).toBe('object');
  });

  it('normalises the e-mail it validates', () => {
    expect(check('createUser', { user_email: '  Bob@Example.COM ' })).toEqual({ user_email: 'bob@example.com' });
  });

  it('counts password length in characters, not bytes', () => {
    expect(typeof check('createUser', { user_email: 'a@example.com', user_password: '🔐'.repeat(8) })).toBe('object');
  });
});

describe('resetUserPassword schema', () => {
  it.each([
    ['absent fields', {}, MESSAGES.missingParameters],
    ['absent password', { user_email: 'a@example.com' }, MESSAGES.missingParameters],
    ['null password', { user_email: 'a@example.com', new_password: null }, MESSAGES.missingParameters],
    ['empty password', { user_email: 'a@example.com', new_password: '' }, MESSAGES.missingParameters],
    ['empty e-mail', { user_email: '', new_password: 'long enough' }, MESSAGES.missingParameters],
    ['missing beats unknown', { new_password: 'long enough', extra: 1 }, MESSAGES.missingParameters],
    ['unknown field', { user_email: 'a@example.com', new_password: 'long enough', extra: 1 }, 'Unknown parameter: extra.'],
    ['invalid e-mail', { user_email: 'nope', new_password: 'long enough' }, MESSAGES.userEmailInvalid],
    ['invalid e-mail beats short password', { user_email: 'nope', new_password: 'short' }, MESSAGES.userEmailInvalid],
    ['short password', { user_email: 'a@example.com', new_password: 'short' }, NEW_PASSWORD_MESSAGE],
    ['password not a string', { user_email: 'a@example.com', new_password: ['long enough'] }, NEW_PASSWORD_MESSAGE],
    ['blank password is a password, too short', { user_email: 'a@example.com', new_password: '   ' }, NEW_PASSWORD_MESSAGE],
  ])('%s', (_, body, message) => {
    expect(check('resetUserPassword', body)).toBe(message);
  });
});

describe('deleteUser schema', () => {
  it.each([
    ['absent e-mail', {}, MESSAGES.missingParameters],
    ['null e-mail', { user_email: null }, MESSAGES.missingParameters],
    ['unknown field', { user_email: 'a@example.com', cascade: true }, 'Unknown parameter: cascade.'],
    ['invalid e-mail', { user_email: 'a@' }, MESSAGES.userEmailInvalid],
  ])('%s', (_, body, message) => {
    expect(check('deleteUser', body)).toBe(message);
  });
});

describe('password policy', () => {
  it('is configurable per deployment and named in the message', () => {
    const middleware = validationStep('resetUserPassword', { minLength: 12, maxLength: 64 });
    expect(() =>
      (middleware.before as (r: unknown) => void)({ event: { body: { user_email: 'a@example.com', new_password: 'elevenchars' } } }),
    ).toThrow('new_password must be between 12 and 64 characters.');
  });
});
