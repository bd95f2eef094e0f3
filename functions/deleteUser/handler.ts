import * as compiled from '#contract/generated/validators/deleteUser';
import { MESSAGES } from '#contract/messages';
import { deleteUser as contract } from '#contract/operations/deleteUser';
import { type DeleteUserInput, deleteUser } from '#domain/users';
import { ApiError } from '#http/errors';
import { operation } from '#http/pipeline';
import { jsonResponse } from '#http/responses';

export const handler = operation<DeleteUserInput>({
  contract,
  compiled,
  run: async ({ body, owner, stores }) => {
    const outcome = await deleteUser(stores.users, owner, body);
    if (outcome === 'not_found') throw new ApiError(404, MESSAGES.userNotFound);
    if (outcome === 'white_label') throw new ApiError(403, contract.messages.deleteWhiteLabel);
    return jsonResponse(200, { message: contract.messages.userDeleted });
  },
});
