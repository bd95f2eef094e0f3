/**
 * Releases (ADR 23): every API function and the stream consumer are invoked through a `live` alias
 * on a published version; in staging and prod a CodeDeploy deployment group shifts each alias by the
 * stage's configuration and rolls back on its alarms, on a failed deployment and on a stopped one.
 */

import { describe, expect, it } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { LIVE_ALIAS } from '../../lib/constructs/handler-function';
import { bakeMinutes, RELEASE_CONFIGS } from '../../lib/constructs/release';
import { STAGES } from '../../lib/stage-config';
import { OPERATIONS } from '../../lib/user-management-stack';
import { type BaseStage, baseStage, resourcesOf, statementsOfRole, synthStage } from './synth';

const byStage = Object.fromEntries(STAGES.map((stage) => [stage, baseStage(stage)])) as Record<(typeof STAGES)[number], BaseStage>;

/** The version an alias points at (CDK appends a hash of the function's code and configuration to its logical id). */
const versionIdOf = (resources: ReturnType<typeof resourcesOf>, aliasId: string) =>
  (resources[aliasId]!.Properties!.FunctionVersion as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];

/** A released function's constructs, by path below the stack. */
const parts = (path: string) => ({ function: `${path}/Function`, version: `${path}/Function/CurrentVersion`, alias: `${path}/Live` });
/** Every function a release moves: the API's, by operation, and the stream consumer. */
const released = [
  ...OPERATIONS.map((operation) => ({ name: operation, fn: parts(operation.charAt(0).toUpperCase() + operation.slice(1)) })),
  { name: 'consumer', fn: parts('LifecycleEvents/Consumer') },
];

describe.each(STAGES)('%s: versions behind a live alias', (stage) => {
  const { template, id, ref } = byStage[stage];
  const resources = resourcesOf(template);

  it('each function has one published version and an alias "live" on it', () => {
    for (const { fn } of released) {
      const alias = resources[id(fn.alias)];
      expect(alias?.Type).toBe('AWS::Lambda::Alias');
      const versionId = versionIdOf(resources, id(fn.alias));
      expect(alias?.Properties).toEqual({
        FunctionName: ref(fn.function),
        FunctionVersion: { 'Fn::GetAtt': [versionId, 'Version'] },
        Name: LIVE_ALIAS,
      });
      // The function's current version: a new one (a new logical id) whenever its code or configuration changes.
      expect(versionId.startsWith(id(fn.version))).toBe(true);
      expect(resources[versionId]?.Type).toBe('AWS::Lambda::Version');
      expect(resources[versionId]?.Properties).toEqual({ FunctionName: ref(fn.function) });
    }
    // Every function but the pre-traffic hooks, which nothing calls but CodeDeploy.
    const hooks = new Set(
      Object.values(resources).flatMap((r) =>
        [
          (r.UpdatePolicy as { CodeDeployLambdaAliasUpdate?: { BeforeAllowTrafficHook?: { Ref: string } } } | undefined)
            ?.CodeDeployLambdaAliasUpdate?.BeforeAllowTrafficHook?.Ref ?? [],
        ].flat(),
      ),
    );
    const functions = Object.entries(resources).filter(([id, resource]) => resource.Type === 'AWS::Lambda::Function' && !hooks.has(id));
    expect(Object.values(resources).filter((resource) => resource.Type === 'AWS::Lambda::Alias')).toHaveLength(functions.length);
  });

  it("API Gateway invokes each operation's alias, never the function's unqualified ARN, and may invoke only that alias", () => {
    for (const operation of OPERATIONS) {
      const { fn } = released.find((entry) => entry.name === operation)!;
      const aliasRef = ref(fn.alias);
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: 'POST',
        Integration: { Type: 'AWS_PROXY', Uri: { 'Fn::Join': ['', Match.arrayWith([aliasRef])] } },
      });
      template.hasResourceProperties('AWS::Lambda::Permission', {
        FunctionName: aliasRef,
        Principal: 'apigateway.amazonaws.com',
        SourceArn: Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([`/POST/v1/${operation}`])] }),
      });
    }
    const permissions = Object.values(resources).filter((resource) => resource.Type === 'AWS::Lambda::Permission');
    const aliases = new Set(released.map(({ fn }) => id(fn.alias)));
    for (const permission of permissions) {
      expect(aliases.has((permission.Properties!.FunctionName as { Ref?: string }).Ref ?? '')).toBe(true);
    }
  });

  it("the stream's event source mapping invokes the consumer's alias", () => {
    const mappings = Object.values(resources).filter((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping');
    expect(mappings.length).toBeGreaterThan(0);
    // `<function name>:live`, the alias's qualified name.
    const qualified = {
      'Fn::Join': ['', [{ 'Fn::Select': [6, { 'Fn::Split': [':', ref('LifecycleEvents/Consumer/Live')] }] }, `:${LIVE_ALIAS}`]],
    };
    for (const mapping of mappings) expect(mapping.Properties?.FunctionName).toEqual(qualified);
  });
});

describe('gradual releases on CodeDeploy, rolled back on alarm, on failure and on stop', () => {
  it.each(STAGES)('%s: a deployment group per released function exactly when the stage releases gradually', (stage) => {
    const { template, id, config } = byStage[stage];
    const gradual = RELEASE_CONFIGS[config.release].deploymentConfig !== undefined;
    expect(gradual).toBe(stage !== 'dev');
    const groups = Object.values(resourcesOf(template)).filter((resource) => resource.Type === 'AWS::CodeDeploy::DeploymentGroup');
    expect(groups).toHaveLength(gradual ? released.length : 0);
    template.resourceCountIs('AWS::CodeDeploy::Application', gradual ? 1 : 0);
    if (!gradual) {
      // All at once: CloudFormation moves each alias itself, no update policy hands it to CodeDeploy.
      for (const { fn } of released) expect(resourcesOf(template)[id(fn.alias)]?.UpdatePolicy).toBeUndefined();
    }
  });

  it('staging shifts in a shorter time than prod, so the path is rehearsed before prod; dev all at once', () => {
    const minutes = (stage: (typeof STAGES)[number]) => RELEASE_CONFIGS[byStage[stage].config.release].minutesToFull;
    expect(minutes('dev')).toBe(0);
    expect(minutes('staging')).toBeGreaterThan(0);
    expect(minutes('staging')).toBeLessThan(minutes('prod'));
  });

  it.each(['staging', 'prod'] as const)(
    "%s: each alias's update is a CodeDeploy deployment with the stage's configuration, its own alarms and the stage's, rolled back on failure, stop and alarm",
    (stage) => {
      const { template, id, ref, config } = byStage[stage];
      const resources = resourcesOf(template);
      const configName = `CodeDeployDefault.Lambda${config.release}`;
      const application = Object.entries(resources).find(([, resource]) => resource.Type === 'AWS::CodeDeploy::Application')!;
      expect(application[1].Properties?.ComputePlatform).toBe('Lambda');
      const stageWide = { api: [...byStage[stage].alarms.releaseWide], consumer: [...byStage[stage].alarms.lifecycleEvents] };
      expect(stageWide.api.sort()).toEqual([id('Monitoring/Api5xxRate'), id('Monitoring/FunctionFailures')].sort());
      for (const { name, fn } of released) {
        const alias = resources[id(fn.alias)]!;
        const policy = alias.UpdatePolicy as {
          CodeDeployLambdaAliasUpdate: { ApplicationName: unknown; DeploymentGroupName: { Ref: string } };
        };
        expect(policy.CodeDeployLambdaAliasUpdate.ApplicationName).toEqual({ Ref: application[0] });
        const group = resources[policy.CodeDeployLambdaAliasUpdate.DeploymentGroupName.Ref]!;
        expect(group.Type).toBe('AWS::CodeDeploy::DeploymentGroup');
        expect(group.Properties?.DeploymentConfigName).toBe(configName);
        expect(group.Properties?.DeploymentStyle).toEqual({ DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' });
        expect(group.Properties?.AutoRollbackConfiguration).toEqual({
          Enabled: true,
          Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST', 'DEPLOYMENT_STOP_ON_ALARM']),
        });
        const alarms = (group.Properties!.AlarmConfiguration as { Enabled: boolean; Alarms: { Name: { Ref: string } }[] }).Alarms.map(
          (alarm) => alarm.Name.Ref,
        );
        expect((group.Properties!.AlarmConfiguration as { Enabled: boolean }).Enabled).toBe(true);
        // The new version's own alarms: by alias and ExecutedVersion, the version this deploy publishes.
        const own = alarms.filter((id) => !stageWide.api.includes(id) && !stageWide.consumer.includes(id));
        const ownMetrics = own.map((id) => resources[id]!.Properties as Record<string, unknown>);
        expect(ownMetrics.map((alarm) => alarm.MetricName).sort()).toEqual(name === 'consumer' ? ['Errors'] : ['Duration', 'Errors']);
        for (const alarm of ownMetrics) {
          expect(alarm.Namespace).toBe('AWS/Lambda');
          expect(alarm.Period).toBe(60);
          expect(alarm.Dimensions).toEqual(
            expect.arrayContaining([
              { Name: 'FunctionName', Value: ref(fn.function) },
              { Name: 'Resource', Value: { 'Fn::Join': ['', [ref(fn.function), `:${LIVE_ALIAS}`]] } },
              { Name: 'ExecutedVersion', Value: { 'Fn::GetAtt': [versionIdOf(resources, id(fn.alias)), 'Version'] } },
            ]),
          );
          expect(alarm.AlarmActions).toEqual([expect.anything()]);
        }
        // The alarms watch the new version before the alias update starts the deployment.
        expect(alias.DependsOn).toEqual(expect.arrayContaining(own));
        // And for an API function the stage's 5xx rate and function 500s that can fire within the bake time
        // (prod's 15 minutes take both, staging's 5 the 1-minute function 500s only); the consumer none.
        const fitting = stage === 'prod' ? stageWide.api : stageWide.api.filter((id) => id.startsWith('MonitoringFunctionFailures'));
        const expected = name === 'consumer' ? [] : fitting;
        expect(alarms).toEqual(expect.arrayContaining(expected));
        expect(alarms).toHaveLength(own.length + expected.length);
      }
    },
  );

  it("one CodeDeploy service role, for CodeDeploy only, with AWS's limited policy for Lambda deployments", () => {
    const { template } = byStage.prod;
    const roles = Object.values(resourcesOf(template)).filter(
      (resource) =>
        resource.Type === 'AWS::IAM::Role' &&
        JSON.stringify(resource.Properties?.AssumeRolePolicyDocument).includes('codedeploy.amazonaws.com'),
    );
    expect(roles).toHaveLength(1);
    expect(roles[0]!.Properties?.ManagedPolicyArns).toEqual([
      { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited']] },
    ]);
    const groups = Object.values(resourcesOf(template)).filter((resource) => resource.Type === 'AWS::CodeDeploy::DeploymentGroup');
    expect(new Set(groups.map((group) => JSON.stringify(group.Properties?.ServiceRoleArn))).size).toBe(1);
  });

  it('-c release= picks another configuration, and refuses one CodeDeploy does not define', () => {
    const { template } = synthStage('staging', { release: 'Linear10PercentEvery1Minute' });
    template.allResourcesProperties('AWS::CodeDeploy::DeploymentGroup', {
      DeploymentConfigName: 'CodeDeployDefault.LambdaLinear10PercentEvery1Minute',
    });
    expect(() => synthStage('prod', { release: 'Canary50Percent1Minute' })).toThrow(
      'Context release must be one of AllAtOnce, Canary10Percent5Minutes',
    );
  });
});

describe.each(['staging', 'prod'] as const)('%s: what a release watches', (stage) => {
  const { template, id, config } = byStage[stage];
  const resources = resourcesOf(template);
  const aliasPolicy = (fn: { alias: string }) =>
    (resources[id(fn.alias)]!.UpdatePolicy as { CodeDeployLambdaAliasUpdate: Record<string, unknown> }).CodeDeployLambdaAliasUpdate;

  it("each alias's update runs a pre-traffic hook that may invoke only that function's new version and report to CodeDeploy", () => {
    for (const { fn, name } of released) {
      const hookRef = aliasPolicy(fn).BeforeAllowTrafficHook as { Ref: string };
      const hook = resources[hookRef.Ref]!;
      expect(hook.Type).toBe('AWS::Lambda::Function');
      const env = (hook.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
      const versionId = versionIdOf(resources, id(fn.alias));
      expect(env.TARGET_VERSION_ARN).toEqual({ Ref: versionId });
      expect(env.TARGET_PATH).toBe(name === 'consumer' ? undefined : `/v1/${name}`);
      const roleId = (hook.Properties!.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const actions = statementsOfRole(template, roleId).flatMap((statement) => statement.Action);
      expect([...new Set(actions)].sort()).toEqual(
        ['codedeploy:PutLifecycleEventHookExecutionStatus', 'lambda:InvokeFunction', 'logs:CreateLogStream', 'logs:PutLogEvents'].sort(),
      );
      const invoke = statementsOfRole(template, roleId).filter((statement) => statement.Action.includes('lambda:InvokeFunction'));
      expect(invoke.map((statement) => statement.Resource)).toEqual([{ Ref: versionId }]);
    }
  });

  it("every alarm a deployment watches can fire within its bake time (period × evaluation periods, from the template); the consumer's only its own errors", () => {
    const bakeSeconds = bakeMinutes(config.release) * 60;
    const windowOf = (alarm: Record<string, unknown>) => {
      const metrics = (alarm.Metrics ?? []) as { Period?: number; MetricStat?: { Period: number } }[];
      const period = (alarm.Period as number | undefined) ?? Math.max(...metrics.map((m) => m.Period ?? m.MetricStat?.Period ?? 0));
      return period * (alarm.EvaluationPeriods as number);
    };
    for (const { fn, name } of released) {
      const group = resources[(aliasPolicy(fn).DeploymentGroupName as { Ref: string }).Ref]!;
      const watched = (group.Properties!.AlarmConfiguration as { Alarms: { Name: { Ref: string } }[] }).Alarms.map(
        (alarm) => resources[alarm.Name.Ref]!.Properties!,
      );
      expect(watched.length).toBeGreaterThan(0);
      for (const alarm of watched)
        expect({ alarm: alarm.AlarmName, fits: windowOf(alarm) <= bakeSeconds }).toEqual({ alarm: alarm.AlarmName, fits: true });
      if (name === 'consumer')
        expect(watched.map((alarm) => alarm.AlarmName)).toEqual([`UserManagement-${stage}-LifecycleEventsConsumer-new-version-errors`]);
    }
  });
});
