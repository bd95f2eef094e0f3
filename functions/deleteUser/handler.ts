import { ApiError } from '#shared/errors';
import { MESSAGES } from '#shared/messages';
import { operation } from '#shared/pipeline';
import { jsonResponse } from '#shared/responses';
import { type DeleteUserInput, deleteUser } from '#shared/users';

export const handler = operation<DeleteUserInput>({
  name: 'deleteUser',
  failureMessage: MESSAGES.deleteFailed,
  run: async ({ body, owner, repository }) => {
    const outcome = await deleteUser(repository, owner, body);
    if (outcome === 'not_found') throw new ApiError(404, MESSAGES.userNotFound);
    if (outcome === 'white_label') throw new ApiError(403, MESSAGES.deleteWhiteLabel);
    return jsonResponse(200, { message: MESSAGES.userDeleted });
  },
});
