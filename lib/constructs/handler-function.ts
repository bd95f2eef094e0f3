import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, Architecture, type IVersion, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { DynamoDbAction } from '#contract/operations';

/** The native password-hashing binding: installed into the asset, never bundled. */
export const ARGON2_PACKAGE = '@node-rs/argon2';
/** The one binary the arm64 (Graviton, glibc) Lambda runtime loads. */
export const ARGON2_ARM64_BINARY = 'node_modules/@node-rs/argon2-linux-arm64-gnu/argon2.linux-arm64-gnu.node';

/**
 * Module substitutions in the Lambda bundles: the SDK's default credential chain becomes the
 * environment provider, where Lambda puts the execution role's credentials (see the module).
 */
export const LAMBDA_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': fileURLToPath(new URL('../bundling/env-credentials.ts', import.meta.url)),
};

/** The alias every caller invokes (API Gateway, the stream's event source mapping); a release moves it. */
export const LIVE_ALIAS = 'live';

/** The password blocklist (codegen/blocklist.ts), a data file every API function reads at cold start. */
export const BLOCKLIST_SOURCE = 'functions/shared/domain/generated/blocklist.bin';

/** Rewrites the bundle's source map paths relative to the project, so the asset hash ignores `cdk synth -o`. */
const SOURCE_MAP_PATHS = fileURLToPath(new URL('../bundling/source-map-paths.mjs', import.meta.url));

/** A DynamoDB action the functions may be granted (the catalogue's union keeps `*` impossible to write). */
export type { DynamoDbAction };

export interface HandlerFunctionProps {
  /** Path of the handler module (exports `handler`). */
  readonly entry: string;
  readonly description: string;
  /** Environment shared by every function (table names, policy, log level). */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * Memory, which also buys CPU: Lambda gives a full vCPU at 1769 MB and a proportional share below.
   * @default 1024
   */
  readonly memorySize?: number;
  /**
   * Must stay well under API Gateway's 29 s integration timeout so the caller gets the function's answer.
   * @default Duration.seconds(10)
   */
  readonly timeout?: Duration;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when the stack goes away.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * Install the native password-hashing binding into the asset. Functions that never hash turn it off.
   * @default true
   */
  readonly hashesPasswords?: boolean;
  /**
   * Why any other action this function is granted takes `*` as its resource, for the cdk-nag
   * acknowledgement the role already carries for X-Ray.
   * @default - none: X-Ray's are the only ones
   */
  readonly wildcardReason?: string;
}

/**
 * One Lambda handler: Node 24 on arm64, bundled locally by esbuild (no Docker), its own log group
 * and its own role that starts with nothing but writing to that log group. Table access is added
 * action by action with {@link HandlerFunction.allow}.
 */
export class HandlerFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  /** The version this deploy publishes (a new one whenever the code or configuration changed). */
  readonly version: IVersion;
  /**
   * What every caller invokes (API Gateway's integration, the stream's event source mapping): a
   * release moves it to the new version, all at once or gradually (lib/constructs/release.ts).
   */
  readonly alias: Alias;

  constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    super(scope, id);

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });

    // An explicit role instead of the default one: the default attaches the AWS managed
    // AWSLambdaBasicExecutionRole, which may create and write any log group in the account.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (execution role)`,
    });
    this.role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      // X-Ray: each invocation is a segment of the request's trace (the stage samples, the function follows).
      tracing: Tracing.ACTIVE,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      role: this.role,
      logGroup: this.logGroup,
      // A stage that keeps its data keeps each released version too, so a release can be rolled back by
      // hand to the one before (docs/deploy.md); deleting the function deletes its versions all the same.
      currentVersionOptions: { removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN },
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        // Stack traces need file and line, not the sources; leaving them out keeps the asset small.
        sourcesContent: false,
        // Errors only, from esbuild and from the asset's npm install ('error' is a level both understand).
        logLevel: LogLevel.ERROR,
        // Prefer packages' ESM builds so esbuild can tree-shake the AWS SDK.
        mainFields: ['module', 'main'],
        // Bundled CommonJS dependencies call require() for Node built-ins; ESM has no require.
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        // The AWS SDK is bundled, not taken from the runtime: it pins the version the tests ran
        // against, and one minified file loads faster than the runtime's SDK (measured: 61 ms vs
        // 102 ms of import time over a bare Node start for the document client and logger).
        externalModules: [],
        esbuildArgs: Object.fromEntries(Object.entries(LAMBDA_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
        // A native addon cannot be bundled: esbuild leaves the import alone and npm installs the
        // package into the asset, for the Lambda platform rather than for this machine.
        nodeModules: props.hashesPasswords === false ? [] : [ARGON2_PACKAGE],
        environment: {
          npm_config_os: 'linux',
          npm_config_cpu: 'arm64',
          npm_config_libc: 'glibc',
          npm_config_ignore_scripts: 'true',
          npm_config_audit: 'false',
          npm_config_fund: 'false',
          npm_config_update_notifier: 'false',
          // The lock file pins every tarball by integrity: a warm cache answers without the registry,
          // so a synth works offline in seconds instead of retrying the network for minutes per asset.
          npm_config_prefer_offline: 'true',
        },
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir: string, outputDir: string) => [
            ...(props.hashesPasswords === false
              ? []
              : [
                  // Fail the synth, not the first cold start, when the arm64 binary did not arrive.
                  `test -f "${outputDir}/${ARGON2_ARM64_BINARY}" || { echo "missing ${ARGON2_ARM64_BINARY} in the Lambda asset" >&2; exit 1; }`,
                  // The install copied the whole project's lock file; the function has no use for it.
                  `rm -f "${outputDir}/package-lock.json"`,
                ]),
            `"${process.execPath}" "${SOURCE_MAP_PATHS}" "${outputDir}" "${inputDir}"`,
            // The password blocklist's digests, where domain/password-policy.ts reads them (relative to
            // the bundle); the API functions only (the stream consumer checks no password).
            ...(props.hashesPasswords === false
              ? []
              : [`mkdir -p "${outputDir}/generated" && cp "${inputDir}/${BLOCKLIST_SOURCE}" "${outputDir}/generated/"`]),
          ],
        },
      },
    });
    this.version = this.function.currentVersion;
    this.alias = new Alias(this, 'Live', { aliasName: LIVE_ALIAS, version: this.version });
    // Active tracing grants xray:PutTraceSegments and PutTelemetryRecords, which take no resource.
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: [
        "X-Ray's PutTraceSegments and PutTelemetryRecords have no resource-level permissions (active tracing)",
        ...(props.wildcardReason ? [props.wildcardReason] : []),
        'every other action is granted on named resources.',
      ].join('; '),
    });
  }

  /** Grants exactly these DynamoDB actions on exactly this table (not its indexes). */
  allow(table: ITable, ...actions: readonly DynamoDbAction[]): void {
    this.role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: [table.tableArn],
      }),
    );
  }

  /**
   * Grants UpdateItem on this table (not its indexes) that may name only the table's key
   * attributes and `attributes` (IAM's `dynamodb:Attributes`; IAM needs the key named, and an
   * UpdateItem cannot change a key) and returns nothing: the function can record these
   * attributes on an item, and can neither rewrite its other attributes nor read it this way.
   */
  allowUpdateOf(table: ITable, keyAttributes: readonly string[], attributes: readonly string[]): void {
    this.role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: {
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...keyAttributes, ...attributes] },
          StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
        },
      }),
    );
  }
}
