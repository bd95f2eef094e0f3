import * as compiled from '#contract/generated/validators/resetUserPassword';
import { MESSAGES } from '#contract/messages';
import { resetUserPassword as contract } from '#contract/operations/resetUserPassword';
import { type ResetPasswordInput, resetUserPassword } from '#domain/users';
import { ApiError } from '#http/errors';
import { operation } from '#http/pipeline';
import { jsonResponse } from '#http/responses';

export const handler = operation<ResetPasswordInput>({
  contract,
  compiled,
  run: async ({ body, owner, stores, config }) => {
    const outcome = await resetUserPassword(stores.users, owner, body, config);
    if (outcome === 'not_found') throw new ApiError(404, MESSAGES.userNotFound);
    if (outcome === 'white_label') throw new ApiError(403, contract.messages.resetWhiteLabel);
    return jsonResponse(200, { message: contract.messages.passwordReset });
  },
});
