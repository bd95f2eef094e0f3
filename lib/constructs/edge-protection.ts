import type { IStage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { MESSAGES } from '#contract/messages';
import { API_KEY_PATTERN } from '#domain/api-keys';
import { MAX_BODY_BYTES } from '#http/middleware/parse-body';

/** The evaluation windows AWS WAF rate-based rules accept, in seconds. */
export const WAF_WINDOWS = [60, 120, 300, 600] as const;
export type WafWindowSeconds = (typeof WAF_WINDOWS)[number];
/** The bounds AWS WAF puts on a rate-based rule's limit (requests per window). */
export const WAF_MIN_LIMIT = 10;
export const WAF_MAX_LIMIT = 2_000_000_000;

/** The rules, in the order the web ACL evaluates them (first match decides). */
export const EDGE_RULES = {
  /** 401: a POST to an operation whose X-API-Key is absent, not shaped like an issued key, or repeated. */
  keyRequired: 'RefuseMissingOrMalformedKey',
  /** 429: one API key over its budget. */
  perKey: 'LimitPerApiKey',
  /** 429: one IP address over its budget of requests without a well-formed key. */
  perIpWithoutKey: 'LimitPerIpWithoutKey',
  /** 429: one IP address over its budget, whatever its keys. */
  perIp: 'LimitPerIp',
  /** 413: an operation's body over the contract's 16 KiB. */
  bodySize: 'RefuseLargeBody',
} as const;

/** The blocked responses, byte for byte the bodies the functions and API Gateway answer with. */
export const EDGE_RESPONSE_BODIES = {
  TooManyRequests: JSON.stringify({ message: MESSAGES.tooManyRequests }),
  Unauthorized: JSON.stringify({ message: MESSAGES.unauthorized }),
  BodyTooLarge: JSON.stringify({ message: MESSAGES.bodyTooLarge }),
} as const;

/** The header whose values key the per-key budget and must look like an issued key. */
const API_KEY_HEADER = 'x-api-key';

/** WAF inspects at most this much of an API Gateway body; it must be the contract's limit exactly. */
const BODY_INSPECTION_LIMITS: Record<number, string> = { 16384: 'KB_16', 32768: 'KB_32', 49152: 'KB_48', 65536: 'KB_64' };

export interface EdgeProtectionProps {
  /** The regional REST API stage the web ACL guards. */
  readonly stage: IStage & { readonly stageArn: string };
  /** Name of the web ACL; also the prefix of its CloudWatch metric names. */
  readonly name: string;
  /**
   * The operations' paths below the stage (e.g. `/v1/createUser`): POSTs to them need a well-formed
   * key and a body within 16 KiB. Other paths and methods are left to API Gateway (404, 405).
   */
  readonly operationPaths: readonly string[];
  /** The window every rate limit counts over, in seconds; blocked callers are told to retry after it. */
  readonly windowSeconds: WafWindowSeconds;
  /** Requests one API key may send per window. */
  readonly keyLimit: number;
  /** Requests one IP address may send per window, whatever its keys. */
  readonly ipLimit: number;
  /** Requests one IP address may send per window without a well-formed key. */
  readonly anonymousIpLimit: number;
}

/**
 * The stage's AWS WAF web ACL: per-key and per-address rate limits, the API key's shape and the
 * body size, checked before API Gateway runs a function, with the contract's bodies. No managed
 * rule group: they inspect bodies, and a password may look like SQL or script.
 */
export class EdgeProtection extends Construct {
  readonly webAcl: CfnWebACL;
  /** The CloudWatch metric name (AWS/WAFV2 `Rule` dimension) of each rule. */
  readonly ruleMetricNames: Readonly<Record<keyof typeof EDGE_RULES, string>>;

  constructor(scope: Construct, id: string, props: EdgeProtectionProps) {
    super(scope, id);
    for (const [name, limit] of Object.entries({
      keyLimit: props.keyLimit,
      ipLimit: props.ipLimit,
      anonymousIpLimit: props.anonymousIpLimit,
    })) {
      if (!Number.isInteger(limit) || limit < WAF_MIN_LIMIT || limit > WAF_MAX_LIMIT) {
        throw new Error(`EdgeProtection ${name} must be an integer from ${WAF_MIN_LIMIT} to ${WAF_MAX_LIMIT}, got ${limit}`);
      }
    }
    const inspectionLimit = BODY_INSPECTION_LIMITS[MAX_BODY_BYTES];
    if (!inspectionLimit) throw new Error(`AWS WAF cannot inspect exactly ${MAX_BODY_BYTES} bytes of a body`);

    const none = [{ priority: 0, type: 'NONE' }];
    const wellFormedKey: CfnWebACL.StatementProperty = {
      regexMatchStatement: {
        fieldToMatch: { singleHeader: { Name: API_KEY_HEADER } },
        regexString: API_KEY_PATTERN.source,
        textTransformations: none,
      },
    };
    const withoutWellFormedKey: CfnWebACL.StatementProperty = { notStatement: { statement: wellFormedKey } };
    // The header names in the order sent, colon-separated; a name twice means two keys. Headers
    // beyond what WAF inspects (8 KB, 200 headers) count as a repeat: refused, never guessed at.
    const repeatedKey: CfnWebACL.StatementProperty = {
      regexMatchStatement: {
        fieldToMatch: { headerOrder: { oversizeHandling: 'MATCH' } },
        regexString: `(^|:)${API_KEY_HEADER}:(.*:)?${API_KEY_HEADER}(:|$)`,
        textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
      },
    };
    const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // With or without the stage's own path segment (execute-api URLs have it, custom domains may not).
    const operationRequest: CfnWebACL.StatementProperty = {
      andStatement: {
        statements: [
          {
            byteMatchStatement: {
              fieldToMatch: { method: {} },
              positionalConstraint: 'EXACTLY',
              searchString: 'POST',
              textTransformations: none,
            },
          },
          {
            regexMatchStatement: {
              fieldToMatch: { uriPath: {} },
              regexString: `^(/[^/]+)?(${props.operationPaths.map(escapeRegex).join('|')})$`,
              textTransformations: none,
            },
          },
        ],
      },
    };
    // A body over the inspection limit is "oversize": MATCH counts it as too large, however large.
    const bodyTooLarge: CfnWebACL.StatementProperty = {
      sizeConstraintStatement: {
        fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
        comparisonOperator: 'GT',
        size: MAX_BODY_BYTES,
        textTransformations: none,
      },
    };
    const rateLimit = (limit: number, aggregation: Partial<CfnWebACL.RateBasedStatementProperty>): CfnWebACL.StatementProperty => ({
      rateBasedStatement: { limit, evaluationWindowSec: props.windowSeconds, aggregateKeyType: 'IP', ...aggregation },
    });

    const tooManyRequests = {
      responseCode: 429,
      customResponseBodyKey: 'TooManyRequests',
      // A caller that sends nothing for a whole window is under every limit again.
      responseHeaders: [{ name: 'Retry-After', value: String(props.windowSeconds) }],
    };
    const metricName = (rule: string) => `${props.name}-${rule}`;
    const rule = (name: string, statement: CfnWebACL.StatementProperty, customResponse: CfnWebACL.CustomResponseProperty) => ({
      name,
      statement,
      action: { block: { customResponse } },
      // No sampled requests: WAF would keep the requests' headers, API keys included, for the console.
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: metricName(name), sampledRequestsEnabled: false },
    });
    const rules = [
      rule(
        EDGE_RULES.keyRequired,
        { andStatement: { statements: [operationRequest, { orStatement: { statements: [withoutWellFormedKey, repeatedKey] } }] } },
        { responseCode: 401, customResponseBodyKey: 'Unauthorized' },
      ),
      rule(
        EDGE_RULES.perKey,
        rateLimit(props.keyLimit, {
          aggregateKeyType: 'CUSTOM_KEYS',
          customKeys: [{ header: { name: API_KEY_HEADER, textTransformations: none } }],
          scopeDownStatement: wellFormedKey,
        }),
        tooManyRequests,
      ),
      rule(EDGE_RULES.perIpWithoutKey, rateLimit(props.anonymousIpLimit, { scopeDownStatement: withoutWellFormedKey }), tooManyRequests),
      rule(EDGE_RULES.perIp, rateLimit(props.ipLimit, {}), tooManyRequests),
      rule(
        EDGE_RULES.bodySize,
        { andStatement: { statements: [operationRequest, bodyTooLarge] } },
        { responseCode: 413, customResponseBodyKey: 'BodyTooLarge' },
      ),
    ].map((r, priority) => ({ ...r, priority }));

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: props.name,
      description: `Edge limits of ${props.name}: per-key and per-address rates, API key shape, body size`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: props.name, sampledRequestsEnabled: false },
      customResponseBodies: Object.fromEntries(
        Object.entries(EDGE_RESPONSE_BODIES).map(([key, content]) => [key, { contentType: 'APPLICATION_JSON', content }]),
      ),
      associationConfig: { requestBody: { API_GATEWAY: { defaultSizeInspectionLimit: inspectionLimit } } },
      rules,
    });
    new CfnWebACLAssociation(this, 'Association', { resourceArn: props.stage.stageArn, webAclArn: this.webAcl.attrArn });

    this.ruleMetricNames = Object.fromEntries(Object.entries(EDGE_RULES).map(([key, name]) => [key, metricName(name)])) as Record<
      keyof typeof EDGE_RULES,
      string
    >;
  }
}
