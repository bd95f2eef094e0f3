import { RemovalPolicy } from 'aws-cdk-lib';
import { type AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { IDEMPOTENCY_TABLE, OWNERS_TABLE, type TableLayout, USERS_TABLE } from '../../functions/shared/table-layout';

export interface TablesProps {
  /**
   * Keep the tables (and refuse to delete them) when the stack or the resource goes away.
   * @default true
   */
  readonly retainData?: boolean;
}

/** The users, owners and idempotency tables, built from the one shared table layout. */
export class Tables extends Construct {
  readonly users: Table;
  readonly owners: Table;
  /** Idempotency-Key records; DynamoDB's TTL removes them after their 24 hours. */
  readonly idempotency: Table;

  constructor(scope: Construct, id: string, props: TablesProps = {}) {
    super(scope, id);
    const retainData = props.retainData ?? true;
    this.users = tableFromLayout(this, 'Users', USERS_TABLE, retainData);
    this.owners = tableFromLayout(this, 'Owners', OWNERS_TABLE, retainData);
    this.idempotency = tableFromLayout(this, 'Idempotency', IDEMPOTENCY_TABLE, retainData);
  }
}

// The layout's 'S' is DynamoDB's own type letter, which is also AttributeType.STRING's value.
const attribute = (key: TableLayout['partitionKey']) => ({ name: key.name, type: key.type as AttributeType });

function tableFromLayout(scope: Construct, id: string, layout: TableLayout, retainData: boolean): Table {
  const table = new Table(scope, id, {
    partitionKey: attribute(layout.partitionKey),
    ...(layout.sortKey && { sortKey: attribute(layout.sortKey) }),
    // Traffic is spiky and small; on-demand needs no capacity planning and cannot throttle a quiet tenant.
    billingMode: BillingMode.PAY_PER_REQUEST,
    // The AWS managed key (aws/dynamodb): encrypted at rest and auditable in CloudTrail, with no key
    // policy for callers to get wrong; the functions need no kms:* permission.
    encryption: TableEncryption.AWS_MANAGED,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: retainData,
    removalPolicy: retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    ...(layout.timeToLiveAttribute && { timeToLiveAttribute: layout.timeToLiveAttribute }),
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
