/**
 * Business metrics: every request the functions answer writes one CloudWatch embedded-metric-format
 * line, `requests` by `operation` and `outcome`, and nothing that names an owner, an e-mail or a
 * key. Log lines are captured at process.stdout as secrets.test.ts does.
 */

import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';

// Before the metrics instance is created (it reads this once); the test setup turns metrics off.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

const { ALL_MESSAGES: MESSAGES } = await import('#contract/operations');
const { METRIC_DIMENSIONS, metricsNamespace, REQUESTS_METRIC } = await import('#platform/metrics');
const { processStores } = await import('#store/stores');

const { stores } = processStores();
const { apiClient } = await import('../support/http-client');
const { captureStdout } = await import('../support/output');
const { startLocalServer, uniqueEmail } = await import('../support/local');
const { injectFault } = await import('../support/faults');
const { ownerWithId } = await import('./support/world');
type TestOwner = Awaited<ReturnType<typeof ownerWithId>>;

const lines: string[] = [];
let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: TestOwner;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('metrics');
  captureStdout(lines);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await server.close();
});

interface Emf {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [field: string]: unknown;
}
const emfLines = (from: number): Emf[] =>
  lines
    .slice(from)
    .map((line) => {
      try {
        return JSON.parse(line) as Emf;
      } catch {
        return undefined;
      }
    })
    .filter((line): line is Emf => line?._aws !== undefined);

describe('EMF lines', () => {
  it('one per request: operation and outcome only, never an owner, e-mail or key', async () => {
    const api = apiClient(server.baseUrl, owner.apiKey);
    const email = uniqueEmail('counted');
    const from = lines.length;
    const expected: [string, number, string, string][] = [];
    const call = async (path: string, body: unknown, status: number, operation: string, outcome: string, options = {}) => {
      const response = await api(path, body, options);
      expect([path, response.status]).toEqual([path, status]);
      expected.push([path, status, operation, outcome]);
    };
    await call('/v1/createUser', { user_email: email, user_password: 'a password to count' }, 200, 'createUser', 'created');
    await call('/v1/createUser', { user_email: email }, 409, 'createUser', 'refused:userExists');
    await call('/v1/createUser', {}, 400, 'createUser', 'refused:userEmailMissing');
    await call('/v1/createUser', { user_email: uniqueEmail('x'), extra: 1 }, 400, 'createUser', 'refused:invalidRequest');
    await call('/v1/resetUserPassword', { user_email: email, new_password: 'another password' }, 200, 'resetUserPassword', 'reset');
    await call(
      '/v1/resetUserPassword',
      { user_email: owner.ownerEmail, new_password: 'another password' },
      403,
      'resetUserPassword',
      'refused:resetWhiteLabel',
    );
    await call('/v1/deleteUser', { user_email: email }, 200, 'deleteUser', 'deleted');
    await call('/v1/deleteUser', { user_email: email }, 404, 'deleteUser', 'refused:userNotFound');
    await call('/v1/deleteUser', { user_email: email }, 401, 'deleteUser', 'refused:unauthorized', { apiKey: `wlk_${'B'.repeat(43)}` });
    await call('/v1/deleteUser', undefined, 413, 'deleteUser', 'refused:bodyTooLarge', { raw: 'x'.repeat(17_000) });
    const fault = injectFault(stores.client, { operation: 'Query', kind: 'rejected' });
    await call('/v1/deleteUser', { user_email: email }, 500, 'deleteUser', 'failed').finally(fault.remove);

    const emf = emfLines(from);
    expect(emf.map((line) => [line.operation, line.outcome])).toEqual(expected.map(([, , operation, outcome]) => [operation, outcome]));
    for (const line of emf) {
      expect(line._aws.CloudWatchMetrics).toEqual([
        { Namespace: metricsNamespace('local'), Dimensions: [[...METRIC_DIMENSIONS]], Metrics: [{ Name: REQUESTS_METRIC, Unit: 'Count' }] },
      ]);
      // The line holds the dimensions and the value, nothing else.
      expect(Object.keys(line).sort()).toEqual(['_aws', 'operation', 'outcome', REQUESTS_METRIC].sort());
      expect(line[REQUESTS_METRIC]).toBe(1);
      const text = JSON.stringify(line);
      for (const secret of [owner.ownerId, owner.ownerEmail, owner.apiKey, owner.apiKey.slice(4), owner.keyId, email, 'example.com']) {
        expect([secret, text.includes(secret)]).toEqual([secret, false]);
      }
    }
  });

  it('an unexpected failure is counted as failed for the stage alarm, with the contract message to the caller', async () => {
    const api = apiClient(server.baseUrl, owner.apiKey);
    const from = lines.length;
    const fault = injectFault(stores.client, { operation: 'PutItem', kind: 'internal' });
    const response = await api('/v1/createUser', { user_email: uniqueEmail('fails') }).finally(fault.remove);
    expect([response.status, response.body]).toEqual([500, { message: MESSAGES.createFailed }]);
    expect(emfLines(from).map((line) => [line.operation, line.outcome])).toEqual([['createUser', 'failed']]);
  });
});
