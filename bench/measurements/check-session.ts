/**
 * checkSession on a valid session, warm (the owner's key known): one BatchGetItem and one HMAC. Its floor
 * replays the same request on the twin (whose device record the mirrored sign-in wrote) and computes an
 * HMAC-SHA-256 of the same size, without the module.
 */

import { createHmac, randomBytes } from 'node:crypto';
import { PASSWORD, signInMeasurement } from '../sign-in';

export const measurement = signInMeasurement('check-session', {
  title: 'checkSession valid (one read, one HMAC)',
  limitMs: 0.5,
  async prepare(kit) {
    const email = await kit.user('session');
    const first = await kit.mirrored(() => kit.signIn.signIn({ ownerId: kit.ownerId, email, password: PASSWORD }));
    if (first.outcome !== 'ok') throw new Error(`a first sign-in answered ${first.outcome}`);
    const { session } = first;
    const key = randomBytes(32);
    const sealed = JSON.stringify(['session', kit.ownerId, email, 'x'.repeat(22), session.split('.')[0], Number(session.split('.')[1])]);
    return {
      call: () => kit.signIn.checkSession({ ownerId: kit.ownerId, email, session }),
      expect: 'valid',
      floorWork: () => createHmac('sha256', key).update(sealed).digest(),
    };
  },
});
