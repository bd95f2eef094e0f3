/** A wrong password within an account's free failures: `wrong` (the next user once one has had them all). */

import { FREE_FAILURES } from '#sign-in/domain/sign-in-attempts';
import { signInMeasurement, WRONG } from '../sign-in';

export const measurement = signInMeasurement('sign-in-wrong', {
  title: 'wrong',
  async prepare(kit) {
    const users: string[] = [];
    for (let i = 0; i < Math.ceil(kit.calls / FREE_FAILURES); i++) users.push(await kit.user('wrong'));
    let next = 0;
    return {
      call: () => kit.signIn.signIn({ ownerId: kit.ownerId, email: users[Math.floor(next++ / FREE_FAILURES)]!, password: WRONG }),
      expect: 'wrong',
      verifies: WRONG,
    };
  },
});
