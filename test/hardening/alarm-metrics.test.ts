/**
 * Every alarm on a custom metric watches a metric the code really writes. CloudWatch matches an
 * alarm's metric by namespace, name and its full set of dimensions (names and values): a line that
 * differs in any of them, or that CloudWatch refuses as EMF, feeds another metric or none, and the
 * alarm stays OK forever (missing data is not breaching). So for each such alarm of the synthesized
 * prod stack, the code that writes its metric runs here for real (the handlers over HTTP through the
 * local server, the stream consumer called as Lambda calls it), its stdout is captured, and the EMF
 * line must be valid against the EMF specification and carry the alarm's exact metric identity.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { DynamoDBStreamEvent } from 'aws-lambda';

const STAGE = 'prod';
const savedEnv: NodeJS.ProcessEnv = { ...process.env };
// Before the metrics instance is created (it reads these once): the deployed stage's namespace, metrics on.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.POWERTOOLS_METRICS_NAMESPACE = `UserManagement/${STAGE}`;

const { processStores } = await import('#store/stores');
const { userPk } = await import('#store/table-layout');
const { LOCAL_TABLES } = await import('#store/local-engine');
const { apiClient } = await import('../support/http-client');
const { captureStdout } = await import('../support/output');
const { startLocalServer, uniqueEmail } = await import('../support/local');
const { injectFault } = await import('../support/faults');
const { ALL_MESSAGES: MESSAGES } = await import('#contract/operations');
const { emfDocuments, emfProblems } = await import('../support/emf');
const { synthStage } = await import('../infra/synth');
const { ownerWithId } = await import('./support/world');

/** A metric as an alarm names it. */
interface MetricIdentity {
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
}

/** Every custom metric (not in an `AWS/` namespace) each alarm of the template watches, directly or in its math. */
function customMetricsOfAlarms(resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>) {
  type Raw = { Namespace?: string; MetricName?: string; Dimensions?: { Name: string; Value: string }[] };
  const identity = (metric: Raw): MetricIdentity => ({
    namespace: metric.Namespace!,
    name: metric.MetricName!,
    dimensions: Object.fromEntries((metric.Dimensions ?? []).map((d) => [d.Name, d.Value])),
  });
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm')
    .flatMap((alarm) => {
      const props = alarm.Properties as Raw & { AlarmName: string; Metrics?: { MetricStat?: { Metric: Raw } }[] };
      const metrics = props.MetricName ? [props as Raw] : (props.Metrics ?? []).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []));
      return metrics
        .filter((metric) => !metric.Namespace!.startsWith('AWS/'))
        .map((metric) => ({ alarm: props.AlarmName, metric: identity(metric) }));
    });
}

const lines: string[] = [];
let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: Awaited<ReturnType<typeof ownerWithId>>;
let eventBridge: Server;

beforeAll(async () => {
  server = await startLocalServer();
  owner = await ownerWithId('alarm-metrics');
  // A stand-in for EventBridge's PutEvents that refuses every entry: the consumer then keeps the events and counts them.
  eventBridge = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const entries = (JSON.parse(body) as { Entries: unknown[] }).Entries.map(() => ({
        ErrorCode: 'InternalFailure',
        ErrorMessage: 'refused',
      }));
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ FailedEntryCount: entries.length, Entries: entries }));
    });
  });
  await new Promise<void>((resolve) => eventBridge.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_EVENTBRIDGE: `http://127.0.0.1:${(eventBridge.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    EVENT_BUS_NAME: `user-management-${STAGE}`,
    DELETIONS_TABLE_NAME: LOCAL_TABLES.deletionsTableName,
    UNDELIVERED_EVENTS_TABLE_NAME: LOCAL_TABLES.undeliveredEventsTableName,
    RECOVERY_PERIOD_DAYS: '7',
  });
  captureStdout(lines);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await server.close();
  await new Promise((resolve) => eventBridge.close(resolve));
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
});

/** Runs the code that writes `metric` for real, in the way that makes it write it. */
const writers: Record<string, (metric: MetricIdentity) => Promise<void>> = {
  // A request a function answered with 500: every DynamoDB call fails (the key is looked up first, so it is cached).
  requests: async ({ dimensions }) => {
    const api = apiClient(server.baseUrl, owner.apiKey);
    await api('/v1/deleteUser', { user_email: uniqueEmail('warm') });
    const fault = injectFault(processStores().stores.client, { operation: '*', kind: 'internal' });
    const body = {
      user_email: uniqueEmail('fails'),
      ...(dimensions.operation === 'resetUserPassword' && { new_password: 'a new password 1' }),
    };
    const response = await api(`/v1/${dimensions.operation}`, body).finally(fault.remove);
    const failed: Record<string, string> = {
      createUser: MESSAGES.createFailed,
      resetUserPassword: MESSAGES.resetFailed,
      deleteUser: MESSAGES.deleteFailed,
    };
    expect([dimensions.operation, response.status, response.body]).toEqual([
      dimensions.operation,
      500,
      { message: failed[dimensions.operation!] },
    ]);
  },
  // The online password check failing (nothing listens at its address): fail-open, and counted.
  breachCheckUnavailable: async () => {
    const { pwnedPasswordsCheck } = await import('#platform/pwned-passwords');
    const { freePort } = await import('../../local/free-port');
    expect(await pwnedPasswordsCheck(`http://127.0.0.1:${await freePort()}`)('a password to look up')).toBe('unavailable');
  },
  // A lifecycle event refused by the bus every try: kept for replay and counted.
  undeliveredEvents: async () => {
    const { handler } = await import('../../functions/publishLifecycleEvents/handler');
    const email = uniqueEmail('undelivered');
    const ownerId = '7f0c1c1e-0000-4000-8000-0000000000aa';
    const keys = { pk: userPk(ownerId, email), sk: 'PROFILE' };
    const event: DynamoDBStreamEvent = {
      Records: [
        {
          eventName: 'REMOVE',
          eventSource: 'aws:dynamodb',
          dynamodb: {
            ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
            Keys: marshall(keys) as never,
            OldImage: marshall({ ...keys, owner_id: ownerId, user_email: email, password_hash: '$argon2id$x' }) as never,
            SequenceNumber: '000000000000000000001',
            StreamViewType: 'NEW_AND_OLD_IMAGES',
          },
        },
      ],
    };
    expect(await handler(event)).toEqual({ batchItemFailures: [] });
  },
};

// The stage with every optional alarm on: the online password check's too.
const resources = synthStage(STAGE, { pwnedPasswordsCheck: 'true' }).template.toJSON().Resources;
/** The metrics the template's own metric filters make from log lines (the access log's), by `namespace/name`: no code writes those. */
const filterMetrics = new Map(
  Object.values(resources as Record<string, { Type: string; Properties?: Record<string, unknown> }>)
    .filter((resource) => resource.Type === 'AWS::Logs::MetricFilter')
    .flatMap(
      (filter) => filter.Properties!.MetricTransformations as { MetricNamespace: string; MetricName: string; Dimensions?: unknown }[],
    )
    .map((transformation) => [`${transformation.MetricNamespace}/${transformation.MetricName}`, transformation]),
);
const fromFilters = customMetricsOfAlarms(resources).filter(({ metric }) => filterMetrics.has(`${metric.namespace}/${metric.name}`));
const alarmMetrics = customMetricsOfAlarms(resources).filter(({ metric }) => !filterMetrics.has(`${metric.namespace}/${metric.name}`));

describe('alarms on metrics the template makes from logs', () => {
  it('the 5xx rate watches the access log metric filters, with the very identity they publish (no dimensions on either side)', () => {
    expect(fromFilters).toEqual([
      {
        alarm: `UserManagement-${STAGE}-api-5xx-rate`,
        metric: { namespace: `UserManagement/${STAGE}`, name: 'apiResponses', dimensions: {} },
      },
      {
        alarm: `UserManagement-${STAGE}-api-5xx-rate`,
        metric: { namespace: `UserManagement/${STAGE}`, name: 'apiResponses5xx', dimensions: {} },
      },
    ]);
    for (const { metric } of fromFilters) expect(filterMetrics.get(`${metric.namespace}/${metric.name}`)?.Dimensions).toBeUndefined();
  });
});

describe('alarms on custom metrics', () => {
  it('there are some: the functions’ failed requests, the undelivered lifecycle events, the online password check', () => {
    expect(new Set(alarmMetrics.map(({ alarm }) => alarm))).toEqual(
      new Set([
        `UserManagement-${STAGE}-function-500s`,
        `UserManagement-${STAGE}-lifecycle-events-undelivered`,
        `UserManagement-${STAGE}-breach-check-unavailable`,
      ]),
    );
  });

  it.each(alarmMetrics.map(({ alarm, metric }) => [`${alarm}: ${metric.name} ${JSON.stringify(metric.dimensions)}`, metric] as const))(
    '%s is a metric the code writes, in a valid EMF line',
    async (_, metric) => {
      const writer = writers[metric.name];
      if (!writer) throw new Error(`No code here writes ${metric.name}: add the run that makes it to this test`);
      const from = lines.length;
      await writer(metric);
      const written = emfDocuments(lines.slice(from));
      expect(written.length).toBeGreaterThan(0);
      for (const { line } of written) expect(emfProblems(line)).toEqual([]);
      // As CloudWatch matches it: the namespace, the name, and one dimension set whose names and values are exactly the alarm's.
      const matching = written.filter(({ document }) =>
        document._aws.CloudWatchMetrics.some(
          (directive) =>
            directive.Namespace === metric.namespace &&
            directive.Metrics.some(({ Name }) => Name === metric.name) &&
            directive.Dimensions.some(
              (set) =>
                [...set].sort().join() === Object.keys(metric.dimensions).sort().join() &&
                set.every((name) => document[name] === metric.dimensions[name]),
            ),
        ),
      );
      expect([metric, matching.length]).toEqual([metric, 1]);
    },
  );
});

describe('the EMF check itself', () => {
  it('refuses what CloudWatch refuses: no dimension set, a dimension or metric missing from the root', () => {
    const line = (dimensions: string[][], root: object) =>
      JSON.stringify({
        _aws: { Timestamp: 1, CloudWatchMetrics: [{ Namespace: 'N', Dimensions: dimensions, Metrics: [{ Name: 'm' }] }] },
        ...root,
      });
    expect(emfProblems(line([[]], { m: 1 }))).toEqual([]);
    expect(emfProblems(line([], { m: 1 }))).toEqual(['/_aws/CloudWatchMetrics/0/Dimensions must NOT have fewer than 1 items']);
    expect(emfProblems(line([['d']], { m: 1 }))).toEqual(['dimension d is not a root member with a string value']);
    expect(emfProblems(line([['d']], { d: 'x' }))).toEqual(['metric m is not a root member with a numeric value']);
  });
});
