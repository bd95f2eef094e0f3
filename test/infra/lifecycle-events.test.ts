/**
 * The lifecycle events and the erasure horizon in the synthesized template: the users table's stream,
 * the bus, the filtered mapping with its failure handling, the dead-letter queue and its alarm, the
 * consumer's least privilege, the recovery period per stage, the outputs, and logs that cannot
 * carry an e-mail.
 */

import { describe, expect, it } from '@jest/globals';
import type { CfnElement } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { LEDGER_RECOVERY_PERIOD_DAYS } from '../../lib/constructs/tables';
import { STAGES } from '../../lib/stage-config';
import { OPERATIONS, type UserManagementStack } from '../../lib/user-management-stack';
import { accessLogFields, baseStage, resourcesOf, statementsOfRole, synthStage } from './synth';

const byStage = { prod: baseStage('prod'), staging: baseStage('staging'), dev: baseStage('dev') };
const { prod } = byStage;

const logicalId = (stack: UserManagementStack, element: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(element.node.defaultChild as CfnElement);
const TABLES = {
  users: 'Users',
  owners: 'Owners',
  idempotency: 'Idempotency',
  deletions: 'Deletions',
  undeliveredEvents: 'UndeliveredEvents',
  signIn: 'SignIn',
} as const;
const table = (stage: keyof typeof byStage, name: keyof typeof TABLES) => {
  const { id, template } = byStage[stage];
  return resourcesOf(template)[id(`Tables/${TABLES[name]}`)]!;
};

describe('erasure horizon: point-in-time recovery period per stage', () => {
  it.each([
    ['dev', 1],
    ['staging', 7],
    ['prod', 30],
  ] as const)('%s: users, owners and idempotency tables restorable for %i days, the ledger for 1', (stage, days) => {
    for (const name of ['users', 'owners', 'idempotency'] as const) {
      expect(table(stage, name).Properties?.PointInTimeRecoverySpecification).toEqual({
        PointInTimeRecoveryEnabled: true,
        RecoveryPeriodInDays: days,
      });
    }
    expect(table(stage, 'deletions').Properties?.PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: true,
      RecoveryPeriodInDays: LEDGER_RECOVERY_PERIOD_DAYS,
    });
    // The ledger keeps a deletion exactly as long as the users table's backups reach back.
    const consumer = resourcesOf(byStage[stage].template)[byStage[stage].id('LifecycleEvents/Consumer/Function')];
    expect((consumer!.Properties!.Environment as { Variables: Record<string, unknown> }).Variables.RECOVERY_PERIOD_DAYS).toBe(String(days));
  });

  it('is a context setting, checked against DynamoDB bounds', () => {
    const { stack, template } = synthStage('prod', { recoveryPeriodDays: '14' });
    expect(resourcesOf(template)[logicalId(stack, stack.tables.users)]?.Properties?.PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: true,
      RecoveryPeriodInDays: 14,
    });
    expect(() => synthStage('prod', { recoveryPeriodDays: '36' })).toThrow(/recoveryPeriodDays must be at most 35/);
    expect(() => synthStage('prod', { recoveryPeriodDays: '0' })).toThrow(/recoveryPeriodDays/);
  });

  it('the ledger expires its entries by TTL; so does the sign-in table the state of e-mails no user has, and the users table nothing (a TTL there could delete a profile)', () => {
    expect(table('prod', 'deletions').Properties?.TimeToLiveSpecification).toEqual({ AttributeName: 'expires_at', Enabled: true });
    expect(table('prod', 'signIn').Properties?.TimeToLiveSpecification).toEqual({ AttributeName: 'expires_at', Enabled: true });
    expect(table('prod', 'users').Properties?.TimeToLiveSpecification).toBeUndefined();
  });
});

describe('lifecycle events', () => {
  it.each(STAGES)('%s: the users table streams both images; only the users table streams', (stage) => {
    expect(table(stage, 'users').Properties?.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(table(stage, 'owners').Properties?.StreamSpecification).toBeUndefined();
    expect(table(stage, 'deletions').Properties?.StreamSpecification).toBeUndefined();
  });

  it.each(STAGES)('%s: one event bus per stage', (stage) => {
    byStage[stage].template.resourceCountIs('AWS::Events::EventBus', 1);
    byStage[stage].template.hasResourceProperties('AWS::Events::EventBus', { Name: `user-management-${stage}` });
  });

  it('the mapping: profile items only and no sign-in write, batch item failures, bisect, bounded retries, dead-letter queue', () => {
    const { id, template } = prod;
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [id('Tables/Users'), 'StreamArn'] },
      // The consumer's live alias (`<function name>:live`), which a release moves (release.test.ts).
      FunctionName: {
        'Fn::Join': ['', [{ 'Fn::Select': [6, { 'Fn::Split': [':', { Ref: id('LifecycleEvents/Consumer/Live') }] }] }, ':live']],
      },
      StartingPosition: 'TRIM_HORIZON',
      // Written out, not imported: the one description (events/record-filter.ts) is what this holds it to.
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              dynamodb: { Keys: { sk: { S: ['PROFILE'] } }, NewImage: { password_rehashed_at: { S: [{ exists: false }] } } },
            }),
          },
          { Pattern: JSON.stringify({ eventName: ['REMOVE'], dynamodb: { Keys: { sk: { S: ['PROFILE'] } } } }) },
        ],
      },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 8,
      MaximumRecordAgeInSeconds: 86400,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [id('LifecycleEvents/DeadLetters'), 'Arn'] } } },
    });
  });

  it('the dead-letter queue: encrypted, TLS only, and an alarm on its depth', () => {
    const { id, template } = prod;
    template.resourceCountIs('AWS::SQS::Queue', 1);
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86400 });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'UserManagement-prod-lifecycle-events-dead-letters',
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [id('LifecycleEvents/DeadLetters'), 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'UserManagement-prod-lifecycle-events-lag',
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
    });
  });

  it('the consumer may read the stream, put events on its bus only, write the ledger and the undelivered events only', () => {
    const { id, template } = prod;
    const statements = statementsOfRole(template, id('LifecycleEvents/Consumer/Role'));
    const arn = (path: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [id(path), attribute] });
    // Exactly these statements: each one present, and no other.
    const allowed = [
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: arn('LifecycleEvents/Consumer/Logs') },
      // The ledger and the undelivered events: a put each, nothing else.
      { Effect: 'Allow', Action: ['dynamodb:PutItem'], Resource: [arn('Tables/Deletions'), arn('Tables/UndeliveredEvents')] },
      { Effect: 'Allow', Action: ['events:PutEvents'], Resource: arn('LifecycleEvents/Bus') },
      {
        Effect: 'Allow',
        Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        Resource: arn('Tables/Users', 'StreamArn'),
      },
      {
        Effect: 'Allow',
        Action: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
        Resource: arn('LifecycleEvents/DeadLetters'),
      },
      // The actions that take no resource, in one statement (IAM policies minimised: a recommended feature flag).
      { Effect: 'Allow', Action: ['dynamodb:ListStreams', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Resource: '*' },
    ];
    expect(statements).toEqual(expect.arrayContaining(allowed));
    expect(statements).toHaveLength(allowed.length);
    // No API function may publish events or touch the ledger.
    for (const operation of OPERATIONS) {
      const role = id(`${operation.charAt(0).toUpperCase()}${operation.slice(1)}/Role`);
      const actions = statementsOfRole(template, role).flatMap((statement) => statement.Action as string[]);
      expect(
        actions.filter((action) => action.startsWith('events:') || (action.startsWith('dynamodb:') && action.includes('Stream'))),
      ).toEqual([]);
    }
  });

  it('the consumer: no password-hashing binding, its own settings, nothing of the API', () => {
    const { id, template } = prod;
    const consumer = resourcesOf(template)[id('LifecycleEvents/Consumer/Function')];
    expect(consumer?.Properties?.Environment).toEqual({
      Variables: {
        POWERTOOLS_SERVICE_NAME: 'user-management',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_METRICS_NAMESPACE: 'UserManagement/prod',
        EVENT_BUS_NAME: { Ref: id('LifecycleEvents/Bus') },
        DELETIONS_TABLE_NAME: { Ref: id('Tables/Deletions') },
        UNDELIVERED_EVENTS_TABLE_NAME: { Ref: id('Tables/UndeliveredEvents') },
        UNDELIVERED_EVENT_DAYS: '14',
        RECOVERY_PERIOD_DAYS: '30',
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
    expect(consumer?.Properties?.Handler).toBe('index.handler');
  });

  it.each(STAGES)('%s: an event that fails every try is kept whole at least 14 days, and the first one alarms', (stage) => {
    const { id, template } = byStage[stage];
    const undelivered = table(stage, 'undeliveredEvents');
    // Kept until replayed or until DynamoDB's TTL removes it, UNDELIVERED_EVENT_DAYS (>= 14) after it was kept.
    expect(undelivered.Properties?.TimeToLiveSpecification).toEqual({ AttributeName: 'expires_at', Enabled: true });
    expect(undelivered.Properties?.SSESpecification).toEqual({ SSEEnabled: true });
    expect(undelivered.Properties?.StreamSpecification).toBeUndefined();
    const consumer = resourcesOf(template)[id('LifecycleEvents/Consumer/Function')];
    const variables = (consumer!.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.UNDELIVERED_EVENT_DAYS).toBe('14');
    expect(variables.UNDELIVERED_EVENTS_TABLE_NAME).toEqual({ Ref: id('Tables/UndeliveredEvents') });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `UserManagement-${stage}-lifecycle-events-undelivered`,
      Namespace: `UserManagement/${stage}`,
      MetricName: 'undeliveredEvents',
      Statistic: 'Sum',
      Period: 60,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      AlarmActions: [Match.anyValue()],
    });
    template.hasOutput('UndeliveredEventsTableName', { Value: { Ref: id('Tables/UndeliveredEvents') } });
  });

  it('outputs: the bus name and ARN, and the ledger for the admin CLI', () => {
    const { id, template } = prod;
    template.hasOutput('EventBusName', { Value: { Ref: id('LifecycleEvents/Bus') } });
    template.hasOutput('EventBusArn', { Value: { 'Fn::GetAtt': [id('LifecycleEvents/Bus'), 'Arn'] } });
    template.hasOutput('DeletionsTableName', { Value: { Ref: id('Tables/Deletions') } });
  });
});

describe('no log line can carry an e-mail', () => {
  it("API Gateway's access log records request metadata only: never a body, path or query string, where an e-mail could travel", () => {
    const variables = Object.values(accessLogFields(prod.template));
    // E-mails travel only in request bodies. $context.path would carry whatever a caller typed
    // into the URL; resourcePath is the route template, the same for every request to it.
    const allowed = [
      '$context.requestId',
      '$context.extendedRequestId',
      '$context.requestTimeEpoch',
      '$context.identity.sourceIp',
      '$context.identity.userAgent',
      '$context.httpMethod',
      '$context.resourcePath',
      '$context.protocol',
      '$context.status',
      '$context.responseLength',
      '$context.responseLatency',
      '$context.integration.status',
      '$context.integration.latency',
      '$context.error.responseType',
      '$context.error.message',
    ];
    expect(variables.filter((variable) => !allowed.includes(variable))).toEqual([]);
    expect(JSON.stringify(accessLogFields(prod.template))).not.toMatch(/\$input|\$context\.path|querystring|requestOverride|\$method/i);
  });

  it('no function logs request or response bodies through API Gateway data traces', () => {
    prod.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ DataTraceEnabled: false })],
    });
  });
});
