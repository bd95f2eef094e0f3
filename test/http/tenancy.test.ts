/** Tenancy is a security boundary: to owner B, owner A's users do not exist. */

import { describe, expect, it } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
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
    expect((await suite.api.asA('/v1/createUser', { user_email: email })).status).toBe(409);
    expect((await suite.api.asA('/v1/resetUserPassword', { user_email: email, new_password: 'password of a 2' })).status).toBe(200);
  });

  it('owner B can create the same e-mail in its own tool, independently of A', async () => {
    const email = suite.api.email('both');
    expect((await suite.api.asA('/v1/createUser', { user_email: email })).status).toBe(200);
    expect((await suite.api.asB('/v1/createUser', { user_email: email.toUpperCase() })).status).toBe(200);
    expect((await suite.api.asB('/v1/deleteUser', { user_email: email })).status).toBe(200);
    // B's delete removed only B's user.
    expect((await suite.api.asA('/v1/createUser', { user_email: email })).status).toBe(409);
    expect((await suite.api.asB('/v1/deleteUser', { user_email: email })).status).toBe(404);
  });

  it("owner A's own account does not exist for B; B may even create that e-mail as an ordinary user", async () => {
    const reset = await suite.api.asB('/v1/resetUserPassword', { user_email: suite.target.a.ownerEmail, new_password: 'long enough' });
    expect(reset.status).toBe(404);
    const removed = await suite.api.asB('/v1/deleteUser', { user_email: suite.target.a.ownerEmail });
    expect(removed.status).toBe(404);
  });
});
