/** An attempt while the account waits after failures: `throttled`, answered before any verification. */

import { signInMeasurement, WRONG } from '../sign-in';

export const measurement = signInMeasurement('sign-in-throttled', {
  title: 'throttled',
  async prepare(kit) {
    const email = await kit.user('throttled');
    const attempt = () => kit.signIn.signIn({ ownerId: kit.ownerId, email, password: WRONG });
    // Failures past their waits until a wait outlasts the run.
    for (let i = 0; ; i++) {
      const result = await kit.mirrored(attempt);
      if (result.outcome === 'throttled' && result.retryAfterSeconds >= 1800) break;
      if (result.outcome === 'throttled') kit.advance(result.retryAfterSeconds);
      if (i > 1_000) throw new Error('the account never waited long');
    }
    return { call: attempt, expect: 'throttled' };
  },
});
