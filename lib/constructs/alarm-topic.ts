import type { RemovalPolicy } from 'aws-cdk-lib';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlarmTopicProps {
  /** The topic's display name. */
  readonly displayName: string;
  /**
   * An address to subscribe (AWS sends it a confirmation e-mail first).
   * @default - no subscription: subscribe the team's tools to the topic (output `AlarmTopicArn`)
   */
  readonly email?: string;
  /** What happens to the topic's key when the stack goes. */
  readonly removalPolicy: RemovalPolicy;
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
    const key = new Key(this, 'Key', {
      description: `Encrypts ${props.displayName}`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new Topic(this, 'Topic', { displayName: props.displayName, masterKey: key, enforceSSL: true });
    if (props.email) topic.addSubscription(new EmailSubscription(props.email));
    this.topic = topic;
  }
}
