/** deleteUser: one of the caller's users removed, with everything kept about it. */

import {
  defineOperation,
  EXAMPLE_OWNER_EMAIL,
  EXAMPLE_USER_EMAIL,
  GIVEN_USER_EXISTS,
  notFoundCase,
  whiteLabelCase,
} from '../define-operation';
import { MESSAGES } from '../messages';
import { row, USER_EMAIL_BODY, unknownRow } from '../schemas';

const messages = {
  userDeleted: 'User and all associated data deleted successfully.',
  deleteWhiteLabel: 'Unauthorized: Cannot delete a white label user.',
  deleteFailed: 'Failed to delete user and associated data.',
} as const;

const validBody = { user_email: EXAMPLE_USER_EMAIL };

export const deleteUser = defineOperation({
  name: 'deleteUser',
  entry: {
    failureMessage: messages.deleteFailed,
    successOutcome: 'deleted',
    // A large item collection takes several batch rounds.
    timeoutSeconds: 25,
    usersTableActions: ['Query', 'BatchWriteItem', 'DeleteItem'],
    // One Query of the user's partition of the sign-in table, then BatchWriteItem of what it found.
    signInTableActions: ['Query', 'BatchWriteItem'],
    memoryMb: 1536,
    summary: 'Delete a user',
    description:
      "Deletes a user from the caller's white-label tool, together with all data associated with that user. No notification is sent to the user. " +
      'A delete that fails half way leaves the user in place, so a retry finishes the job.',
  },
  shape: USER_EMAIL_BODY,
  policyFields: [],
  rows: () => [
    row(['user_email'], ['missing'], MESSAGES.missingParameters),
    unknownRow,
    row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
  ],
  messages,
  docs: {
    validBody,
    success: {
      name: 'deleted',
      status: 200,
      summary: 'User and all associated data deleted',
      given: GIVEN_USER_EXISTS,
      request: validBody,
      response: { message: messages.userDeleted },
    },
    refusals: [
      whiteLabelCase(messages.deleteWhiteLabel, { user_email: EXAMPLE_OWNER_EMAIL }),
      notFoundCase(MESSAGES.userNotFound, validBody),
    ],
  },
});
