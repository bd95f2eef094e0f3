/** Tenancy is a security boundary: to owner B, owner A's users do not exist. */

import { describe, expect, it } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES } from '#contract/operations';
import { useTarget } from '../support/target';

const suite = useTarget();

describe('tenant isolation', () => {
  it("owner B can neither reset nor delete owner A's user: 404, and A's user is untouched", async () => {
    const email = suite.api.email('a-user');
    expect((await suite.api.asA('/v1/createUser', { user_email: email, user_password: 'password of a' })).status).toBe(200);

    const reset = await suite.api.asB('/v1/resetUserPassword', { user_email: email, new_password: 'hijacked by b' });
    expect([reset.status, reset.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
    const removed = await suite.api.asB('/v1/deleteUser', { user_email: email });
    expect([removed.status, removed.body]).toEqual([404, { message: MESSAGES.userNotFound }]);

    // Still there for A: A's create collides, A's reset works.
    const collides = await suite.api.asA('/v1/createUser', { user_email: email });
    expect([collides.status, collides.body]).toEqual([409, { message: MESSAGES.userExists }]);
    const resetByA = await suite.api.asA('/v1/resetUserPassword', { user_email: email, new_password: 'password of a 2' });
    expect([resetByA.status, resetByA.body]).toEqual([200, { message: MESSAGES.passwordReset }]);
  });

  it('owner B can create the same e-mail in its own tool, independently of A', async () => {
    const email = suite.api.email('both');
    const byA = await suite.api.asA('/v1/createUser', { user_email: email, user_password: 'password of a' });
    expect([byA.status, byA.body]).toEqual([200, { user_email: email, user_password: 'password of a' }]);
    const byB = await suite.api.asB('/v1/createUser', { user_email: email.toUpperCase(), user_password: 'password of b' });
    expect([byB.status, byB.body]).toEqual([200, { user_email: email, user_password: 'password of b' }]);
    const deletedByB = await suite.api.asB('/v1/deleteUser', { user_email: email });
    expect([deletedByB.status, deletedByB.body]).toEqual([200, { message: MESSAGES.userDeleted }]);
    // B's delete removed only B's user.
    const stillA = await suite.api.asA('/v1/createUser', { user_email: email });
    expect([stillA.status, stillA.body]).toEqual([409, { message: MESSAGES.userExists }]);
    const goneForB = await suite.api.asB('/v1/deleteUser', { user_email: email });
    expect([goneForB.status, goneForB.body]).toEqual([404, { message: MESSAGES.userNotFound }]);
  });

  it("owner A's own account does not exist for B; B may even create that e-mail as an ordinary user", async () => {
    const ownerA = suite.target.a.ownerEmail;
    const notFound = [404, { message: MESSAGES.userNotFound }];
    const reset = await suite.api.asB('/v1/resetUserPassword', { user_email: ownerA, new_password: 'long enough' });
    expect([reset.status, reset.body]).toEqual(notFound);
    const removed = await suite.api.asB('/v1/deleteUser', { user_email: ownerA });
    expect([removed.status, removed.body]).toEqual(notFound);

    // B creates A's e-mail in B's own tool: an ordinary user of B, which B may reset and delete.
    const created = await suite.api.asB('/v1/createUser', { user_email: ownerA, user_password: 'b made this one' });
    expect([created.status, created.body]).toEqual([200, { user_email: ownerA, user_password: 'b made this one' }]);
    const resetByB = await suite.api.asB('/v1/resetUserPassword', { user_email: ownerA, new_password: 'b changed it' });
    expect([resetByB.status, resetByB.body]).toEqual([200, { message: MESSAGES.passwordReset }]);
    const deletedByB = await suite.api.asB('/v1/deleteUser', { user_email: ownerA });
    expect([deletedByB.status, deletedByB.body]).toEqual([200, { message: MESSAGES.userDeleted }]);

    // A's own account is untouched: still a white-label user to A.
    const guarded = await suite.api.asA('/v1/deleteUser', { user_email: ownerA });
    expect([guarded.status, guarded.body]).toEqual([403, { message: MESSAGES.deleteWhiteLabel }]);
  });
});
