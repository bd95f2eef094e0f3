/** A sign-in with the right password and a valid device cookie: `ok`, the cookie rotated on every success. */

import { PASSWORD, signInMeasurement } from '../sign-in';

export const measurement = signInMeasurement('sign-in-ok-trusted', {
  title: 'ok, trusted (a device cookie)',
  limitMs: 0.5,
  async prepare(kit) {
    const email = await kit.user('trusted');
    const first = await kit.mirrored(() => kit.signIn.signIn({ ownerId: kit.ownerId, email, password: PASSWORD }));
    if (first.outcome !== 'ok') throw new Error(`a first sign-in answered ${first.outcome}`);
    let deviceCookie = first.deviceCookie;
    return {
      async call() {
        const result = await kit.signIn.signIn({ ownerId: kit.ownerId, email, password: PASSWORD, deviceCookie });
        if (result.outcome === 'ok') deviceCookie = result.deviceCookie;
        return result;
      },
      expect: 'ok',
      verifies: PASSWORD,
    };
  },
});
