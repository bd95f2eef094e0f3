/**
 * `npm start`'s delivery when its sink fails: one line on stderr (not one per round), nothing lost,
 * and the events delivered in order once the sink works again.
 */

import { mkdirSync, rmSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { createOwner } from '#domain/owners';
import { createUser } from '#domain/users';
import { processStores } from '#store/stores';
import { readEvents, startTestDelivery } from '../support/lifecycle-events';
import { uniqueEmail } from '../support/local';
import { waitFor } from '../support/poll';

const { config, stores } = processStores();

describe('local event delivery', () => {
  it('reports a failing sink once, then delivers from the first undelivered record', async () => {
    const errors: string[] = [];
    let failedRounds = 0;
    const delivery = await startTestDelivery({
      intervalMs: 100,
      onError: (message) => errors.push(message),
      onRound: (delivered) => {
        if (!delivered) failedRounds++;
      },
    });
    const { file } = delivery;
    try {
      // A directory where the file should be: every append fails.
      mkdirSync(file);
      const issued = await createOwner(stores.owners, uniqueEmail('retry-owner'), config);
      const owner = await stores.owners.findOwner(issued.owner_email);
      const caller = { ownerId: owner!.ownerId, ownerEmail: owner!.ownerEmail, keyId: issued.key_id };
      const emails = [uniqueEmail('retry-1'), uniqueEmail('retry-2')];
      for (const email of emails) {
        await createUser(stores.users, caller, { user_email: email, user_password: 'retried password' }, config);
      }
      await waitFor(() => (errors.length > 0 ? true : undefined), 3_000, 'a reported failure');
      // Three more rounds that failed the same way: each would have added its line, were it one per round.
      const seen = failedRounds;
      await waitFor(() => (failedRounds >= seen + 3 ? true : undefined), 10_000, 'three more failed rounds');
      expect(errors).toEqual(['Lifecycle events not delivered (EISDIR); retrying']);

      rmSync(file, { recursive: true });
      const mine = () => readEvents(file).filter((event) => event.detail.owner_id === caller.ownerId);
      await waitFor(() => (mine().length === 3 ? true : undefined), 3_000, 'the held-back events');
      expect(mine().map((event) => [event['detail-type'], event.detail.user_email])).toEqual([
        ['UserCreated', caller.ownerEmail],
        ['UserCreated', emails[0]],
        ['UserCreated', emails[1]],
      ]);
    } finally {
      await delivery.stop();
    }
  }, 90_000);
});
