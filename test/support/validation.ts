import { compiledValidators } from '#contract/generated/validators/index';
import { DEFINITIONS, type OperationName } from '#contract/operations';
import type { BreachCheck } from '#domain/password-policy';
import { validateBody } from '#http/middleware/validate-body';
import type { PasswordPolicy } from '#platform/config';

/** An operation's validation step as its function builds it: its module, its generated validator, the stage's policy. */
export const validationStep = (name: OperationName, policy: PasswordPolicy, options: { breachCheck?: BreachCheck } = {}) =>
  validateBody(DEFINITIONS[name], compiledValidators[name], policy, options);
