import { readFileSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ACCOUNT_STACK_NAME, ApiGatewayAccountStack } from './account-stack';
import {
  permissionsBoundaryFromContext,
  type StageConfig,
  type StageName,
  stageConfigFromContext,
  stagesFromContext,
} from './stage-config';
import { UserManagementStack } from './user-management-stack';

/** cdk.json's context: the default stage and the feature flags the app is written against. */
const CDK_JSON_CONTEXT = (JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> })
  .context;

export interface BuildAppOptions {
  /**
   * Context, as `-c key=value` would give it (stage, throttleRateLimit, ...).
   * @default - the context cdk.json and the CLI provide
   */
  readonly context?: Record<string, unknown>;
  /**
   * Cloud assembly directory.
   * @default - the CLI's (cdk.out) or a temporary one
   */
  readonly outdir?: string;
  /**
   * Pins the templates to one region.
   * @default - none: the templates are region-agnostic (`AWS::Region`), and `cdk deploy` deploys
   * them to the region of the caller's AWS configuration
   */
  readonly region?: string;
}

/**
 * The app as `cdk synth` builds it: the one-time account stack, one stack per selected stage
 * (`-c stage=`, default dev; several with commas), all checked by cdk-nag. The stacks name no
 * account and no region unless asked to, so a synth needs neither credentials nor a configured
 * region, and never writes a region into a template that the deploy did not choose.
 */
export function buildApp(options: BuildAppOptions = {}): {
  app: App;
  /** The first selected stage's stack, and its settings. */
  stack: UserManagementStack;
  config: StageConfig;
  stages: Partial<Record<StageName, UserManagementStack>>;
  accountStack: ApiGatewayAccountStack;
} {
  // The CLI passes cdk.json's context (the stage default and CDK's recommended feature flags) itself;
  // an app built here with context of its own (the tests) takes cdk.json's beneath it, so both synthesize alike.
  const context = options.context && { ...CDK_JSON_CONTEXT, ...options.context };
  const app = new App({ ...(context && { context }), ...(options.outdir && { outdir: options.outdir }) });
  const env = options.region ? { region: options.region } : undefined;
  const accountStack = new ApiGatewayAccountStack(app, ACCOUNT_STACK_NAME, {
    description: 'API Gateway account settings for the user management API (once per account and region)',
    ...(env && { env }),
    terminationProtection: true,
    permissionsBoundaryName: permissionsBoundaryFromContext(app.node),
  });
  const stages: Partial<Record<StageName, UserManagementStack>> = {};
  for (const stage of stagesFromContext(app.node)) {
    // The deploy's region when the caller named one (else the template's own rule checks the topic's region at deploy).
    const config = stageConfigFromContext(app.node, stage, options.region ?? (process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION));
    stages[stage] = new UserManagementStack(app, `UserManagement-${config.stage}`, {
      config,
      description: `User management API for white-label tools (${config.stage})`,
      ...(env && { env }),
      terminationProtection: config.retainData,
    });
  }
  // Runs on every synth; an unacknowledged finding fails it.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const stack = Object.values(stages)[0]!;
  return { app, stack, config: stack.config, stages, accountStack };
}
