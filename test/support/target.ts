/**
 * Where the HTTP contract suite runs: the local server (default), or a deployed
 * stage when TEST_TARGET=staging (BASE_URL, API_KEY, API_KEY_B, OWNER_EMAIL,
 * OWNER_EMAIL_B). The same test files serve both, so they cannot drift.
 */

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import { apiClient } from './http-client';

export interface Target {
  readonly baseUrl: string;
  /** Two owners, A and B, with a key each and their own (white-label) e-mails. */
  readonly a: { apiKey: string; ownerEmail: string };
  readonly b: { apiKey: string; ownerEmail: string };
  /** E-mails this run creates start with this, so a run on staging touches only its own users. */
  readonly runPrefix: string;
  readonly close: () => Promise<void>;
}

export async function openTarget(): Promise<Target> {
  const runPrefix = `run-${randomBytes(5).toString('hex')}`;
  if (process.env.TEST_TARGET === 'staging') {
    // base_url may be given with or without the /v1 the stack's ApiUrl output ends in.
    const baseUrl = process.env.BASE_URL!.replace(/\/+$/, '').replace(/\/v1$/, '');
    return {
      baseUrl,
      a: { apiKey: process.env.API_KEY!, ownerEmail: process.env.OWNER_EMAIL! },
      b: { apiKey: process.env.API_KEY_B!, ownerEmail: process.env.OWNER_EMAIL_B! },
      runPrefix,
      close: async () => undefined,
    };
  }
  const { newOwner, startLocalServer } = await import('./local');
  const server = await startLocalServer();
  const [a, b] = await Promise.all([newOwner('owner-a'), newOwner('owner-b')]);
  return { baseUrl: server.baseUrl, a, b, runPrefix, close: server.close };
}

/**
 * Clients for owners A and B, and an e-mail factory; every e-mail made here is
 * deleted (as A, then B) when the suite closes.
 */
export function clientsFor(target: Target) {
  const created = new Set<string>();
  const asA = apiClient(target.baseUrl, target.a.apiKey);
  const asB = apiClient(target.baseUrl, target.b.apiKey);
  let counter = 0;
  return {
    asA,
    asB,
    email(tag = 'user') {
      const email = `${target.runPrefix}-${tag}-${++counter}@example.com`;
      created.add(email);
      return email;
    },
    async cleanup() {
      for (const email of created) {
        await asA('/v1/deleteUser', { user_email: email });
        await asB('/v1/deleteUser', { user_email: email });
      }
    },
  };
}

/**
 * The setup every contract file shares: opens the target before the file's tests,
 * deletes what they created and closes it after. Fields are set once beforeAll ran.
 */
export function useTarget() {
  const suite = {} as { target: Target; api: ReturnType<typeof clientsFor> };
  beforeAll(async () => {
    suite.target = await openTarget();
    suite.api = clientsFor(suite.target);
  });
  afterAll(async () => {
    await suite.api.cleanup();
    await suite.target.close();
  });
  return suite;
}
