import type { OwnerPasswordPolicy } from '#domain/password-policy';

/** The attribute that holds an owner's password policy: on the owner's own account, and on its copy for the sign-in module. */
export const PASSWORD_POLICY_ATTRIBUTE = 'password_policy';

/** The policy as stored (`{min_length, blocked_words}`), or undefined when the value is not one. */
export const toPasswordPolicy = (value: unknown): OwnerPasswordPolicy | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const { min_length: minLength, blocked_words: words } = value as Record<string, unknown>;
  return {
    ...(typeof minLength === 'number' && { minLength }),
    ...(Array.isArray(words) && { blockedWords: words.filter((word): word is string => typeof word === 'string') }),
  };
};

/** The policy in its stored form. */
export const fromPasswordPolicy = (policy: OwnerPasswordPolicy) => ({
  ...(policy.minLength !== undefined && { min_length: policy.minLength }),
  ...(policy.blockedWords !== undefined && { blocked_words: [...policy.blockedWords] }),
});
