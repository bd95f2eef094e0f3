import { ApiError } from '#shared/errors';
import { MESSAGES } from '#shared/messages';
import { operation } from '#shared/pipeline';
import { jsonResponse } from '#shared/responses';
import { type CreateUserInput, createUser } from '#shared/users';

export const handler = operation<CreateUserInput>({
  name: 'createUser',
  failureMessage: MESSAGES.createFailed,
  run: async ({ body, owner, repository, config }) => {
    const result = await createUser(repository, owner, body, config.passwordPolicy);
    if (!result.created) throw new ApiError(409, MESSAGES.userExists);
    return jsonResponse(200, { user_email: result.user_email, user_password: result.user_password });
  },
});
