import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type StageConfig, stageConfigFromContext } from './stage-config';
import { UserManagementStack } from './user-management-stack';

/** Used when neither the CLI nor the environment names a region, so synth works without credentials. */
export const DEFAULT_REGION = 'us-east-1';

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
   * Region to deploy to.
   * @default - the CLI's region (CDK_DEFAULT_REGION), else AWS_REGION, else DEFAULT_REGION
   */
  readonly region?: string;
}

/** The app as `cdk synth` builds it: one stack for the selected stage, checked by cdk-nag. */
export function buildApp(options: BuildAppOptions = {}): { app: App; stack: UserManagementStack; config: StageConfig } {
  const app = new App({ ...(options.context && { context: options.context }), ...(options.outdir && { outdir: options.outdir }) });
  const config = stageConfigFromContext(app.node);
  const stack = new UserManagementStack(app, `UserManagement-${config.stage}`, {
    config,
    description: `User management API for white-label tools (${config.stage})`,
    env: {
      account: process.env.CDK_DEFAULT_ACCOUNT,
      region: options.region ?? process.env.CDK_DEFAULT_REGION ?? process.env.AWS_REGION ?? DEFAULT_REGION,
    },
    terminationProtection: config.retainData,
  });
  // Runs on every synth; an unacknowledged finding fails it.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, config };
}
