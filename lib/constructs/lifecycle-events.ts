import { CfnResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { type CfnEventSourceMapping, EventSourceMapping, FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LIFECYCLE_RECORD_PATTERNS } from '#events/record-filter';
import { UNDELIVERED_EVENT_DAYS } from '#platform/config';
import { UNDELIVERED_EVENTS_DIMENSIONS, UNDELIVERED_EVENTS_METRIC } from '#platform/metrics';
import { HandlerFunction } from './handler-function';
import { notifying } from './monitoring';

export interface LifecycleEventsProps {
  /** Path of the stream consumer's handler module. */
  readonly entry: string;
  /** Name of the stage's event bus. */
  readonly eventBusName: string;
  /** The users table; it must have a stream with both images. */
  readonly usersTable: ITable;
  /** The deletion ledger the consumer writes each deleted user to. */
  readonly deletionsTable: ITable;
  /** Where events that failed every try are kept whole for `admin replay-events`. */
  readonly undeliveredEventsTable: ITable;
  /** CloudWatch namespace of the consumer's metrics (its count of undelivered events). */
  readonly metricsNamespace: string;
  /** How long a deletion stays in the ledger: the users table's recovery period. */
  readonly recoveryPeriodDays: number;
  /** Environment the consumer shares with the other functions (log level, service name). */
  readonly environment: Readonly<Record<string, string>>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * Where the dead-letter and lag alarms send ALARM and OK notifications.
   * @default - no notification
   */
  readonly alarmTopic?: ITopic;
  /**
   * Delivery attempts of a failing batch before it goes to the dead-letter queue (Lambda bisects it first).
   * @default 8
   */
  readonly retryAttempts?: number;
}

/**
 * Lifecycle events: the users table's stream, filtered at the event source mapping to profile items
 * and none of a sign-in's writes (associated items and sign-ins never invoke anything), a consumer that publishes UserCreated, UserPasswordReset
 * and UserDeleted to the stage's EventBridge bus and records deletions in the ledger, and a
 * dead-letter queue with an alarm for batches that could not be delivered.
 */
export class LifecycleEvents extends Construct {
  readonly bus: EventBus;
  readonly consumer: HandlerFunction;
  readonly deadLetters: Queue;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: LifecycleEventsProps) {
    super(scope, id);
    const prefix = Stack.of(this).stackName;

    this.bus = new EventBus(this, 'Bus', { eventBusName: props.eventBusName, description: 'User lifecycle events (user-management)' });

    // The last resort, when even keeping an event in the undelivered-events table failed: Lambda's
    // record of the stream positions (shard, sequence numbers), never the items; the records
    // themselves stay readable in the stream for 24 hours.
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });

    this.consumer = new HandlerFunction(this, 'Consumer', {
      wildcardReason:
        'dynamodb:ListStreams, which the stream event source mapping needs, has no resource-level permissions (every other stream action is granted on this stream only)',
      entry: props.entry,
      description: `Publishes user lifecycle events from the users table's stream to ${props.eventBusName}`,
      environment: {
        ...props.environment,
        EVENT_BUS_NAME: this.bus.eventBusName,
        DELETIONS_TABLE_NAME: props.deletionsTable.tableName,
        UNDELIVERED_EVENTS_TABLE_NAME: props.undeliveredEventsTable.tableName,
        UNDELIVERED_EVENT_DAYS: String(UNDELIVERED_EVENT_DAYS.default),
        RECOVERY_PERIOD_DAYS: String(props.recoveryPeriodDays),
      },
      memorySize: 256,
      timeout: Duration.seconds(30),
      hashesPasswords: false,
      ...(props.logRetention && { logRetention: props.logRetention }),
      ...(props.logRemovalPolicy && { logRemovalPolicy: props.logRemovalPolicy }),
    });
    this.consumer.allow(props.deletionsTable, 'PutItem');
    this.consumer.allow(props.undeliveredEventsTable, 'PutItem');
    this.bus.grantPutEventsTo(this.consumer.role);

    // The mapping invokes the live alias, which a release moves (lib/constructs/release.ts).
    this.consumer.alias.addEventSource(
      new DynamoEventSource(props.usersTable, {
        // Nothing written before the mapping existed is missed (the stream is created with it).
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        // Profile items only, and none of a sign-in's writes (events/record-filter.ts, which npm start's
        // delivery applies too): a delete with thousands of associated items invokes the function once,
        // and signing users in never does.
        filters: LIFECYCLE_RECORD_PATTERNS.map((pattern) => FilterCriteria.filter(pattern)),
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: props.retryAttempts ?? 8,
        maxRecordAge: Duration.hours(24),
        onFailure: new SqsDlq(this.deadLetters),
      }),
    );
    this.keepMappingInPlace();

    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "This queue is the dead-letter queue (the stream mapping's on-failure destination); it has none of its own by design.",
    });

    const period = Duration.minutes(5);
    this.addAlarm(
      new Alarm(this, 'UndeliveredEventsAlarm', {
        alarmName: `${prefix}-lifecycle-events-undelivered`,
        alarmDescription:
          'A lifecycle event failed every delivery try and is kept whole in the undelivered-events table: fix the cause, then `admin replay-events` (docs/operations.md).',
        metric: new Metric({
          namespace: props.metricsNamespace,
          metricName: UNDELIVERED_EVENTS_METRIC,
          dimensionsMap: { ...UNDELIVERED_EVENTS_DIMENSIONS },
          period: Duration.minutes(1),
          statistic: Stats.SUM,
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      props.alarmTopic,
    );
    this.addAlarm(
      new Alarm(this, 'DeadLettersAlarm', {
        alarmName: `${prefix}-lifecycle-events-dead-letters`,
        alarmDescription:
          'Lifecycle events were neither delivered nor kept after every retry: the batch positions are in the dead-letter queue, the records in the stream for 24 hours.',
        metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period, statistic: Stats.MAXIMUM }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      props.alarmTopic,
    );
    this.addAlarm(
      new Alarm(this, 'LagAlarm', {
        alarmName: `${prefix}-lifecycle-events-lag`,
        alarmDescription: 'Lifecycle events are more than 5 minutes behind the users table (the consumer fails or is throttled).',
        metric: this.consumer.function.metric('IteratorAge', { period, statistic: Stats.MAXIMUM }),
        threshold: 5 * 60 * 1000,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      props.alarmTopic,
    );
  }

  /**
   * The mapping holds the consumer's position in the stream. It used to hang on the function; under
   * the alias its construct path, and so its logical id, would change, and CloudFormation would create
   * a new mapping (starting again at TRIM_HORIZON: up to 24 hours of events delivered twice) and delete
   * the old one. Kept at its former logical id, it is updated in place (FunctionName: "Update requires:
   * No interruption") and keeps its position.
   */
  private keepMappingInPlace(): void {
    const mapping = this.consumer.alias.node.children.find((child) => child instanceof EventSourceMapping);
    if (!mapping) throw new Error('the consumer has no event source mapping');
    // The logical id a construct of that id gets under the function: the id CloudFormation already knows.
    const probe = new CfnResource(new Construct(this.consumer.function, mapping.node.id), mapping.node.defaultChild!.node.id, {
      type: 'UserManagement::Probe::LogicalId',
    });
    const formerId = Stack.of(this).getLogicalId(probe);
    this.consumer.function.node.tryRemoveChild(mapping.node.id);
    (mapping.node.defaultChild as CfnEventSourceMapping).overrideLogicalId(formerId);
  }

  private addAlarm(alarm: Alarm, topic: ITopic | undefined): void {
    this.alarms.push(notifying(alarm, topic));
  }
}
