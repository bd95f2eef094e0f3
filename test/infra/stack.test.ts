import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { CATALOGUE } from '#contract/operations';
import { IDEMPOTENCY_TABLE, OWNERS_TABLE, SIGN_IN_TABLE, type TableLayout, USERS_TABLE } from '#store/table-layout';
import { buildOpenApiDocument, OPENAPI_PATH, SERVED_BASE_URL, serializeOpenApiDocument } from '../../codegen/openapi';
import { buildApp } from '../../lib/app';
import { GATEWAY_MESSAGES, openApiResponseTemplate } from '../../lib/constructs/api';
import { LEDGER_RECOVERY_PERIOD_DAYS } from '../../lib/constructs/tables';
import { STAGES } from '../../lib/stage-config';
import { OPERATIONS, type Operation } from '../../lib/user-management-stack';
import {
  accessLogFields,
  accessLogLine,
  baseStage,
  expectedAlarmNames,
  functionPath,
  resourcesOf,
  statementsOfRole,
  synthStage,
  TEST_REGION,
} from './synth';

const prod = baseStage('prod');
const staging = baseStage('staging');
const dev = baseStage('dev');
const byStage = { prod, staging, dev };
/** The functions a caller invokes, by construct path: each operation's and the stream consumer's (not the pre-traffic hooks). */
const INVOKED = [...OPERATIONS.map((operation) => `${functionPath(operation)}/Function`), 'LifecycleEvents/Consumer/Function'];

describe('tables', () => {
  it.each(STAGES)(
    '%s: every table of the Tables construct (users, owners, idempotency, deletion ledger, undelivered events, sign-in state) on-demand, encrypted, with point-in-time recovery',
    (stage) => {
      const { template } = byStage[stage];
      const ofTables = Object.entries(byStage[stage].logicalIds).filter(
        ([path, logical]) => path.startsWith('Tables/') && resourcesOf(template)[logical]?.Type === 'AWS::DynamoDB::Table',
      );
      template.resourceCountIs('AWS::DynamoDB::Table', ofTables.length);
      template.allResourcesProperties('AWS::DynamoDB::Table', {
        BillingMode: 'PAY_PER_REQUEST',
        SSESpecification: { SSEEnabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: Match.anyValue() },
      });
    },
  );

  it('uses the shared table layout for keys and indexes', () => {
    const { template, id } = prod;
    const keySchema = (layout: Pick<TableLayout, 'partitionKey' | 'sortKey'>) => [
      { AttributeName: layout.partitionKey.name, KeyType: 'HASH' },
      ...(layout.sortKey ? [{ AttributeName: layout.sortKey.name, KeyType: 'RANGE' }] : []),
    ];
    const users = resourcesOf(template)[id('Tables/Users')];
    expect(users?.Properties?.KeySchema).toEqual(keySchema(USERS_TABLE));
    expect(users?.Properties?.GlobalSecondaryIndexes).toBeUndefined();
    const owners = resourcesOf(template)[id('Tables/Owners')];
    expect(owners?.Properties?.KeySchema).toEqual(keySchema(OWNERS_TABLE));
    expect(owners?.Properties?.GlobalSecondaryIndexes).toEqual(
      OWNERS_TABLE.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: keySchema(index),
        Projection: { ProjectionType: 'ALL' },
      })),
    );
    const idempotency = resourcesOf(template)[id('Tables/Idempotency')];
    expect(idempotency?.Properties?.KeySchema).toEqual(keySchema(IDEMPOTENCY_TABLE));
  });

  it.each(STAGES)(
    '%s: idempotency records and the sign-in state expire through DynamoDB TTL on expires_at; the users and owners tables never',
    (stage) => {
      const { template, id } = byStage[stage];
      const resources = resourcesOf(template);
      for (const table of ['Tables/Idempotency', 'Tables/SignIn']) {
        expect(resources[id(table)]?.Properties?.TimeToLiveSpecification).toEqual({
          AttributeName: 'expires_at',
          Enabled: true,
        });
      }
      // No TTL on the users table: no role that may write the sign-in state's expiry can make DynamoDB delete a profile.
      for (const table of ['Tables/Users', 'Tables/Owners']) {
        expect(resources[id(table)]?.Properties?.TimeToLiveSpecification).toBeUndefined();
      }
    },
  );

  it('the sign-in table: the shared layout, no stream (no sign-in write reaches the lifecycle events), backups of one day', () => {
    const { template, id } = prod;
    const signIn = resourcesOf(template)[id('Tables/SignIn')];
    expect(signIn?.Properties?.KeySchema).toEqual([
      { AttributeName: SIGN_IN_TABLE.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: SIGN_IN_TABLE.sortKey!.name, KeyType: 'RANGE' },
    ]);
    expect(signIn?.Properties?.StreamSpecification).toBeUndefined();
    expect(signIn?.Properties?.PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: true,
      RecoveryPeriodInDays: LEDGER_RECOVERY_PERIOD_DAYS,
    });
  });

  it.each(['prod', 'staging'] as const)('%s: deletion protection on, tables retained on delete and replace', (stage) => {
    const { template } = byStage[stage];
    template.allResources('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    template.allResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Retain' });
  });

  it('dev: disposable tables, no deletion protection', () => {
    dev.template.allResources('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
      DeletionPolicy: 'Delete',
    });
    dev.template.allResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
    expect(dev.terminationProtection).toBe(false);
    expect(prod.terminationProtection).toBe(true);
  });
});

describe('functions', () => {
  it('three API functions and the stream consumer on Node 24, arm64, handler export "handler", source maps on; a pre-traffic hook for each', () => {
    // A gradual stage adds one pre-traffic hook per released function (release.test.ts).
    prod.template.resourceCountIs('AWS::Lambda::Function', 2 * (OPERATIONS.length + 1));
    prod.template.allResourcesProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
    });
    for (const fn of INVOKED)
      expect(resourcesOf(prod.template)[prod.id(fn)]?.Properties?.Environment).toEqual({
        Variables: expect.objectContaining({ NODE_OPTIONS: '--enable-source-maps' }),
      });
  });

  it.each(OPERATIONS)('%s: environment, memory, timeout under API Gateway 29 s, own log group', (operation) => {
    const { template, id } = prod;
    const fn = resourcesOf(template)[id(`${functionPath(operation)}/Function`)];
    expect(fn?.Properties?.Environment).toEqual({
      Variables: {
        USERS_TABLE_NAME: { Ref: id('Tables/Users') },
        OWNERS_TABLE_NAME: { Ref: id('Tables/Owners') },
        IDEMPOTENCY_TABLE_NAME: { Ref: id('Tables/Idempotency') },
        SIGN_IN_TABLE_NAME: { Ref: id('Tables/SignIn') },
        PASSWORD_MIN_LENGTH: '8',
        PASSWORD_MAX_LENGTH: '1024',
        ARGON2_SETTING: 'm=7168,t=5,p=1',
        API_KEY_CACHE_TTL_SECONDS: '30',
        POWERTOOLS_SERVICE_NAME: 'user-management',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_METRICS_NAMESPACE: 'UserManagement/prod',
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
    // The size the bench chose for this function (the catalogue's memoryMb).
    expect(fn?.Properties?.MemorySize).toBe(CATALOGUE[operation].memoryMb);
    expect(fn?.Properties?.Timeout).toBeLessThan(29);
    expect(fn?.Properties?.LoggingConfig).toEqual({ LogGroup: { Ref: id(`${functionPath(operation)}/Logs`) } });
  });

  it.each([
    ['prod', 365],
    ['staging', 30],
    ['dev', 7],
  ] as const)('%s: every log group has a retention of %i days', (stage, days) => {
    byStage[stage].template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: days });
  });

  it('context overrides the password policy, key-cache TTL and log level', () => {
    const { template } = synthStage('prod', {
      passwordMinLength: '12',
      passwordMaxLength: '256',
      apiKeyCacheTtlSeconds: '5',
      logLevel: 'warn',
    });
    // The API functions; the stream consumer hashes nothing and resolves no key (its environment is tested below).
    template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      {
        Environment: {
          Variables: Match.objectLike({
            PASSWORD_MIN_LENGTH: '12',
            PASSWORD_MAX_LENGTH: '256',
            API_KEY_CACHE_TTL_SECONDS: '5',
            POWERTOOLS_LOG_LEVEL: 'WARN',
          }),
        },
      },
      OPERATIONS.length,
    );
  });
});

describe('the argon2id setting', () => {
  it('is a stage setting: -c argon2 picks another of OWASP five for every API function', () => {
    const { template } = synthStage('prod', { argon2: 'm=19456,t=2,p=1' });
    template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      { Environment: { Variables: Match.objectLike({ ARGON2_SETTING: 'm=19456,t=2,p=1' }) } },
      OPERATIONS.length,
    );
  });

  it('refuses anything but OWASP five at synth, naming them', () => {
    expect(() => synthStage('prod', { argon2: 'm=4096,t=1,p=1' })).toThrow(
      `Context argon2 must be one of OWASP's five argon2id settings (m=47104,t=1,p=1 | m=19456,t=2,p=1 | m=12288,t=3,p=1 | m=9216,t=4,p=1 | m=7168,t=5,p=1), got "m=4096,t=1,p=1"`,
    );
  });
});

describe('least privilege', () => {
  /** Each function's actions on the users table: GetItem, and its catalogue entry's. */
  const expected = Object.fromEntries(
    OPERATIONS.map((operation) => [
      operation,
      ['GetItem', ...CATALOGUE[operation].usersTableActions].map((action) => `dynamodb:${action}`).sort(),
    ]),
  ) as Record<Operation, string[]>;

  it.each(OPERATIONS)(
    '%s: its own log group, GetItem on owners, UpdateItem of last_used_at only, exactly its actions on users, idempotency records and the sign-in state',
    (operation) => {
      const { template, id } = prod;
      const fn = functionPath(operation);
      const tableArn = (table: string) => ({ 'Fn::GetAtt': [id(`Tables/${table}`), 'Arn'] });
      const statements = statementsOfRole(template, id(`${fn}/Role`));
      const signInActions = (CATALOGUE[operation].signInTableActions ?? []).map((action) => `dynamodb:${action}`).sort();
      expect(statements).toHaveLength(6 + (signInActions.length > 0 ? 1 : 0));
      // The sign-in table only to erase a deleted user's part of it: deleteUser alone.
      expect(statements.filter((s) => JSON.stringify(s.Resource) === JSON.stringify(tableArn('SignIn')))).toEqual(
        signInActions.length > 0 ? [{ Effect: 'Allow', Action: signInActions, Resource: tableArn('SignIn') }] : [],
      );
      expect(statements).toEqual(
        expect.arrayContaining([
          {
            Effect: 'Allow',
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: { 'Fn::GetAtt': [id(`${fn}/Logs`), 'Arn'] },
          },
          // X-Ray active tracing: these two actions take no resource.
          { Effect: 'Allow', Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Resource: '*' },
          { Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: tableArn('Owners') },
          // The key's last use: an UpdateItem that may name the key and last_used_at only, and returns nothing.
          {
            Effect: 'Allow',
            Action: ['dynamodb:UpdateItem'],
            Resource: tableArn('Owners'),
            Condition: {
              'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'last_used_at'] },
              StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
            },
          },
          { Effect: 'Allow', Action: expected[operation], Resource: tableArn('Users') },
          // Claim a key, record the response, drop the claim after a 500; never read, scan or query it.
          {
            Effect: 'Allow',
            Action: ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
            Resource: tableArn('Idempotency'),
          },
        ]),
      );
      const role = resourcesOf(template)[id(`${fn}/Role`)];
      expect(role?.Properties?.ManagedPolicyArns).toBeUndefined();
      expect(role?.Properties?.Policies).toBeUndefined();
    },
  );

  it('no statement anywhere allows a wildcard action', () => {
    const actions = Object.values(resourcesOf(prod.template))
      .filter((resource) => resource.Type === 'AWS::IAM::Policy')
      .flatMap(
        (policy) => (policy.Properties?.PolicyDocument as { Statement: { Action: string | string[] }[] } | undefined)?.Statement ?? [],
      )
      .flatMap((statement) => [statement.Action].flat());
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });
});

describe('REST API', () => {
  /** The document a stage's GET /openapi.json returns, decoded from its response template (one base64 literal). */
  const servedDocument = (template: Template) => {
    const [method] = Object.values(resourcesOf(template)).filter(
      (resource) => resource.Type === 'AWS::ApiGateway::Method' && resource.Properties?.HttpMethod === 'GET',
    );
    const integration = method?.Properties?.Integration as { IntegrationResponses: { ResponseTemplates: Record<string, string> }[] };
    const responseTemplate = integration.IntegrationResponses[0]!.ResponseTemplates['application/json']!;
    return Buffer.from(/^\$util\.base64Decode\("([A-Za-z0-9+/=]*)"\)$/.exec(responseTemplate)![1]!, 'base64').toString('utf8');
  };

  it.each(STAGES)(
    '%s: GET /openapi.json returns openapi.json from API Gateway itself, without a key, naming its server relative to where it is served',
    (stage) => {
      const { template, id } = byStage[stage];
      const document = serializeOpenApiDocument(buildOpenApiDocument());
      template.hasResourceProperties('AWS::ApiGateway::Resource', {
        PathPart: 'openapi.json',
        ParentId: { 'Fn::GetAtt': [id('Api/Api'), 'RootResourceId'] },
      });
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: 'GET',
        ResourceId: { Ref: id('Api/Api/Default/openapi.json') },
        AuthorizationType: 'NONE',
        Integration: {
          Type: 'MOCK',
          PassthroughBehavior: 'NEVER',
          RequestTemplates: { 'application/json': '{"statusCode": 200}' },
          IntegrationResponses: [
            {
              StatusCode: '200',
              ResponseTemplates: { 'application/json': openApiResponseTemplate(document) },
              ContentHandling: 'CONVERT_TO_TEXT',
            },
          ],
        },
        MethodResponses: [{ StatusCode: '200' }],
      });
      // The committed document byte for byte: its one server is `.`, resolved against the address it was
      // fetched from (execute-api URL, custom domain with a base path), so nothing of the request goes in.
      const served = servedDocument(template);
      expect(served).toBe(readFileSync(OPENAPI_PATH, 'utf8'));
      expect(SERVED_BASE_URL).toBe('.');
      expect(JSON.parse(served).servers).toEqual([{ url: '.', description: expect.any(String) }]);
      expect(JSON.stringify(template.toJSON())).not.toContain('$context.domainName');
      // API Gateway's limit on a mapping template.
      expect(Buffer.byteLength(openApiResponseTemplate(document))).toBeLessThan(300 * 1024);
    },
  );

  it("the served document states the stage's password policy", () => {
    const { template } = synthStage('prod', { passwordMinLength: '12', passwordMaxLength: '256' });
    const document = servedDocument(template);
    expect(document).toContain('user_password must be between 12 and 256 characters.');
    expect(JSON.parse(document).components.schemas.CreateUserRequest.properties.user_password).toMatchObject({
      minLength: 12,
      maxLength: 256,
    });
  });

  it('a regional REST API without API Gateway API keys', () => {
    prod.template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    prod.template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: 'user-management-prod',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    prod.template.resourceCountIs('AWS::ApiGateway::ApiKey', 0);
    prod.template.resourceCountIs('AWS::ApiGateway::UsagePlan', 0);
    prod.template.allResourcesProperties('AWS::ApiGateway::Method', { AuthorizationType: 'NONE', ApiKeyRequired: Match.absent() });
  });

  it('routes: /v1/<operation>, POST to its function, any other method a 405 with Allow: POST', () => {
    const { template, id } = prod;
    const resources = Object.values(resourcesOf(template)).filter((resource) => resource.Type === 'AWS::ApiGateway::Resource');
    expect(resources.map((resource) => resource.Properties?.PathPart).sort()).toEqual([...OPERATIONS, 'openapi.json', 'v1'].sort());
    template.resourceCountIs('AWS::ApiGateway::Method', OPERATIONS.length * 2 + 1);
    for (const operation of OPERATIONS) {
      const resourceId = id(`Api/Api/Default/v1/${operation}`);
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: 'POST',
        ResourceId: { Ref: resourceId },
        Integration: {
          Type: 'AWS_PROXY',
          IntegrationHttpMethod: 'POST',
          Uri: Match.objectLike({
            // The function's live alias, which a release moves (release.test.ts).
            'Fn::Join': ['', Match.arrayWith([{ Ref: id(`${functionPath(operation)}/Live`) }])],
          }),
        },
      });
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: 'ANY',
        ResourceId: { Ref: resourceId },
        Integration: {
          Type: 'MOCK',
          PassthroughBehavior: 'NEVER',
          RequestTemplates: { 'application/json': '{"statusCode": 405}' },
          IntegrationResponses: [
            {
              StatusCode: '405',
              ResponseTemplates: { 'application/json': '{"message":"Method Not Allowed"}' },
              ResponseParameters: { 'method.response.header.Allow': "'POST'" },
              ContentHandling: 'CONVERT_TO_TEXT',
            },
          ],
        },
        MethodResponses: [{ StatusCode: '405', ResponseParameters: { 'method.response.header.Allow': true } }],
      });
    }
  });

  it('every body reaches the functions as raw bytes (binary media types */*); the mock integrations take and give text, whatever Content-Type and Accept', () => {
    prod.template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
    type Integration = { Type?: string; ContentHandling?: string; IntegrationResponses?: { ContentHandling?: string }[] };
    const mocks = Object.values(resourcesOf(prod.template))
      .filter((resource) => resource.Type === 'AWS::ApiGateway::Method')
      .map((method) => method.Properties?.Integration as Integration)
      .filter((integration) => integration?.Type === 'MOCK');
    expect(mocks).toHaveLength(OPERATIONS.length + 1);
    // In: the request template applies to any body. Out: text data with a binary Accept type (every type, under */*)
    // stays a UTF-8 string only with CONVERT_TO_TEXT; undefined would be "Base64-decoded blob" (AWS's conversion table).
    expect(mocks.map((mock) => [mock.ContentHandling, mock.IntegrationResponses?.map((response) => response.ContentHandling)])).toEqual(
      mocks.map(() => ['CONVERT_TO_TEXT', ['CONVERT_TO_TEXT']]),
    );
  });

  it('API Gateway may invoke each function only from its own route', () => {
    for (const operation of OPERATIONS) {
      prod.template.resourcePropertiesCountIs(
        'AWS::Lambda::Permission',
        {
          Action: 'lambda:InvokeFunction',
          FunctionName: { Ref: prod.id(`${functionPath(operation)}/Live`) },
          Principal: 'apigateway.amazonaws.com',
          SourceArn: Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([`/POST/v1/${operation}`])] }),
        },
        1,
      );
    }
    prod.template.resourceCountIs('AWS::Lambda::Permission', OPERATIONS.length);
  });

  it.each([
    ['MISSING_AUTHENTICATION_TOKEN', '404', '{"message":"Not Found"}'],
    ['RESOURCE_NOT_FOUND', '404', '{"message":"Not Found"}'],
    ['THROTTLED', '429', '{"message":"Too Many Requests"}'],
    ['QUOTA_EXCEEDED', '429', '{"message":"Too Many Requests"}'],
    ['REQUEST_TOO_LARGE', '413', '{"message":"Request body too large."}'],
    ['INVALID_API_KEY', '401', '{"message":"Unauthorized: Invalid or unauthorized API key."}'],
    ['UNSUPPORTED_MEDIA_TYPE', '405', '{"message":"Method Not Allowed"}'],
    ['INTEGRATION_FAILURE', '500', '{"message":$context.error.messageString}'],
    ['INTEGRATION_TIMEOUT', '500', '{"message":$context.error.messageString}'],
    ['DEFAULT_4XX', undefined, '{"message":$context.error.messageString}'],
    ['DEFAULT_5XX', undefined, '{"message":$context.error.messageString}'],
  ])('gateway response %s: status %s, body %s', (type, status, body) => {
    prod.template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      StatusCode: status ?? Match.absent(),
      ResponseTemplates: { 'application/json': body },
    });
  });

  it('the 405 gateway response carries Allow: POST, and the messages match the contract', () => {
    prod.template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNSUPPORTED_MEDIA_TYPE',
      ResponseParameters: { 'gatewayresponse.header.Allow': "'POST'" },
    });
    expect(JSON.parse(GATEWAY_MESSAGES.notFound)).toEqual({ message: 'Not Found' });
    expect(JSON.parse(GATEWAY_MESSAGES.unauthorized)).toEqual({ message: 'Unauthorized: Invalid or unauthorized API key.' });
  });

  it.each([
    ['prod', 100, 200],
    ['staging', 50, 100],
    ['dev', 20, 40],
  ] as const)('%s: stage throttling %i rps, burst %i; access logs; error-only execution logs, no data trace', (stage, rate, burst) => {
    const { template, id } = byStage[stage];
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: stage,
      AccessLogSetting: {
        // The group's ARN without the `:*` suffix, as API Gateway takes it (a recommended feature flag).
        DestinationArn: { 'Fn::Join': ['', Match.arrayWith([{ Ref: id('Api/AccessLogs') }])] },
        // The status unquoted: a JSON number, which the 5xx metric filter compares.
        Format: Match.stringLikeRegexp('"status":\\$context.status,'),
      },
      MethodSettings: [
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: rate,
          ThrottlingBurstLimit: burst,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          MetricsEnabled: false,
        },
      ],
    });
  });

  it('throttling is configurable from context', () => {
    const { template } = synthStage('prod', { throttleRateLimit: '7', throttleBurstLimit: '9' });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 })],
    });
  });

  it('the access log format never includes headers or bodies', () => {
    const stage = Object.values(resourcesOf(prod.template)).find((resource) => resource.Type === 'AWS::ApiGateway::Stage');
    const format = (stage?.Properties?.AccessLogSetting as { Format: string } | undefined)?.Format ?? '';
    expect(Object.keys(accessLogFields(prod.template)).length).toBeGreaterThan(0);
    expect(format).not.toMatch(/header|input\.body|x-api-key/i);
  });

  it('the access log is JSON, one line per response, the status the client received a JSON number', () => {
    expect(accessLogFields(prod.template).status).toBe('$context.status');
    const line = JSON.parse(accessLogLine(prod.template, { '$context.status': 500, '$context.error.responseType': 'INTEGRATION_TIMEOUT' }));
    expect([line.status, line.errorType]).toEqual([500, 'INTEGRATION_TIMEOUT']);
  });
});

describe('outputs', () => {
  const outputValue = (name: string) => {
    const outputs = prod.template.toJSON().Outputs as Record<string, { Value: { 'Fn::Join': [string, unknown[]] } }>;
    return outputs[name]?.Value['Fn::Join'][1];
  };

  it('ApiUrl is the stage URL + /v1; BaseUrl is the stage URL (the API base_url)', () => {
    const stageRef = { Ref: prod.id('Api/Api/DeploymentStage.prod') };
    const prefix = ['https://', { Ref: prod.id('Api/Api') }, `.execute-api.${TEST_REGION}.`, { Ref: 'AWS::URLSuffix' }, '/', stageRef];
    expect(outputValue('BaseUrl')).toEqual(prefix);
    expect(outputValue('ApiUrl')).toEqual([...prefix, '/v1']);
  });

  it('exactly the documented outputs', () => {
    expect(Object.keys(prod.template.toJSON().Outputs as object).sort()).toEqual([
      'AlarmTopicArn',
      'ApiUrl',
      'Argon2Setting',
      'BaseUrl',
      'DashboardUrl',
      'DeletionsTableName',
      'EventBusArn',
      'EventBusName',
      'OwnersTableName',
      'SignInDescriptorParameter',
      'SignInDescriptorParameterArn',
      'SignInTableArn',
      'SignInTableName',
      'UndeliveredEventsTableName',
      'UsersTableArn',
      'UsersTableName',
    ]);
  });

  it('table names for the admin CLI and the dashboard link', () => {
    prod.template.hasOutput('UsersTableName', { Value: { Ref: prod.id('Tables/Users') } });
    prod.template.hasOutput('OwnersTableName', { Value: { Ref: prod.id('Tables/Owners') } });
    prod.template.hasOutput('DashboardUrl', Match.anyValue());
    prod.template.hasOutput('Argon2Setting', { Value: 'm=7168,t=5,p=1' });
  });
});

describe('monitoring', () => {
  /** Whether a metric filter's pattern of the form `{ $.field OP number }` matches a JSON log line (CloudWatch's numeric comparison). */
  const matches = (pattern: string, line: string) => {
    const [, field, op, number] = /^\{ \$\.(\w+) (>=|<=|>|<|=|!=) (\d+) \}$/.exec(pattern) ?? [];
    const value = (JSON.parse(line) as Record<string, unknown>)[field!];
    if (typeof value !== 'number') return false;
    const n = Number(number);
    return { '>=': value >= n, '<=': value <= n, '>': value > n, '<': value < n, '=': value === n, '!=': value !== n }[op!]!;
  };
  const metricFilters = (template: Template) =>
    Object.values(resourcesOf(template))
      .filter((resource) => resource.Type === 'AWS::Logs::MetricFilter')
      .map(
        (filter) => filter.Properties as { LogGroupName: unknown; FilterPattern: string; MetricTransformations: Record<string, unknown>[] },
      );

  it('counts the responses clients received, and the 5xx among them, from the access log: metric filters on the final status', () => {
    const { template, id } = prod;
    const accessLogs = { Ref: id('Api/AccessLogs') };
    expect(metricFilters(template)).toEqual([
      {
        LogGroupName: accessLogs,
        FilterPattern: '{ $.status >= 100 }',
        MetricTransformations: [{ MetricNamespace: 'UserManagement/prod', MetricName: 'apiResponses', MetricValue: '1', DefaultValue: 0 }],
      },
      {
        LogGroupName: accessLogs,
        FilterPattern: '{ $.status >= 500 }',
        MetricTransformations: [
          { MetricNamespace: 'UserManagement/prod', MetricName: 'apiResponses5xx', MetricValue: '1', DefaultValue: 0 },
        ],
      },
    ]);
  });

  it('the 5xx filter counts what API Gateway re-codes to 500 (integration failure and timeout) and every other 5xx, once each; nothing else', () => {
    const { template } = prod;
    const fivexx = metricFilters(template).find(
      (filter) => filter.MetricTransformations[0]?.MetricName === 'apiResponses5xx',
    )!.FilterPattern;
    const all = metricFilters(template).find((filter) => filter.MetricTransformations[0]?.MetricName === 'apiResponses')!.FilterPattern;
    const gatewayStatus = (type: string) =>
      Number(
        Object.values(resourcesOf(template)).find(
          (resource) => resource.Type === 'AWS::ApiGateway::GatewayResponse' && resource.Properties?.ResponseType === type,
        )?.Properties?.StatusCode,
      );
    // API Gateway's metrics reference: "API Gateway counts modified gateway response status codes as 4XXError errors."
    const lines = {
      integrationFailure: { '$context.status': gatewayStatus('INTEGRATION_FAILURE'), '$context.error.responseType': 'INTEGRATION_FAILURE' },
      integrationTimeout: { '$context.status': gatewayStatus('INTEGRATION_TIMEOUT'), '$context.error.responseType': 'INTEGRATION_TIMEOUT' },
      functionAnswered500: { '$context.status': 500, '$context.integration.status': 200 },
      gateway502: { '$context.status': 502, '$context.error.responseType': 'DEFAULT_5XX' },
      created: { '$context.status': 200, '$context.integration.status': 200 },
      notFound: { '$context.status': 404, '$context.error.responseType': 'MISSING_AUTHENTICATION_TOKEN' },
      throttled: { '$context.status': 429, '$context.error.responseType': 'THROTTLED' },
    };
    const counted = Object.entries(lines).map(([name, values]) => {
      const line = accessLogLine(template, values);
      return [name, matches(fivexx, line), matches(all, line)];
    });
    expect(counted).toEqual([
      ['integrationFailure', true, true],
      ['integrationTimeout', true, true],
      ['functionAnswered500', true, true],
      ['gateway502', true, true],
      ['created', false, true],
      ['notFound', false, true],
      ['throttled', false, true],
    ]);
  });

  it('alarms on the rate of 5xx clients received (from the access log), and on errors and throttles of every function', () => {
    const { template } = prod;
    // The monitoring's, the lifecycle events' (lifecycle-events.test.ts) and the release's (release.test.ts), each in its registry.
    const { alarms } = prod;
    template.resourceCountIs('AWS::CloudWatch::Alarm', alarms.monitoring.length + alarms.lifecycleEvents.length + alarms.versions.length);
    const metric = (name: string) =>
      Match.objectLike({
        MetricStat: Match.objectLike({ Metric: { Namespace: 'UserManagement/prod', MetricName: name }, Stat: 'Sum', Period: 300 }),
      });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'UserManagement-prod-api-5xx-rate',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(responses >= 20, 100 * responses5xx / responses, 0)', ReturnData: true }),
        metric('apiResponses'),
        metric('apiResponses5xx'),
      ]),
    });
    // API Gateway's 5XXError, which misses re-coded gateway responses, alarms no more: the dashboard keeps it beside the rate.
    const alarmMetrics = JSON.stringify(Object.values(resourcesOf(template)).filter((r) => r.Type === 'AWS::CloudWatch::Alarm'));
    expect(alarmMetrics).not.toContain('5XXError');
    for (const operation of OPERATIONS) {
      for (const metric of ['Errors', 'Throttles']) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          AlarmName: `UserManagement-prod-${operation}-${metric.toLowerCase()}`,
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        });
      }
    }
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it.each(STAGES)('%s, with nothing but the stage given: every alarm notifies the stage topic, on ALARM and OK', (stage) => {
    const { template } = byStage[stage];
    const alarms = Object.values(resourcesOf(template)).filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm');
    expect(alarms.map((alarm) => alarm.Properties?.AlarmName as string).sort()).toEqual(expectedAlarmNames(stage));
    const topic = Object.entries(resourcesOf(template)).find(([, resource]) => resource.Type === 'AWS::SNS::Topic');
    expect(topic).toBeDefined();
    for (const alarm of alarms) {
      expect([alarm.Properties?.AlarmActions, alarm.Properties?.OKActions]).toEqual([[{ Ref: topic![0] }], [{ Ref: topic![0] }]]);
    }
    // Encrypted with a key CloudWatch may use; named in an output.
    expect(topic![1].Properties?.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] }),
        ]),
      }),
    });
    template.hasOutput('AlarmTopicArn', { Value: { Ref: topic![0] } });
    expect(byStage[stage].config.alarmTopicArn).toBeUndefined();
  });

  it('alarmEmail subscribes an address to the stage topic', () => {
    const { template } = synthStage('prod', { alarmEmail: 'oncall@example.com' });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    expect(() => synthStage('prod', { alarmEmail: 'not an address' })).toThrow('Context alarmEmail is malformed');
  });

  it('alarms notify the topic given as context', () => {
    const topicArn = 'arn:aws:sns:eu-west-1:123456789012:alerts';
    const { template } = synthStage('prod', { alarmTopicArn: topicArn });
    template.allResourcesProperties('AWS::CloudWatch::Alarm', { AlarmActions: [topicArn], OKActions: [topicArn] });
  });
});

describe('X-Ray', () => {
  it.each([
    ['dev', 1],
    ['staging', 0.2],
    ['prod', 0.05],
  ] as const)('%s: active tracing on every function and the stage, sampled by its own rule at %d', (stage, rate) => {
    const { template, id } = byStage[stage];
    // Every function a caller invokes; the pre-traffic hooks, which only CodeDeploy invokes, are not traced.
    for (const fn of INVOKED) expect(resourcesOf(template)[id(fn)]?.Properties?.TracingConfig).toEqual({ Mode: 'Active' });
    template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
    template.hasResourceProperties('AWS::XRay::SamplingRule', {
      SamplingRule: Match.objectLike({
        FixedRate: rate,
        ReservoirSize: 1,
        ServiceName: `user-management-${stage}/${stage}`,
        ServiceType: 'AWS::ApiGateway::Stage',
      }),
    });
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  it.each(STAGES)('%s: no unacknowledged finding', (stage) => {
    expect(byStage[stage].nagViolations).toEqual([]);
  });

  it('a stage stack never sets the API Gateway account role (the account stack does)', () => {
    for (const { template } of Object.values(byStage)) template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });
});

describe('stage selection', () => {
  it('defaults to dev and names the stack after the stage', () => {
    expect(buildApp({ context: { 'aws:cdk:bundling-stacks': [] } }).stack.stackName).toBe('UserManagement-dev');
    expect(prod.stackName).toBe('UserManagement-prod');
  });

  it('refuses an unknown stage or a malformed number', () => {
    expect(() => buildApp({ context: { stage: 'qa' } })).toThrow(/Unknown stage "qa"/);
    expect(() => buildApp({ context: { stage: 'prod', throttleRateLimit: 'fast' } })).toThrow(/throttleRateLimit/);
    expect(() => buildApp({ context: { stage: 'prod', passwordMinLength: '20', passwordMaxLength: '10' } })).toThrow(/passwordMaxLength/);
  });
});

describe('cdk-nag acknowledgements', () => {
  // Each function's role: X-Ray's two actions take no resource (the consumer's also ListStreams);
  // the lifecycle events' dead-letter queue has none of its own.
  const decisions = [
    'AwsSolutions-APIG2',
    'AwsSolutions-APIG4',
    'AwsSolutions-COG4',
    ...Array.from({ length: OPERATIONS.length + 1 }, () => 'AwsSolutions-IAM5[Resource::*]'),
    'AwsSolutions-SQS3',
  ];

  // Staging and prod carry the stack's WAF web ACL, so APIG3 (no web ACL on the stage) is met, not acknowledged;
  // their releases run on CodeDeploy, whose service role carries AWS's managed policy for Lambda deployments.
  it.each(['prod', 'staging'] as const)('%s: exactly the expected design decisions, each with a reason', (stage) => {
    const { acknowledged } = byStage[stage];
    expect(acknowledged.map(([id]) => id.replace(/^annotation::/i, '')).sort()).toEqual(
      [
        ...decisions,
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
        // CodeDeploy may invoke each pre-traffic hook and its versions.
        ...[...OPERATIONS.map((operation) => operation[0]!.toUpperCase() + operation.slice(1)), 'LifecycleEventsConsumer'].map(
          (name) => `AwsSolutions-IAM5[Resource::<${byStage[stage].hooks[name]}.Arn>:*]`,
        ),
      ].sort(),
    );
    for (const [, reason] of acknowledged) expect(reason.length).toBeGreaterThan(60);
  });

  it('dev, without WAF by default: APIG3 too', () => {
    const { acknowledged } = dev;
    expect(acknowledged.map(([id]) => id.replace(/^annotation::/i, '')).sort()).toEqual([...decisions, 'AwsSolutions-APIG3'].sort());
  });
});
