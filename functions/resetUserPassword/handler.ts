import { ApiError } from '#shared/errors';
import { MESSAGES } from '#shared/messages';
import { operation } from '#shared/pipeline';
import { jsonResponse } from '#shared/responses';
import { type ResetPasswordInput, resetUserPassword } from '#shared/users';

export const handler = operation<ResetPasswordInput>({
  name: 'resetUserPassword',
  failureMessage: MESSAGES.resetFailed,
  run: async ({ body, owner, repository }) => {
    const outcome = await resetUserPassword(repository, owner, body);
    if (outcome === 'not_found') throw new ApiError(404, MESSAGES.userNotFound);
    if (outcome === 'white_label') throw new ApiError(403, MESSAGES.resetWhiteLabel);
    return jsonResponse(200, { message: MESSAGES.passwordReset });
  },
});
