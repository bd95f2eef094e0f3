import * as compiled from '#contract/generated/validators/createUser';
import { createUser as contract } from '#contract/operations/createUser';
import { type CreateUserInput, createUser } from '#domain/users';
import { ApiError } from '#http/errors';
import { operation } from '#http/pipeline';
import { jsonResponse } from '#http/responses';

export const handler = operation<CreateUserInput>({
  contract,
  compiled,
  run: async ({ body, owner, stores, config }) => {
    const result = await createUser(stores.users, owner, body, config);
    if (!result.created) throw new ApiError(409, contract.messages.userExists);
    return jsonResponse(200, { user_email: result.user_email, user_password: result.user_password });
  },
});
