/**
 * Alarms that really reach someone: the stage's own topic lets CloudWatch publish (a topic policy
 * replaces SNS's default one) and its key lets CloudWatch encrypt; the team's topic must be in the
 * stack's region; staging and prod refuse to deploy while their alarms reach no one; the dashboard
 * lists every alarm of the stack.
 */

import { describe, expect, it } from '@jest/globals';
import * as layouts from '#store/table-layout';
import { OPERATIONS } from '../../lib/user-management-stack';
import { baseStage, expectedAlarmNames, expectedLogGroupCount, resourcesOf, synthStage, TEST_REGION } from './synth';

/** Every table the data layer defines (functions/shared/store/table-layout.ts): the stack must create and keep each. */
const TABLE_LAYOUTS = Object.values(layouts).filter(
  (value): value is layouts.TableLayout =>
    typeof value === 'object' && value !== null && 'partitionKey' in value && 'globalSecondaryIndexes' in value,
);

const prod = baseStage('prod');
const staging = baseStage('staging');
const dev = baseStage('dev');
/** The template's rules beside CDK's own bootstrap-version check. */
const rulesOf = (template: typeof prod.template) => {
  const { CheckBootstrapVersion: _, ...rules } = (template.toJSON().Rules ?? {}) as Record<string, { Assertions: object[] }>;
  return rules;
};

describe("the stage's own alarm topic", () => {
  it('lets CloudWatch publish, for this account and the alarms of this stack only, and still refuses publishing without TLS', () => {
    const topic = Object.entries(resourcesOf(prod.template)).find(([, resource]) => resource.Type === 'AWS::SNS::Topic')![0];
    prod.template.resourceCountIs('AWS::SNS::TopicPolicy', 1);
    prod.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topic }],
      PolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'AllowPublishThroughSSLOnly',
            Effect: 'Deny',
            Principal: '*',
            Action: 'sns:Publish',
            Resource: { Ref: topic },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          },
          {
            Sid: 'AllowCloudWatchAlarmsToPublish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: { Ref: topic },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': [
                    '',
                    [
                      'arn:',
                      { Ref: 'AWS::Partition' },
                      ':cloudwatch:',
                      { Ref: 'AWS::Region' },
                      ':',
                      { Ref: 'AWS::AccountId' },
                      ':alarm:UserManagement-prod*',
                    ],
                  ],
                },
              },
            },
          },
        ],
      },
    });
    // Every alarm's name starts with the prefix the policy allows.
    for (const alarm of Object.values(resourcesOf(prod.template)).filter((r) => r.Type === 'AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties?.AlarmName).toMatch(/^UserManagement-prod-/);
    }
  });

  it("its key's policy lets CloudWatch encrypt what it publishes (kms:Decrypt, kms:GenerateDataKey*)", () => {
    const [keyId, key] = Object.entries(resourcesOf(prod.template)).find(([, resource]) => resource.Type === 'AWS::KMS::Key')!;
    expect(key.Properties?.KeyPolicy).toMatchObject({
      Statement: expect.arrayContaining([
        {
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          Resource: '*',
        },
      ]),
    });
    prod.template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
  });
});

describe("the team's topic (alarmTopicArn)", () => {
  const otherRegion = TEST_REGION === 'eu-west-1' ? 'us-east-1' : 'eu-west-1';

  it('in another region than the deploy is refused at synth, in one line naming the setting', () => {
    expect(() => synthStage('prod', { alarmTopicArn: `arn:aws:sns:${otherRegion}:123456789012:alerts` })).toThrow(
      `alarmTopicArn is in ${otherRegion} but prod deploys to ${TEST_REGION}, and CloudWatch alarms notify only a topic of their own region: set a topic of ${TEST_REGION} in lib/stage-config.ts`,
    );
  });

  it('is checked against the region again by the template, where CloudFormation deploys it', () => {
    const { template } = synthStage('prod', { alarmTopicArn: `arn:aws:sns:${TEST_REGION}:123456789012:alerts` });
    expect(rulesOf(template)).toEqual({
      AlarmTopicInStackRegion: {
        Assertions: [
          {
            Assert: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, TEST_REGION] },
            AssertDescription: `alarmTopicArn is in ${TEST_REGION}, and CloudWatch alarms notify only a topic of their own region: deploy UserManagement-prod to ${TEST_REGION}, or set a topic of this region as alarmTopicArn in lib/stage-config.ts.`,
          },
        ],
      },
    });
    template.resourceCountIs('AWS::SNS::Topic', 0);
  });
});

describe('nobody paged by accident', () => {
  it.each([
    ['prod', prod],
    ['staging', staging],
  ] as const)('%s without alarmTopicArn or alarmEmail: the template refuses every deploy, naming the setting', (stage, { template }) => {
    expect(rulesOf(template)).toEqual({
      AlarmsHaveASubscriber: {
        Assertions: [
          {
            // Always false: CloudFormation checks rules before it changes anything, and fails with the description.
            Assert: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AWS::Region' }, { Ref: 'AWS::Region' }] }] },
            AssertDescription: `UserManagement-${stage}'s alarms reach no one: set alarmTopicArn (your alerting topic) or alarmEmail for ${stage} in lib/stage-config.ts, then deploy again.`,
          },
        ],
      },
    });
  });

  it('the synth itself works, with a warning saying the same', () => {
    expect(prod.warnings).toEqual([expect.stringContaining("UserManagement-prod's alarms reach no one: set alarmTopicArn")]);
  });

  it.each([{ alarmEmail: 'oncall@example.com' }, { alarmTopicArn: `arn:aws:sns:${TEST_REGION}:123456789012:alerts` }])(
    'prod with a subscriber (%o) deploys',
    (context) => {
      const { template, stack } = synthStage('prod', context);
      expect(rulesOf(template).AlarmsHaveASubscriber).toBeUndefined();
      expect(stack.node.metadata.filter((entry) => entry.type === 'aws:cdk:warning')).toEqual([]);
    },
  );

  it('dev may deploy without one', () => {
    expect(rulesOf(dev.template)).toEqual({});
  });
});

describe('dashboard', () => {
  const withBreachCheck = synthStage('prod', { pwnedPasswordsCheck: 'true' });

  it("every alarm the stack and the registry's operations imply, per stage; one more with the online password check on (its breach-check-unavailable)", () => {
    const names = (template: typeof prod.template) =>
      Object.values(resourcesOf(template))
        .filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm')
        .map((alarm) => alarm.Properties?.AlarmName as string);
    expect(names(prod.template).sort()).toEqual(expectedAlarmNames('prod'));
    expect(names(staging.template).sort()).toEqual(expectedAlarmNames('staging'));
    expect(names(dev.template).sort()).toEqual(expectedAlarmNames('dev'));
    const withCheck = names(withBreachCheck.template);
    expect(withCheck.sort()).toEqual(expectedAlarmNames('prod', { breachCheck: true }));
    expect(withCheck.filter((name) => !names(prod.template).includes(name))).toEqual(['UserManagement-prod-breach-check-unavailable']);
  });

  it.each([
    ['prod', prod],
    ['dev', dev],
    ['prod with the online check', withBreachCheck],
  ] as const)('%s: the alarm widget lists every alarm of the stack', (_, { template }) => {
    const alarms = Object.entries(resourcesOf(template))
      .filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm')
      .map(([id]) => id)
      .sort();
    const [dashboard] = Object.values(resourcesOf(template)).filter((resource) => resource.Type === 'AWS::CloudWatch::Dashboard');
    // The body is a Fn::Join of JSON text and tokens, each alarm's ARN a Fn::GetAtt inside a JSON string:
    // with each token written as the logical id it names, the body parses.
    const parts = (dashboard!.Properties!.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    const body = parts
      .map((part) => (typeof part === 'string' ? part : ((part as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt']?.[0] ?? 'token')))
      .join('');
    const widgets = (JSON.parse(body) as { widgets: { type: string; properties: { alarms?: string[] } }[] }).widgets;
    const listed = widgets.filter((widget) => widget.type === 'alarm').flatMap((widget) => widget.properties.alarms ?? []);
    expect(listed.sort()).toEqual(alarms);
  });
});

it('the latency alarm threshold must stay below the shortest function timeout, where it could fire', () => {
  expect(() => synthStage('prod', { latencyAlarmP99Ms: '10000' })).toThrow(
    'Context latencyAlarmP99Ms must be below the shortest function timeout (10000 ms), got 10000',
  );
  expect(() => synthStage('prod', { latencyAlarmP99Ms: '9999', alarmEmail: 'oncall@example.com' })).not.toThrow();
});

describe('what cdk destroy leaves (docs/deploy.md, "Remove a stage")', () => {
  /** Each resource the stack keeps when it is deleted, by type, as its DeletionPolicy says. */
  const retained = (template: typeof prod.template) => {
    const kept = Object.values(resourcesOf(template))
      .filter((resource) => resource.DeletionPolicy === 'Retain' || resource.DeletionPolicy === 'RetainExceptOnCreate')
      .map((resource) => `${resource.Type} ${resource.UpdateReplacePolicy}`);
    return Object.fromEntries([...new Set(kept)].sort().map((type) => [type, kept.filter((k) => k === type).length]));
  };

  it.each([
    ['prod', prod],
    ['staging', staging],
  ] as const)(
    "%s: every table, every function's log group and the API's two, the alarm topic and its key, the dead-letter queue (and the functions' versions, which go with their functions)",
    (_, { template }) => {
      expect(retained(template)).toEqual({
        'AWS::DynamoDB::Table Retain': TABLE_LAYOUTS.length,
        'AWS::KMS::Key Retain': 1,
        'AWS::Lambda::Version Retain': OPERATIONS.length + 1,
        // And each pre-traffic hook's (one per released function), which record the releases' verdicts.
        'AWS::Logs::LogGroup Retain': expectedLogGroupCount() + OPERATIONS.length + 1,
        'AWS::SNS::Topic Retain': 1,
        'AWS::SQS::Queue Retain': 1,
      });
    },
  );

  it('dev: nothing', () => {
    expect(retained(dev.template)).toEqual({});
  });
});
