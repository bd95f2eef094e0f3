/** resetUserPassword: a new password for one of the caller's users. */

import {
  defineOperation,
  EXAMPLE_OWNER_EMAIL,
  EXAMPLE_USER_EMAIL,
  GIVEN_USER_EXISTS,
  notFoundCase,
  whiteLabelCase,
} from '../define-operation';
import { MESSAGES } from '../messages';
import { body, email, password, passwordRows, row, unknownRow } from '../schemas';

const messages = {
  passwordReset: 'Password reset successfully.',
  resetWhiteLabel: 'Unauthorized: Cannot reset password for a white label user.',
  resetFailed: 'Failed to reset password.',
} as const;

const validBody = { user_email: EXAMPLE_USER_EMAIL, new_password: 'a brand new passphrase' };

export const resetUserPassword = defineOperation({
  name: 'resetUserPassword',
  entry: {
    failureMessage: messages.resetFailed,
    successOutcome: 'reset',
    timeoutSeconds: 10,
    usersTableActions: ['UpdateItem'],
    memoryMb: 1769,
    summary: 'Reset a user password',
    description:
      'Sets a new password for the specified user. No notification is sent to the user. `should_reset_password` is left as it was.',
  },
  shape: body({ user_email: email, new_password: password }, ['user_email', 'new_password']),
  policyFields: ['new_password'],
  rows: (policy) => [
    row(['user_email', 'new_password'], ['missing'], MESSAGES.missingParameters),
    unknownRow,
    row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
    ...passwordRows('new_password', policy),
  ],
  messages,
  docs: {
    validBody,
    success: {
      name: 'passwordReset',
      status: 200,
      summary: 'Password reset',
      given: GIVEN_USER_EXISTS,
      request: validBody,
      response: { message: messages.passwordReset },
    },
    refusals: [
      whiteLabelCase(messages.resetWhiteLabel, { ...validBody, user_email: EXAMPLE_OWNER_EMAIL }),
      notFoundCase(MESSAGES.userNotFound, validBody),
    ],
  },
});
