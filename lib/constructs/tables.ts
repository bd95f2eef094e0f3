import { RemovalPolicy } from 'aws-cdk-lib';
import { type AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import {
  DELETIONS_TABLE,
  IDEMPOTENCY_TABLE,
  OWNERS_TABLE,
  SIGN_IN_TABLE,
  type TableLayout,
  UNDELIVERED_EVENTS_TABLE,
  USERS_TABLE,
} from '#store/table-layout';

export interface TablesProps {
  /**
   * Keep the tables (and refuse to delete them) when the stack or the resource goes away.
   * @default true
   */
  readonly retainData?: boolean;
  /**
   * Point-in-time recovery period of the users, owners and idempotency tables, in days (1-35).
   * @default 35
   */
  readonly recoveryPeriodDays?: number;
}

/**
 * The deletion ledger's own recovery period. Its entries (owner, e-mail, time of a delete) expire
 * when the users table's window closes; a longer backup of the ledger would keep them past that.
 */
export const LEDGER_RECOVERY_PERIOD_DAYS = 1;

/** The users, owners and idempotency tables, the deletion ledger, the undelivered events and the sign-in state, built from the one shared table layout. */
export class Tables extends Construct {
  readonly users: Table;
  readonly owners: Table;
  /** Idempotency-Key records; DynamoDB's TTL removes them after their 24 hours. */
  readonly idempotency: Table;
  readonly deletions: Table;
  /** Lifecycle events kept whole after every delivery try failed, until replayed (TTL after 14 days). */
  readonly undeliveredEvents: Table;
  /** The sign-in module's state (failed attempts per e-mail; TTL for e-mails no user has), written by the tools' roles. */
  readonly signIn: Table;

  constructor(scope: Construct, id: string, props: TablesProps = {}) {
    super(scope, id);
    const retainData = props.retainData ?? true;
    const recoveryPeriodDays = props.recoveryPeriodDays ?? 35;
    this.users = tableFromLayout(this, 'Users', USERS_TABLE, retainData, recoveryPeriodDays);
    this.owners = tableFromLayout(this, 'Owners', OWNERS_TABLE, retainData, recoveryPeriodDays);
    // Its records are sealed under keys the service never stores; its backups follow the stage's period.
    this.idempotency = tableFromLayout(this, 'Idempotency', IDEMPOTENCY_TABLE, retainData, recoveryPeriodDays);
    this.deletions = tableFromLayout(this, 'Deletions', DELETIONS_TABLE, retainData, LEDGER_RECOVERY_PERIOD_DAYS);
    // Like the ledger, it names deleted users: its own backups reach back one day only.
    this.undeliveredEvents = tableFromLayout(this, 'UndeliveredEvents', UNDELIVERED_EVENTS_TABLE, retainData, LEDGER_RECOVERY_PERIOD_DAYS);
    // Counts of failed sign-ins, also of e-mails no user has: nothing to restore a week later, so one day, like the ledger.
    this.signIn = tableFromLayout(this, 'SignIn', SIGN_IN_TABLE, retainData, LEDGER_RECOVERY_PERIOD_DAYS);
  }
}

// The layout's 'S' is DynamoDB's own type letter, which is also AttributeType.STRING's value.
const attribute = (key: TableLayout['partitionKey']) => ({ name: key.name, type: key.type as AttributeType });

function tableFromLayout(scope: Construct, id: string, layout: TableLayout, retainData: boolean, recoveryPeriodDays: number): Table {
  const table = new Table(scope, id, {
    partitionKey: attribute(layout.partitionKey),
    ...(layout.sortKey && { sortKey: attribute(layout.sortKey) }),
    // Traffic is spiky and small; on-demand needs no capacity planning and cannot throttle a quiet tenant.
    billingMode: BillingMode.PAY_PER_REQUEST,
    // The AWS managed key (aws/dynamodb): encrypted at rest and auditable in CloudTrail, with no key
    // policy for callers to get wrong; the functions need no kms:* permission.
    encryption: TableEncryption.AWS_MANAGED,
    // Set explicitly: the period bounds how long deleted data stays restorable (the erasure horizon).
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: recoveryPeriodDays },
    ...(layout.stream && { stream: StreamViewType[layout.stream] }),
    ...(layout.timeToLiveAttribute && { timeToLiveAttribute: layout.timeToLiveAttribute }),
    deletionProtection: retainData,
    removalPolicy: retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
  for (const index of layout.globalSecondaryIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.indexName,
      partitionKey: attribute(index.partitionKey),
      ...(index.sortKey && { sortKey: attribute(index.sortKey) }),
      projectionType: ProjectionType.ALL,
    });
  }
  return table;
}
