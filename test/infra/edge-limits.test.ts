/**
 * Fair share, in the synthesized template: the stage's WAF web ACL (every rule, its limits, actions
 * and the contract's bodies, its association with the stage), the business metrics' namespace, the
 * alarm on function-answered 500s, the p99 latency alarms and their dashboard widgets.
 */

import { describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { API_KEY_PATTERN, newApiKey } from '#domain/api-keys';
import { MAX_BODY_BYTES } from '#http/middleware/parse-body';
import { metricsNamespace } from '#platform/metrics';
import { EDGE_RULES } from '../../lib/constructs/edge-protection';
import { OPERATIONS } from '../../lib/user-management-stack';
import { baseStage, functionPath, resourcesOf, synthStage } from './synth';

const prod = baseStage('prod');
const staging = baseStage('staging');
const dev = baseStage('dev');
const byStage = { prod, staging, dev };

// The contract's bodies, written out here rather than taken from the code under test.
const TOO_MANY_REQUESTS = '{"message":"Too Many Requests"}';
const UNAUTHORIZED = '{"message":"Unauthorized: Invalid or unauthorized API key."}';
const TOO_LARGE = '{"message":"Request body too large."}';

type Json = Record<string, unknown>;
const webAclOf = (template: Template) => {
  const acls = Object.values(resourcesOf(template)).filter((resource) => resource.Type === 'AWS::WAFv2::WebACL');
  expect(acls).toHaveLength(1);
  return acls[0]!.Properties as Json & { Rules: (Json & { Name: string; Priority: number; Statement: Json; Action: Json })[] };
};
const ruleOf = (template: Template, name: string) => {
  const rule = webAclOf(template).Rules.find((r) => r.Name === name);
  if (!rule) throw new Error(`no rule ${name}`);
  return rule;
};
/** Every statement of a given type anywhere in a rule's statement tree. */
function statementsOfType(node: unknown, type: string): Json[] {
  if (Array.isArray(node)) return node.flatMap((child) => statementsOfType(child, type));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node as Json).flatMap(([key, value]) => [
    ...(key === type ? [value as Json] : []),
    ...statementsOfType(value, type),
  ]);
}

const KEY_HEADER_REGEX = {
  RegexMatchStatement: {
    FieldToMatch: { SingleHeader: { Name: 'x-api-key' } },
    RegexString: '^wlk_[A-Za-z0-9_-]{43}$',
    TextTransformations: [{ Priority: 0, Type: 'NONE' }],
  },
};
const blocked429 = (window: number) => ({
  Block: {
    CustomResponse: {
      ResponseCode: 429,
      CustomResponseBodyKey: 'TooManyRequests',
      ResponseHeaders: [{ Name: 'Retry-After', Value: String(window) }],
    },
  },
});

describe('WAF web ACL', () => {
  it.each(['prod', 'staging'] as const)('%s: one regional web ACL with the contract bodies, associated with the stage', (stage) => {
    const { template, id } = byStage[stage];
    const acl = webAclOf(template);
    expect(acl).toMatchObject({
      Name: `user-management-${stage}`,
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      CustomResponseBodies: {
        TooManyRequests: { ContentType: 'APPLICATION_JSON', Content: TOO_MANY_REQUESTS },
        Unauthorized: { ContentType: 'APPLICATION_JSON', Content: UNAUTHORIZED },
        BodyTooLarge: { ContentType: 'APPLICATION_JSON', Content: TOO_LARGE },
      },
      // WAF sees exactly the contract's 16 KiB of a body; anything longer is "oversize".
      AssociationConfig: { RequestBody: { API_GATEWAY: { DefaultSizeInspectionLimit: 'KB_16' } } },
    });
    expect(MAX_BODY_BYTES).toBe(16_384);
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [id('Edge/WebAcl'), 'Arn'] },
      ResourceArn: {
        'Fn::Join': ['', Match.arrayWith([{ Ref: id('Api/Api') }, '/stages/', { Ref: id(`Api/Api/DeploymentStage.${stage}`) }])],
      },
    });
  });

  it('the rules, in order: key shape (401), per key, per address without a key, per address (429), body size (413)', () => {
    expect(webAclOf(prod.template).Rules.map((rule) => [rule.Priority, rule.Name])).toEqual([
      [0, EDGE_RULES.keyRequired],
      [1, EDGE_RULES.perKey],
      [2, EDGE_RULES.perIpWithoutKey],
      [3, EDGE_RULES.perIp],
      [4, EDGE_RULES.bodySize],
    ]);
  });

  it('no managed rule group (they inspect bodies, and a password may look like SQL), no sampled requests (they keep headers)', () => {
    const acl = webAclOf(prod.template);
    expect(statementsOfType(acl, 'ManagedRuleGroupStatement')).toEqual([]);
    expect(statementsOfType(acl, 'RuleGroupReferenceStatement')).toEqual([]);
    const visibility = [acl.VisibilityConfig, ...acl.Rules.map((rule) => rule.VisibilityConfig)] as Json[];
    for (const config of visibility) expect(config).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: false });
  });

  it.each([
    ['prod', 3000],
    ['staging', 1500],
  ] as const)('%s: one API key may send half of the stage throttle per 60 s window (%i), then 429 with Retry-After', (stage, limit) => {
    const rule = ruleOf(byStage[stage].template, EDGE_RULES.perKey);
    expect(rule.Statement).toEqual({
      RateBasedStatement: {
        Limit: limit,
        EvaluationWindowSec: 60,
        AggregateKeyType: 'CUSTOM_KEYS',
        CustomKeys: [{ Header: { Name: 'x-api-key', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } }],
        // Only well-formed keys get a budget each; anything else is counted by address.
        ScopeDownStatement: KEY_HEADER_REGEX,
      },
    });
    expect(rule.Action).toEqual(blocked429(60));
  });

  it('requests without a well-formed key: 100 per address per window; any request: the per-key limit per address', () => {
    const withoutKey = ruleOf(prod.template, EDGE_RULES.perIpWithoutKey);
    expect(withoutKey.Statement).toEqual({
      RateBasedStatement: {
        Limit: 100,
        EvaluationWindowSec: 60,
        AggregateKeyType: 'IP',
        ScopeDownStatement: { NotStatement: { Statement: KEY_HEADER_REGEX } },
      },
    });
    expect(withoutKey.Action).toEqual(blocked429(60));
    const perIp = ruleOf(prod.template, EDGE_RULES.perIp);
    expect(perIp.Statement).toEqual({ RateBasedStatement: { Limit: 3000, EvaluationWindowSec: 60, AggregateKeyType: 'IP' } });
    expect(perIp.Action).toEqual(blocked429(60));
  });

  it('a POST to an operation without a single, well-formed X-API-Key: 401 with the contract body', () => {
    const rule = ruleOf(prod.template, EDGE_RULES.keyRequired);
    expect(rule.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 401, CustomResponseBodyKey: 'Unauthorized' } } });
    const [operationRequest, keyProblem] = (rule.Statement.AndStatement as { Statements: Json[] }).Statements as [Json, Json];
    expect(operationRequest).toEqual({
      AndStatement: {
        Statements: [
          {
            ByteMatchStatement: {
              FieldToMatch: { Method: {} },
              PositionalConstraint: 'EXACTLY',
              SearchString: 'POST',
              TextTransformations: [{ Priority: 0, Type: 'NONE' }],
            },
          },
          {
            RegexMatchStatement: {
              FieldToMatch: { UriPath: {} },
              RegexString: expect.any(String),
              TextTransformations: [{ Priority: 0, Type: 'NONE' }],
            },
          },
        ],
      },
    });
    expect(keyProblem).toEqual({
      OrStatement: {
        Statements: [
          { NotStatement: { Statement: KEY_HEADER_REGEX } },
          {
            RegexMatchStatement: {
              FieldToMatch: { HeaderOrder: { OversizeHandling: 'MATCH' } },
              RegexString: expect.any(String),
              TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
            },
          },
        ],
      },
    });
  });

  it("the rules' regular expressions match what they mean (the key pattern is the functions' own)", () => {
    const rule = ruleOf(prod.template, EDGE_RULES.keyRequired);
    const [pathRegex, headerOrderRegex, keyRegex] = ['UriPath', 'HeaderOrder', 'SingleHeader'].map((field) => {
      const statement = statementsOfType(rule, 'RegexMatchStatement').find((s) => field in (s.FieldToMatch as Json));
      return new RegExp(statement!.RegexString as string);
    }) as [RegExp, RegExp, RegExp];

    expect(keyRegex.source).toBe(API_KEY_PATTERN.source);
    for (let i = 0; i < 20; i++) expect(keyRegex.test(newApiKey().apiKey)).toBe(true);
    for (const bad of ['', 'wlk_', `wlk_${'A'.repeat(42)}`, `wlk_${'A'.repeat(44)}`, `WLK_${'A'.repeat(43)}`, `wlk_${'A'.repeat(42)}=`]) {
      expect([bad, keyRegex.test(bad)]).toEqual([bad, false]);
    }

    for (const operation of OPERATIONS) {
      for (const path of [`/prod/v1/${operation}`, `/v1/${operation}`]) expect([path, pathRegex.test(path)]).toEqual([path, true]);
    }
    for (const path of [
      '/prod/openapi.json',
      '/prod/v1/createUser/extra',
      '/prod/v2/createUser',
      '/prod/v1/nope',
      '/a/b/v1/createUser',
      '/prod/v1/createuser',
    ]) {
      expect([path, pathRegex.test(path)]).toEqual([path, false]);
    }

    for (const order of ['host:x-api-key:content-type:x-api-key', 'x-api-key:x-api-key', 'host:x-api-key:x-api-key:x-api-key']) {
      expect([order, headerOrderRegex.test(order)]).toEqual([order, true]);
    }
    for (const order of [
      'host:x-api-key:content-type',
      'x-api-key',
      'x-api-key-old:x-api-key',
      'x-api-key:x-api-keys',
      'host:content-type',
    ]) {
      expect([order, headerOrderRegex.test(order)]).toEqual([order, false]);
    }
  });

  it('an operation body over 16 KiB, however large (oversize counts as a match): 413 with the contract body', () => {
    const rule = ruleOf(prod.template, EDGE_RULES.bodySize);
    expect(rule.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 413, CustomResponseBodyKey: 'BodyTooLarge' } } });
    const [operationRequest, size] = (rule.Statement.AndStatement as { Statements: Json[] }).Statements as [Json, Json];
    expect(operationRequest).toEqual(
      (ruleOf(prod.template, EDGE_RULES.keyRequired).Statement.AndStatement as { Statements: Json[] }).Statements[0],
    );
    expect(size).toEqual({
      SizeConstraintStatement: {
        FieldToMatch: { Body: { OversizeHandling: 'MATCH' } },
        ComparisonOperator: 'GT',
        Size: 16_384,
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    });
  });

  it('every number is a stage setting', () => {
    const { template } = synthStage('prod', { wafWindowSeconds: '300', wafKeyLimit: '500', wafIpLimit: '800', wafAnonymousIpLimit: '20' });
    expect(ruleOf(template, EDGE_RULES.perKey).Statement).toMatchObject({ RateBasedStatement: { Limit: 500, EvaluationWindowSec: 300 } });
    expect(ruleOf(template, EDGE_RULES.perIp).Statement).toMatchObject({ RateBasedStatement: { Limit: 800, EvaluationWindowSec: 300 } });
    expect(ruleOf(template, EDGE_RULES.perIpWithoutKey).Statement).toMatchObject({
      RateBasedStatement: { Limit: 20, EvaluationWindowSec: 300 },
    });
    for (const name of [EDGE_RULES.perKey, EDGE_RULES.perIp, EDGE_RULES.perIpWithoutKey])
      expect(ruleOf(template, name).Action).toEqual(blocked429(300));
    // The per-key default follows the stage throttle: half of 10 requests/s over 120 s.
    const derived = synthStage('prod', { throttleRateLimit: '10', wafWindowSeconds: '120' }).template;
    expect(ruleOf(derived, EDGE_RULES.perKey).Statement).toMatchObject({ RateBasedStatement: { Limit: 600, EvaluationWindowSec: 120 } });
    expect(ruleOf(derived, EDGE_RULES.perIp).Statement).toMatchObject({ RateBasedStatement: { Limit: 600 } });
  });

  it('refuses settings AWS WAF would refuse, at synth', () => {
    expect(() => synthStage('prod', { wafWindowSeconds: '90' })).toThrow(/wafWindowSeconds must be one of 60, 120, 300, 600/);
    expect(() => synthStage('prod', { wafKeyLimit: '9' })).toThrow(/wafKeyLimit must be an integer >= 10/);
    expect(() => synthStage('prod', { wafAnonymousIpLimit: 'many' })).toThrow(/wafAnonymousIpLimit/);
    expect(() => synthStage('prod', { waf: 'maybe' })).toThrow(/waf must be true or false/);
  });

  it('dev: off by default, on with -c waf=true; cdk-nag needs no acknowledgement of APIG3 when on', () => {
    dev.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    dev.template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
    expect(Object.keys(dev.logicalIds).filter((path) => path.startsWith('Edge/'))).toEqual([]);
    const { app, stack, template } = synthStage('dev', { waf: 'true' });
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    expect(ruleOf(template, EDGE_RULES.perKey).Statement).toMatchObject({ RateBasedStatement: { Limit: 600 } });
    expect(new AwsSolutionsChecks(app).validateScope(stack).violations).toEqual([]);
  });

  it('prod with -c waf=false: no web ACL, and APIG3 acknowledged so the synth still passes', () => {
    const { app, stack, template } = synthStage('prod', { waf: 'false' });
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    expect(new AwsSolutionsChecks(app).validateScope(stack).violations).toEqual([]);
  });
});

describe('business metrics and alarms', () => {
  it.each(['prod', 'staging', 'dev'] as const)("%s: every function writes its metrics to the stage's own namespace", (stage) => {
    // Every function but the pre-traffic hooks (lib/release-hook), which write no metrics.
    const hooks = Object.values(byStage[stage].hooks);
    const functions = Object.entries(byStage[stage].template.findResources('AWS::Lambda::Function')).filter(([id]) => !hooks.includes(id));
    expect(functions.length).toBeGreaterThan(0);
    for (const [, fn] of functions)
      expect(fn.Properties.Environment.Variables).toEqual(
        expect.objectContaining({ POWERTOOLS_METRICS_NAMESPACE: `UserManagement/${stage}` }),
      );
    expect(metricsNamespace(stage)).toBe(`UserManagement/${stage}`);
  });

  it.each(['prod', 'staging', 'dev'] as const)(
    '%s: the first function-answered 500 in a minute alarms; no data is not a breach',
    (stage) => {
      const { template } = byStage[stage];
      const failed = (operation: string, i: number) => ({
        Id: `failed${i}`,
        ReturnData: false,
        MetricStat: {
          Metric: {
            Namespace: `UserManagement/${stage}`,
            MetricName: 'requests',
            Dimensions: [
              { Name: 'operation', Value: operation },
              { Name: 'outcome', Value: 'failed' },
            ],
          },
          Period: 60,
          Stat: 'Sum',
        },
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `UserManagement-${stage}-function-500s`,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
        Metrics: [
          Match.objectLike({ Expression: OPERATIONS.map((_, i) => `FILL(failed${i}, 0)`).join(' + '), ReturnData: true }),
          ...OPERATIONS.map(failed),
        ],
      });
    },
  );

  it.each(OPERATIONS)('%s: a p99 latency alarm on its function, 15 minutes above the threshold', (operation) => {
    const { template, id } = prod;
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `UserManagement-prod-${operation}-p99-latency`,
      Namespace: 'AWS/Lambda',
      MetricName: 'Duration',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: id(`${functionPath(operation)}/Function`) } }],
      ExtendedStatistic: 'p99',
      Period: 300,
      Threshold: 1000,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'notBreaching',
    });
  });

  it('the latency threshold is a stage setting', () => {
    const { template } = synthStage('prod', { latencyAlarmP99Ms: '2500' });
    for (const operation of OPERATIONS) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `UserManagement-prod-${operation}-p99-latency`,
        Threshold: 2500,
      });
    }
  });

  it('the dashboard shows requests by operation and outcome, the 500s, and what each WAF rule blocked', () => {
    const body = JSON.stringify(Object.values(resourcesOf(prod.template)).find((r) => r.Type === 'AWS::CloudWatch::Dashboard')?.Properties);
    expect(body).toContain(`SEARCH('{UserManagement/prod,operation,outcome} MetricName=\\\\\\"requests\\\\\\"', 'Sum', 300)`);
    expect(body).toContain('Requests answered 500 by a function');
    for (const name of Object.values(EDGE_RULES)) expect(body).toContain(`user-management-prod-${name}`);
    const devBody = JSON.stringify(
      Object.values(resourcesOf(dev.template)).find((r) => r.Type === 'AWS::CloudWatch::Dashboard')?.Properties,
    );
    expect(devBody).not.toContain('AWS/WAFV2');
  });
});
