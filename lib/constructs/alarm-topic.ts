import { Aws, type RemovalPolicy } from 'aws-cdk-lib';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/** The service that publishes an alarm's notifications. */
export const CLOUDWATCH_PRINCIPAL = 'cloudwatch.amazonaws.com';

export interface AlarmTopicProps {
  /** The topic's display name. */
  readonly displayName: string;
  /**
   * An address to subscribe (AWS sends it a confirmation e-mail first).
   * @default - no subscription: subscribe the team's tools to the topic (output `AlarmTopicArn`)
   */
  readonly email?: string;
  /** What happens to the topic and its key when the stack goes, or when either is replaced. */
  readonly removalPolicy: RemovalPolicy;
  /** Every alarm allowed to publish has a name that starts with this (the stack name). */
  readonly alarmNamePrefix: string;
}

/**
 * A stage's own alarm topic, for when the team names none: every alarm has somewhere to go from
 * the first deploy. Encrypted with a key of its own, because CloudWatch can publish to a topic
 * encrypted with a customer-managed key that lets it, and never to one under the AWS-managed SNS key.
 */
export class AlarmTopic extends Construct {
  readonly topic: ITopic;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    const cloudWatch = new ServicePrincipal(CLOUDWATCH_PRINCIPAL);
    const key = new Key(this, 'Key', {
      description: `Encrypts ${props.displayName}`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    // CloudWatch encrypts the message it publishes under the topic's key (key policy statement).
    key.grant(cloudWatch, 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new Topic(this, 'Topic', { displayName: props.displayName, masterKey: key, enforceSSL: true });
    // The team's subscriptions hang on the topic's ARN: a stage that keeps its data keeps its topic too.
    topic.applyRemovalPolicy(props.removalPolicy);
    // A topic policy replaces SNS's default one: with only enforceSSL's Deny, nothing may publish.
    // CloudWatch may, for this account's alarms of this stack only (the confused-deputy conditions).
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        effect: Effect.ALLOW,
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:${props.alarmNamePrefix}*` },
        },
      }),
    );
    if (props.email) topic.addSubscription(new EmailSubscription(props.email));
    this.topic = topic;
  }
}
