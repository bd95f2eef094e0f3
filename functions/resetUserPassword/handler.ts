import { MESSAGES } from '#contract/messages';
import { type ResetPasswordInput, resetUserPassword } from '#domain/users';
import { ApiError } from '#http/errors';
import { operation } from '#http/pipeline';
import { jsonResponse } from '#http/responses';

export const handler = operation<ResetPasswordInput>({
  name: 'resetUserPassword',
  run: async ({ body, owner, stores, config }) => {
    const outcome = await resetUserPassword(stores.users, owner, body, config);
    if (outcome === 'not_found') throw new ApiError(404, MESSAGES.userNotFound);
    if (outcome === 'white_label') throw new ApiError(403, MESSAGES.resetWhiteLabel);
    return jsonResponse(200, { message: MESSAGES.passwordReset });
  },
});
