/** The right password of a user whose password must be reset: `must-reset`. */

import { PASSWORD, signInMeasurement } from '../sign-in';

export const measurement = signInMeasurement('sign-in-must-reset', {
  title: 'must-reset',
  async prepare(kit) {
    const email = await kit.user('reset', { mustReset: true });
    return { call: () => kit.signIn.signIn({ ownerId: kit.ownerId, email, password: PASSWORD }), expect: 'must-reset', verifies: PASSWORD };
  },
});
