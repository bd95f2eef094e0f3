import { MESSAGES } from '#contract/messages';
import { type DeleteUserInput, deleteUser } from '#domain/users';
import { ApiError } from '#http/errors';
import { operation } from '#http/pipeline';
import { jsonResponse } from '#http/responses';

export const handler = operation<DeleteUserInput>({
  name: 'deleteUser',
  run: async ({ body, owner, stores }) => {
    const outcome = await deleteUser(stores.users, owner, body);
    if (outcome === 'not_found') throw new ApiError(404, MESSAGES.userNotFound);
    if (outcome === 'white_label') throw new ApiError(403, MESSAGES.deleteWhiteLabel);
    return jsonResponse(200, { message: MESSAGES.userDeleted });
  },
});
