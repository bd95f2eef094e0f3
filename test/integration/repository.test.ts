/** The repository on DynamoDB Local: conditional writes, item collections, keys. */

import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from '@jest/globals';
import { newApiKey } from '../../functions/shared/api-keys';
import { dependencies } from '../../functions/shared/pipeline';
import { uniqueEmail } from '../support/local';

const { repository, client, config } = dependencies;
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
    expect(await repository.createUser(user(a, email))).toBe(true);
    expect(await repository.createUser(user(a, email))).toBe(false);
    expect(await repository.createUser(user(b, email))).toBe(true);
  });

  it('sets a password hash, telling an unknown user from a white-label one without a second read', async () => {
    const owner = randomUUID();
    const email = uniqueEmail();
    await repository.createUser(user(owner, email));
    expect(await repository.setPasswordHash(owner, email, 'new-hash')).toBe('updated');
    expect(await repository.setPasswordHash(owner, uniqueEmail(), 'new-hash')).toBe('not_found');
    expect(await repository.setPasswordHash(randomUUID(), email, 'new-hash')).toBe('not_found');
  });

  it('deletes a whole item collection: 30 associated items, then the profile', async () => {
    const owner = randomUUID();
    const email = uniqueEmail();
    await repository.createUser(user(owner, email));
    for (let i = 0; i < 30; i++) {
      await client.send(
        new PutCommand({
          TableName: config.usersTableName,
          Item: { pk: `${owner}#${email}`, sk: `DATA#${String(i).padStart(3, '0')}`, payload: 'x' },
        }),
      );
    }
    // The collection: the profile plus 30 associated items.
    const { profileExists, whiteLabel, associatedItems } = await repository.listUserItems(owner, email);
    expect(profileExists).toBe(true);
    expect(associatedItems).toHaveLength(30);
    expect(whiteLabel).toBe(false);
    await repository.deleteUserItems(owner, email, associatedItems);
    expect(await repository.listUserItems(owner, email)).toEqual({ profileExists: true, whiteLabel: false, associatedItems: [] });
    expect(await repository.deleteProfile(owner, email)).toBe('deleted');
    expect(await repository.listUserItems(owner, email)).toEqual({ profileExists: false, whiteLabel: false, associatedItems: [] });
    expect(await repository.deleteProfile(owner, email)).toBe('not_found');
  });
});

describe('owners and keys', () => {
  it('creates an owner with its white-label account and first key in one transaction, once', async () => {
    const ownerEmail = uniqueEmail('owner');
    const ownerId = randomUUID();
    const createdAt = new Date().toISOString();
    const key = newApiKey();
    const record = { digest: key.digest, keyId: key.keyId, ownerId, ownerEmail, createdAt };
    expect(await repository.createOwner({ ownerId, ownerEmail, createdAt }, { passwordHash: 'h' }, record)).toBe(true);
    expect(await repository.ownerAccountExists(ownerId, ownerEmail)).toBe(true);
    expect(await repository.setPasswordHash(ownerId, ownerEmail, 'x')).toBe('white_label');
    expect(await repository.deleteProfile(ownerId, ownerEmail)).toBe('white_label');
    expect((await repository.listUserItems(ownerId, ownerEmail)).whiteLabel).toBe(true);
    expect(await repository.findApiKey(key.digest)).toEqual(record);

    const second = newApiKey();
    expect(
      await repository.createOwner(
        { ownerId: randomUUID(), ownerEmail, createdAt },
        { passwordHash: 'h' },
        { ...record, digest: second.digest, keyId: second.keyId },
      ),
    ).toBe(false);
    // Nothing of the refused transaction was written.
    expect(await repository.findApiKey(second.digest)).toBeUndefined();
  });

  it('finds, lists and revokes keys by id; the key itself is stored nowhere', async () => {
    const ownerEmail = uniqueEmail('owner');
    const ownerId = randomUUID();
    const createdAt = new Date().toISOString();
    const first = newApiKey();
    await repository.createOwner(
      { ownerId, ownerEmail, createdAt },
      { passwordHash: 'h' },
      { digest: first.digest, keyId: first.keyId, ownerId, ownerEmail, createdAt },
    );
    const second = newApiKey();
    await repository.putApiKey({ digest: second.digest, keyId: second.keyId, ownerId, ownerEmail, createdAt });

    expect((await repository.listApiKeys(ownerEmail)).map((k) => k.keyId).sort()).toEqual([first.keyId, second.keyId].sort());
    expect((await repository.findApiKeyById(second.keyId))?.digest).toBe(second.digest);
    await repository.revokeApiKey(second.digest);
    expect((await repository.findApiKey(second.digest))?.revokedAt).toEqual(expect.any(String));
    expect((await repository.findApiKey(first.digest))?.revokedAt).toBeUndefined();

    const stored = JSON.stringify(await repository.listApiKeys(ownerEmail));
    expect(stored).not.toContain(first.apiKey);
    expect(stored).not.toContain(second.apiKey);
  });
});
