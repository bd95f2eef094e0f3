/** An attempt on an account locked by failures: `locked`, answered before any verification. */

import { signInMeasurement, WRONG } from '../sign-in';

export const measurement = signInMeasurement('sign-in-locked', {
  title: 'locked',
  async prepare(kit) {
    const email = await kit.user('locked');
    const attempt = () => kit.signIn.signIn({ ownerId: kit.ownerId, email, password: WRONG });
    for (let i = 0; ; i++) {
      const result = await kit.mirrored(attempt);
      if (result.outcome === 'locked') break;
      if (result.outcome === 'throttled') kit.advance(result.retryAfterSeconds);
      if (i > 1_000) throw new Error('the account never locked');
    }
    return { call: attempt, expect: 'locked' };
  },
});
