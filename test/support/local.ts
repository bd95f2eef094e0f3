/** Test helpers on the local engine: a server on a free port, fresh owners, unique e-mails. */

import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createOwner } from '#domain/owners';
import { processStores } from '#store/stores';
import { createLocalServer } from '../../local/server';

const { config, stores } = processStores();

/** Starts the local server on a free loopback port; its base URL has no `/v1`, like the API's {base_url}. */
export async function startLocalServer(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server = createLocalServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An e-mail no other test uses. */
export const uniqueEmail = (tag = 'user') => `${tag}-${randomBytes(6).toString('hex')}@example.com`;

/** A fresh owner with its own account and one key. */
export async function newOwner(tag = 'owner') {
  const issued = await createOwner(stores.owners, uniqueEmail(tag), config);
  return { ownerEmail: issued.owner_email, apiKey: issued.api_key, keyId: issued.key_id };
}
