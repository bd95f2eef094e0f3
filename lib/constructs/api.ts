import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  ContentHandling,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import { Construct } from 'constructs';
import { API_VERSION } from '#contract/operations';
import { accessLogFormat } from './access-log';

/** The API's version prefix (the catalogue's): every route lives under it. */
export const API_VERSION_PATH = API_VERSION;

/** Where each stage publishes its OpenAPI document: `{baseUrl}/openapi.json`. */
export const OPENAPI_PATH_PART = 'openapi.json';

/**
 * The response template that returns the document as it is: base64 keeps VTL from reading its
 * `$ref`s and `#` pointers as references, directives or comments. Nothing of the request goes in:
 * the document names its server relative to where it is served, which `$context.domainName` and
 * `$context.stage` could not spell behind a custom domain with a base path mapping.
 */
export const openApiResponseTemplate = (document: string) => `$util.base64Decode("${Buffer.from(document, 'utf8').toString('base64')}")`;

/** API Gateway's own answers, in the contract's `{"message": ...}` shape and statuses. */
export const GATEWAY_MESSAGES = {
  notFound: '{"message":"Not Found"}',
  methodNotAllowed: '{"message":"Method Not Allowed"}',
  tooManyRequests: '{"message":"Too Many Requests"}',
  tooLarge: '{"message":"Request body too large."}',
  unauthorized: '{"message":"Unauthorized: Invalid or unauthorized API key."}',
  // Gateway response templates do only variable substitution; messageString is already JSON-quoted.
  passThrough: '{"message":$context.error.messageString}',
} as const;

export interface UserManagementApiProps {
  /** Name of the REST API, unique per stage so metrics and consoles tell the stages apart. */
  readonly apiName: string;
  /** Stage name in the URL (`https://.../<stageName>/v1/...`). */
  readonly stageName: string;
  /** One handler per route: `POST /v1/<operation>`. */
  readonly routes: Readonly<Record<string, IFunction>>;
  /** Steady-state requests per second before API Gateway answers 429. */
  readonly throttleRateLimit: number;
  /** Burst above the steady rate. */
  readonly throttleBurstLimit: number;
  /**
   * Retention of the stage's access logs and of API Gateway's execution logs.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * The OpenAPI document (serialised JSON), served as it is at `GET {baseUrl}/openapi.json` without a key.
   * @default no document route
   */
  readonly openApiDocument?: string;
  /**
   * The share of requests X-Ray traces (0 to 1) beyond one a second: the stage's sampling rule.
   * @default 0.05
   */
  readonly tracingSampleRate?: number;
}

/**
 * The public REST API: one POST route per operation under /v1, stage throttling, JSON access logs,
 * and gateway responses that keep the contract's messages for errors API Gateway answers itself.
 */
export class UserManagementApi extends Construct {
  readonly api: RestApi;
  readonly accessLogs: LogGroup;
  /** The group API Gateway writes the stage's execution logs to, created here so it gets the stage's retention. */
  readonly executionLogs: LogGroup;
  /** The stage URL without a trailing slash: the API's `{base_url}` (docs/api-contract.md). */
  readonly baseUrl: string;
  /** The versioned root, `${baseUrl}/v1`. */
  readonly versionedUrl: string;

  constructor(scope: Construct, id: string, props: UserManagementApiProps) {
    super(scope, id);
    const removalPolicy = props.logRemovalPolicy ?? RemovalPolicy.RETAIN;
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;

    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention, removalPolicy });

    this.api = new RestApi(this, 'Api', {
      restApiName: props.apiName,
      description: 'User management for white-label tools: create users, reset passwords, delete users.',
      // Callers are servers, not browsers: a regional endpoint skips the CloudFront hop of EDGE.
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // The account-wide logging role is one per account and region: the account stack sets it.
      cloudWatchRole: false,
      // Every body reaches the functions as its raw bytes, base64-encoded: as text, API Gateway
      // would replace bytes that are not UTF-8, and a password would be hashed altered.
      binaryMediaTypes: ['*/*'],
      deployOptions: {
        stageName: props.stageName,
        throttlingRateLimit: props.throttleRateLimit,
        throttlingBurstLimit: props.throttleBurstLimit,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: accessLogFormat(),
        // Execution logs for errors only; never data traces, which would write request bodies
        // (passwords) and headers (API keys) to CloudWatch.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: false,
        // X-Ray active tracing, sampled by the rule below; a trace holds no header or body.
        tracingEnabled: true,
      },
    });

    // API Gateway would create this group itself on the first execution log, with no retention and
    // outside the stack; created first, it is the stack's, with the stage's retention.
    this.executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stageName}`,
      retention,
      removalPolicy,
    });
    this.api.deploymentStage.node.addDependency(this.executionLogs);

    // RestApi adds an "Endpoint" output (the stage URL with a trailing slash); the stack publishes
    // BaseUrl and ApiUrl instead, so a third spelling of the same URL would only invite mistakes.
    this.api.node.tryRemoveChild('Endpoint');

    const version = this.api.root.addResource(API_VERSION_PATH);
    for (const [operation, handler] of Object.entries(props.routes)) {
      const resource = version.addResource(operation);
      resource.addMethod('POST', new LambdaIntegration(handler, { proxy: true, allowTestInvoke: false }));
      // Any other method on a known path: 405 with Allow, answered by API Gateway itself. An explicit
      // method always wins over ANY on the same resource, so POST still reaches the function.
      resource.addMethod('ANY', methodNotAllowedIntegration(), {
        methodResponses: [{ statusCode: '405', responseParameters: { 'method.response.header.Allow': true } }],
      });
    }

    if (props.openApiDocument !== undefined) this.addOpenApiDocument(props.openApiDocument);
    // X-Ray's rule for this stage only (its service name is `<api name>/<stage>`): one request a
    // second, then the given share; the functions follow the stage's decision.
    new CfnSamplingRule(this, 'Sampling', {
      samplingRule: {
        ruleName: props.apiName.slice(0, 32),
        priority: 1000,
        fixedRate: props.tracingSampleRate ?? 0.05,
        reservoirSize: 1,
        serviceName: `${props.apiName}/${props.stageName}`,
        serviceType: 'AWS::ApiGateway::Stage',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: '*',
        version: 1,
      },
    });
    this.addGatewayResponses();

    const stack = Stack.of(this);
    this.baseUrl = `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${this.api.deploymentStage.stageName}`;
    this.versionedUrl = `${this.baseUrl}/${API_VERSION_PATH}`;
  }

  /** `GET /openapi.json`, answered by API Gateway itself: no function, no key. */
  private addOpenApiDocument(document: string): void {
    this.api.root.addResource(OPENAPI_PATH_PART).addMethod(
      'GET',
      new MockIntegration({
        requestTemplates: { 'application/json': '{"statusCode": 200}' },
        // Every body is binary to this API (binaryMediaTypes): as text, the template applies.
        contentHandling: ContentHandling.CONVERT_TO_TEXT,
        passthroughBehavior: PassthroughBehavior.NEVER,
        integrationResponses: [
          { statusCode: '200', responseTemplates: { 'application/json': openApiResponseTemplate(document) }, ...MOCK_ANSWER_AS_TEXT },
        ],
      }),
      { methodResponses: [{ statusCode: '200' }] },
    );
  }

  private addGatewayResponses(): void {
    const json = (body: string) => ({ 'application/json': body });
    const respond = (id: string, type: ResponseType, statusCode: string, body: string, headers?: Record<string, string>) =>
      this.api.addGatewayResponse(id, { type, statusCode, templates: json(body), ...(headers && { responseHeaders: headers }) });

    // Without an authorizer, an unknown path or method is "Missing Authentication Token" (403).
    respond('UnknownRoute', ResponseType.MISSING_AUTHENTICATION_TOKEN, '404', GATEWAY_MESSAGES.notFound);
    respond('ResourceNotFound', ResponseType.RESOURCE_NOT_FOUND, '404', GATEWAY_MESSAGES.notFound);
    respond('Throttled', ResponseType.THROTTLED, '429', GATEWAY_MESSAGES.tooManyRequests);
    respond('QuotaExceeded', ResponseType.QUOTA_EXCEEDED, '429', GATEWAY_MESSAGES.tooManyRequests);
    respond('RequestTooLarge', ResponseType.REQUEST_TOO_LARGE, '413', GATEWAY_MESSAGES.tooLarge);
    // API Gateway's own API keys are off (keys live in DynamoDB and the functions check them); should
    // anyone turn them on, the caller still sees the contract's message.
    respond('InvalidApiKey', ResponseType.INVALID_API_KEY, '401', GATEWAY_MESSAGES.unauthorized);
    // Only the 405 mock integration has request templates, so only a non-JSON body sent with a wrong
    // method can produce this response: it is still a wrong method.
    respond('WrongMethodWithOtherMediaType', ResponseType.UNSUPPORTED_MEDIA_TYPE, '405', GATEWAY_MESSAGES.methodNotAllowed, {
      Allow: "'POST'",
    });
    // A function that crashed or timed out: the contract allows only 500 for unlisted failures.
    respond('IntegrationFailure', ResponseType.INTEGRATION_FAILURE, '500', GATEWAY_MESSAGES.passThrough);
    respond('IntegrationTimeout', ResponseType.INTEGRATION_TIMEOUT, '500', GATEWAY_MESSAGES.passThrough);
    this.api.addGatewayResponse('Default4xx', { type: ResponseType.DEFAULT_4XX, templates: json(GATEWAY_MESSAGES.passThrough) });
    this.api.addGatewayResponse('Default5xx', { type: ResponseType.DEFAULT_5XX, templates: json(GATEWAY_MESSAGES.passThrough) });
  }
}

// How a mock integration's answer leaves API Gateway. With binaryMediaTypes */* every Accept header
// names a binary type, and AWS's response conversion table ("Content type conversions in API
// Gateway") gives, for text data and a binary Accept type: contentHandling undefined, "Base64-decoded
// blob" (the template's JSON would be decoded as if it were base64); CONVERT_TO_TEXT, "UTF8-encoded
// string", as for a text Accept type. So the answer is converted to text, whatever the Accept header.
const MOCK_ANSWER_AS_TEXT = { contentHandling: ContentHandling.CONVERT_TO_TEXT } as const;

function methodNotAllowedIntegration(): MockIntegration {
  return new MockIntegration({
    requestTemplates: { 'application/json': '{"statusCode": 405}' },
    // Every body is binary to this API (binaryMediaTypes): as text, the template applies.
    contentHandling: ContentHandling.CONVERT_TO_TEXT,
    passthroughBehavior: PassthroughBehavior.NEVER,
    integrationResponses: [
      {
        statusCode: '405',
        responseTemplates: { 'application/json': GATEWAY_MESSAGES.methodNotAllowed },
        responseParameters: { 'method.response.header.Allow': "'POST'" },
        ...MOCK_ANSWER_AS_TEXT,
      },
    ],
  });
}
