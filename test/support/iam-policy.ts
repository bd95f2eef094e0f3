/**
 * The sign-in grant (lib/constructs/sign-in-grant.ts) as IAM would evaluate it: the policy a tool's CDK app
 * synthesizes, each DynamoDB request turned into the IAM requests it makes (its action per table, with the
 * condition keys DynamoDB puts in its request context), and a decision by an IAM policy evaluator
 * (`@cloud-copilot/iam-simulate`; why that one: ADR 26).
 *
 * The request context follows AWS's "Using IAM policy conditions for fine-grained access control":
 * `dynamodb:LeadingKeys` is the partition key of every item a request names; `dynamodb:Attributes` every
 * attribute name the request names (its key's, its projection's, its update and condition expressions');
 * `dynamodb:Select` is SPECIFIC_ATTRIBUTES for a read with a projection, else ALL_ATTRIBUTES ("the Select
 * parameter always has a value (ALL_ATTRIBUTES, unless otherwise specified)"); `dynamodb:ReturnValues` is the
 * write's, NONE unless given. A transaction is each of its items' actions. DynamoDB Local ignores IAM:
 * docs/data-contract.md gives the one check to run against a deployed stage.
 */

import { runSimulation } from '@cloud-copilot/iam-simulate';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { grantSignIn, type SignInGrantProps } from '../../lib/constructs/sign-in-grant';

export const ACCOUNT = '123456789012';
export const REGION = 'eu-west-1';
/** A table's ARN in the test account. */
export const tableArn = (name: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;

export interface PolicyDocument {
  readonly Version: string;
  readonly Statement: readonly Record<string, unknown>[];
}

/** The one policy a tool's stack gets from grantSignIn with these props (tables given by ARN). */
export function synthesizedGrant(props: SignInGrantProps): PolicyDocument {
  const stack = new Stack(new App(), 'Tool', { env: { region: REGION, account: ACCOUNT } });
  grantSignIn(new Role(stack, 'ToolRole', { assumedBy: new AccountRootPrincipal() }), props);
  const policies = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'));
  if (policies.length !== 1) throw new Error(`expected one policy, found ${policies.length}`);
  return (policies[0]!.Properties as { PolicyDocument: PolicyDocument }).PolicyDocument;
}

/** One IAM request: an action on a table, with DynamoDB's condition keys. */
export interface IamRequest {
  readonly action: string;
  readonly table: string;
  readonly context: Record<string, string | string[]>;
}

const WORDS = new Set(
  'SET REMOVE ADD DELETE AND OR NOT BETWEEN IN attribute_exists attribute_not_exists attribute_type begins_with contains size if_not_exists list_append'.split(
    ' ',
  ),
);

/** Every attribute name an expression names: `#placeholders` resolved, bare names as written. */
function namesIn(expression: string | undefined, placeholders: Record<string, string> = {}): string[] {
  if (!expression) return [];
  const names: string[] = [];
  for (const token of expression.match(/[#:]?[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    if (token.startsWith(':') || WORDS.has(token)) continue;
    if (token.startsWith('#')) {
      const name = placeholders[token];
      if (name === undefined) throw new Error(`no name for ${token}`);
      names.push(name);
    } else names.push(token);
  }
  return names;
}

type Input = Record<string, unknown> & {
  TableName?: string;
  Key?: Record<string, unknown>;
  Item?: Record<string, unknown>;
  ExpressionAttributeNames?: Record<string, string>;
};

const unique = (values: readonly string[]) => [...new Set(values)];
/** A partition key's value, whether the document client's or marshalled (`{ S: ... }`, as its middleware may see it). */
const stringOf = (value: unknown) =>
  typeof value === 'object' && value !== null && 'S' in value ? String((value as { S: unknown }).S) : String(value);
const leading = (keys: readonly Record<string, unknown>[]) => unique(keys.map((key) => stringOf(key.pk)));

/** The DynamoDB action of an SDK command, the low-level client's (`UpdateItemCommand`) or the document client's (`UpdateCommand`). */
const DOCUMENT_COMMANDS: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactWrite: 'TransactWriteItems',
};

/** The context of a single-item request on its table (PutItem, UpdateItem, DeleteItem, ConditionCheckItem, GetItem). */
function itemRequest(action: string, input: Input): IamRequest {
  const key = input.Key ?? input.Item ?? {};
  const names = input.ExpressionAttributeNames;
  const attributes = unique([
    ...Object.keys(input.Item ?? key),
    ...namesIn(input.ProjectionExpression as string | undefined, names),
    ...namesIn(input.UpdateExpression as string | undefined, names),
    ...namesIn(input.ConditionExpression as string | undefined, names),
  ]);
  const context: Record<string, string | string[]> = { 'dynamodb:LeadingKeys': leading([key]), 'dynamodb:Attributes': attributes };
  if (action === 'GetItem') context['dynamodb:Select'] = input.ProjectionExpression ? 'SPECIFIC_ATTRIBUTES' : 'ALL_ATTRIBUTES';
  if (action === 'UpdateItem' || action === 'PutItem' || action === 'DeleteItem')
    context['dynamodb:ReturnValues'] = (input.ReturnValues as string | undefined) ?? 'NONE';
  return { action: `dynamodb:${action}`, table: input.TableName!, context };
}

/** The partition key a Query's key condition names (`pk = :value`, the name possibly through ExpressionAttributeNames). */
function queriedPartition(input: Input): string[] {
  const condition = String(input.KeyConditionExpression ?? '');
  for (const [, name, value] of condition.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const attribute = name!.startsWith('#') ? input.ExpressionAttributeNames?.[name!] : name;
    if (attribute === 'pk') return [stringOf((input.ExpressionAttributeValues as Record<string, unknown>)[value!])];
  }
  throw new Error(`no partition key in the key condition ${condition}`);
}

/** The IAM requests a DynamoDB command (by its SDK command name, with its input) makes. */
export function iamRequests(commandName: string, input: Record<string, unknown>): IamRequest[] {
  const name = commandName.replace(/Command$/, '');
  const command = DOCUMENT_COMMANDS[name] ?? name;
  if (command === 'BatchGetItem') {
    const tables = input.RequestItems as Record<string, Input & { Keys: Record<string, unknown>[] }>;
    return Object.entries(tables).map(([table, read]) => ({
      action: 'dynamodb:BatchGetItem',
      table,
      context: {
        'dynamodb:LeadingKeys': leading(read.Keys),
        'dynamodb:Attributes': unique([
          ...read.Keys.flatMap((key) => Object.keys(key)),
          ...namesIn(read.ProjectionExpression as string | undefined, read.ExpressionAttributeNames),
        ]),
        'dynamodb:Select': read.ProjectionExpression ? 'SPECIFIC_ATTRIBUTES' : 'ALL_ATTRIBUTES',
      },
    }));
  }
  if (command === 'TransactWriteItems') {
    const kinds = { ConditionCheck: 'ConditionCheckItem', Update: 'UpdateItem', Delete: 'DeleteItem', Put: 'PutItem' } as const;
    return (input.TransactItems as Record<string, Input>[]).map((entry) => {
      const [kind, item] = Object.entries(entry)[0]! as [keyof typeof kinds, Input];
      return itemRequest(kinds[kind], item);
    });
  }
  if (['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'].includes(command)) return [itemRequest(command, input as Input)];
  if (command === 'Query' || command === 'Scan')
    return [
      {
        action: `dynamodb:${command}`,
        table: `${input.TableName}${input.IndexName ? `/index/${input.IndexName}` : ''}`,
        context: {
          'dynamodb:Select': (input.Select as string | undefined) ?? 'ALL_ATTRIBUTES',
          // A Query names one partition: the value its key condition sets `pk` equal to.
          ...(command === 'Query' && { 'dynamodb:LeadingKeys': queriedPartition(input as Input) }),
        },
      },
    ];
  throw new Error(`no IAM request model for ${commandName}`);
}

/** IAM's decision on one request under `policy` (the role's only identity policy): Allowed, ImplicitlyDenied or ExplicitlyDenied. */
export async function decide(policy: PolicyDocument, request: IamRequest): Promise<string> {
  const result = await runSimulation(
    {
      identityPolicies: [{ name: 'sign-in-grant', policy }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        action: request.action,
        principal: `arn:aws:iam::${ACCOUNT}:role/tool`,
        resource: { resource: tableArn(request.table), accountId: ACCOUNT },
        contextVariables: request.context,
      },
    } as unknown as Parameters<typeof runSimulation>[0],
    {},
  );
  if (result.resultType === 'error') throw new Error(`the evaluator refused the request: ${JSON.stringify(result.errors)}`);
  return result.overallResult;
}
