/** The repository on DynamoDB Local: conditional writes, item collections, keys. */

import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from '@jest/globals';
import { newApiKey } from '#domain/api-keys';
import { processStores } from '#store/stores';
import { uniqueEmail } from '../support/local';

const { config, stores } = processStores();
const { client } = stores;
const user = (ownerId: string, email: string, whiteLabel = false) => ({
  ownerId,
  email,
  passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
  shouldResetPassword: false,
  ...(whiteLabel && { whiteLabel }),
});

describe('users', () => {
  it('creates once: a second put of the same e-mail in the same tenant is refused, another tenant is not', async () => {
    const [a, b, email] = [randomUUID(), randomUUID(), uniqueEmail()];
    expect(await stores.users.createUser(user(a, email))).toBe(true);
    expect(await stores.users.createUser(user(a, email))).toBe(false);
    expect(await stores.users.createUser(user(b, email))).toBe(true);
  });

  it('sets a password hash, telling an unknown user from a white-label one without a second read', async () => {
    const owner = randomUUID();
    const email = uniqueEmail();
    await stores.users.createUser(user(owner, email));
    expect(await stores.users.setPasswordHash(owner, email, 'new-hash')).toBe('updated');
    expect(await stores.users.setPasswordHash(owner, uniqueEmail(), 'new-hash')).toBe('not_found');
    expect(await stores.users.setPasswordHash(randomUUID(), email, 'new-hash')).toBe('not_found');
  });

  it('deletes a whole item collection: 30 associated items, then the profile', async () => {
    const owner = randomUUID();
    const email = uniqueEmail();
    await stores.users.createUser(user(owner, email));
    for (let i = 0; i < 30; i++) {
      await client.send(
        new PutCommand({
          TableName: config.usersTableName,
          Item: { pk: `${owner}#${email}`, sk: `DATA#${String(i).padStart(3, '0')}`, payload: 'x' },
        }),
      );
    }
    // The collection: the profile plus 30 associated items.
    const { profileExists, whiteLabel, associatedItems } = await stores.users.listUserItems(owner, email);
    expect(profileExists).toBe(true);
    expect(associatedItems).toHaveLength(30);
    expect(whiteLabel).toBe(false);
    await stores.users.deleteUserItems(owner, email, associatedItems);
    expect(await stores.users.listUserItems(owner, email)).toEqual({ profileExists: true, whiteLabel: false, associatedItems: [] });
    expect(await stores.users.deleteProfile(owner, email)).toBe('deleted');
    expect(await stores.users.listUserItems(owner, email)).toEqual({ profileExists: false, whiteLabel: false, associatedItems: [] });
    expect(await stores.users.deleteProfile(owner, email)).toBe('not_found');
  });
});

describe('owners and keys', () => {
  it('creates an owner with its white-label account and first key in one transaction, once', async () => {
    const ownerEmail = uniqueEmail('owner');
    const ownerId = randomUUID();
    const createdAt = new Date().toISOString();
    const key = newApiKey();
    const record = { digest: key.digest, keyId: key.keyId, ownerId, ownerEmail, createdAt };
    expect(await stores.owners.createOwner({ ownerId, ownerEmail, createdAt }, { passwordHash: 'h' }, record)).toBe(true);
    expect(await stores.owners.findOwnerAccount(ownerId, ownerEmail)).toEqual({});
    expect(await stores.users.setPasswordHash(ownerId, ownerEmail, 'x')).toBe('white_label');
    expect(await stores.users.deleteProfile(ownerId, ownerEmail)).toBe('white_label');
    expect((await stores.users.listUserItems(ownerId, ownerEmail)).whiteLabel).toBe(true);
    expect(await stores.owners.findApiKey(key.digest)).toEqual(record);

    const second = newApiKey();
    expect(
      await stores.owners.createOwner(
        { ownerId: randomUUID(), ownerEmail, createdAt },
        { passwordHash: 'h' },
        { ...record, digest: second.digest, keyId: second.keyId },
      ),
    ).toBe(false);
    // Nothing of the refused transaction was written.
    expect(await stores.owners.findApiKey(second.digest)).toBeUndefined();
  });

  it('finds, lists and revokes keys by id; the key itself is stored nowhere', async () => {
    const ownerEmail = uniqueEmail('owner');
    const ownerId = randomUUID();
    const createdAt = new Date().toISOString();
    const first = newApiKey();
    await stores.owners.createOwner(
      { ownerId, ownerEmail, createdAt },
      { passwordHash: 'h' },
      { digest: first.digest, keyId: first.keyId, ownerId, ownerEmail, createdAt },
    );
    const second = newApiKey();
    await stores.owners.putApiKey({ digest: second.digest, keyId: second.keyId, ownerId, ownerEmail, createdAt });

    expect((await stores.owners.listApiKeys(ownerEmail)).map((k) => k.keyId).sort()).toEqual([first.keyId, second.keyId].sort());
    expect((await stores.owners.findApiKeyById(second.keyId))?.digest).toBe(second.digest);
    await stores.owners.revokeApiKey(second.digest);
    expect((await stores.owners.findApiKey(second.digest))?.revokedAt).toEqual(expect.any(String));
    expect((await stores.owners.findApiKey(first.digest))?.revokedAt).toBeUndefined();

    const stored = JSON.stringify(await stores.owners.listApiKeys(ownerEmail));
    expect(stored).not.toContain(first.apiKey);
    expect(stored).not.toContain(second.apiKey);
  });
});
