/** A sign-in with the right password from a browser without a device cookie: `ok` (and a new trusted device). */

import { PASSWORD, signInMeasurement } from '../sign-in';

export const measurement = signInMeasurement('sign-in-ok-untrusted', {
  title: 'ok, untrusted',
  async prepare(kit) {
    const email = await kit.user('ok');
    return { call: () => kit.signIn.signIn({ ownerId: kit.ownerId, email, password: PASSWORD }), expect: 'ok', verifies: PASSWORD };
  },
});
