/** createUser: a new user in the caller's tool, with the password sent or one generated. */

import { defineOperation, EXAMPLE_USER_EMAIL, GIVEN_USER_EXISTS } from '../define-operation';
import { MESSAGES } from '../messages';
import { body, email, password, passwordRows, row, unknownRow } from '../schemas';

const messages = {
  userExists: 'User already exists.',
  createFailed: 'Failed to create user',
} as const;

const validBody = { user_email: EXAMPLE_USER_EMAIL, user_password: 'correct horse battery staple' };

export const createUser = defineOperation({
  name: 'createUser',
  entry: {
    failureMessage: messages.createFailed,
    successOutcome: 'created',
    timeoutSeconds: 10,
    usersTableActions: ['PutItem'],
    memoryMb: 1769,
    summary: 'Create a user',
    description:
      "Creates a new user in the caller's white-label tool. No notification is sent to the new user. " +
      "When `user_password` is absent the service generates one (24 characters; as many as the policy's minimum when that is higher, never more than its maximum) and returns it: the only time the caller sees it.",
  },
  shape: body(
    {
      user_email: email,
      user_password: password,
      should_reset_password: { enum: ['true', 'false', true, false] },
    },
    ['user_email'],
  ),
  policyFields: ['user_password'],
  rows: (policy) => [
    row(['user_email'], ['missing'], MESSAGES.userEmailMissing),
    unknownRow,
    row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
    ...passwordRows('user_password', policy, ['missing', 'invalid']),
    row(['should_reset_password'], ['missing', 'invalid'], MESSAGES.shouldResetInvalid),
  ],
  messages,
  docs: {
    validBody,
    success: {
      name: 'created',
      status: 200,
      summary: 'Created; the e-mail comes back trimmed and lower-cased, with the password that was set',
      request: { user_email: ' Jane@Example.com', user_password: 'correct horse battery staple', should_reset_password: 'false' },
      response: { user_email: EXAMPLE_USER_EMAIL, user_password: 'correct horse battery staple' },
    },
    refusals: [
      {
        name: 'userExists',
        status: 409,
        summary: "The e-mail already exists in the caller's tool (the caller's own e-mail included)",
        given: GIVEN_USER_EXISTS,
        request: validBody,
        response: { message: messages.userExists },
      },
    ],
    successSchema: {
      name: 'CreatedUser',
      schema: {
        type: 'object',
        required: ['user_email', 'user_password'],
        properties: {
          user_email: { type: 'string', format: 'email', description: 'The e-mail as stored: trimmed and lower-cased.' },
          user_password: { type: 'string', description: 'The password that was set (the generated one when none was sent).' },
        },
        additionalProperties: false,
      },
    },
  },
});
