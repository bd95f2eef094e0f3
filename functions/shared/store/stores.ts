/**
 * The one place where a process builds its stores: the pipeline, `npm start`, the admin CLI and
 * the tests all get theirs here, so they share one client and one set of adapters.
 */

import type { IdempotencyStore } from '#domain/idempotency';
import type { OwnerStore } from '#domain/owners';
import type { UserStore } from '#domain/users';
import { type Config, readConfig } from '#platform/config';
import { createDocumentClient, type DocumentClient } from './client';
import { createIdempotencyStore } from './idempotency-store';
import { createOwnersStore } from './owners-store';
import { createUsersStore } from './users-store';

/** A process's adapters for the domain's ports, over one DynamoDB client. */
export interface Stores {
  /** The shared client: tests reach it to inject storage faults. */
  readonly client: DocumentClient;
  readonly users: UserStore;
  readonly owners: OwnerStore;
  readonly idempotency: IdempotencyStore;
}

/** The tables the API's stores live in. */
export type StoreTables = Pick<Config, 'usersTableName' | 'ownersTableName' | 'idempotencyTableName' | 'signInTableName'>;

/** Builds the stores on `client` for these tables. */
export function createStores(tables: StoreTables, client: DocumentClient): Stores {
  return {
    client,
    users: createUsersStore(client, tables.usersTableName, tables.signInTableName),
    owners: createOwnersStore(client, tables),
    idempotency: createIdempotencyStore(client, tables.idempotencyTableName),
  };
}

let built: { config: Config; stores: Stores } | undefined;

/**
 * This process's configuration and stores, read and built once, on first use (a function's cold
 * start): every caller in the process gets the same ones.
 */
export function processStores(): { config: Config; stores: Stores } {
  if (!built) {
    const config = readConfig();
    built = { config, stores: createStores(config, createDocumentClient({ endpoint: config.dynamodbEndpoint })) };
  }
  return built;
}
