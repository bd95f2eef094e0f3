import { join } from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/app';
import type { StageName } from '../../lib/stage-config';
import { OPERATIONS, type Operation } from '../../lib/user-management-stack';
import { TEST_REGION } from './templates';

export * from './templates';

/**
 * The app exactly as `cdk synth` builds it (cdk-nag plugin included), for one stage, with Lambda
 * bundling skipped: template assertions need the template, not the asset, and bundling costs seconds.
 * The asset itself is checked once, with real bundling, in asset.test.ts.
 */
export function synthStage(stage: StageName, context: Record<string, unknown> = {}) {
  const built = buildApp({ context: { stage, 'aws:cdk:bundling-stacks': [], ...context }, region: TEST_REGION });
  return { ...built, template: Template.fromStack(built.stack) };
}

/** Synthesizes prod with real bundling (esbuild, npm install into each asset) into `dir`; each function's asset directory. */
export function synthAssets(dir: string): Record<Operation, string> {
  const { app, stack } = buildApp({
    // Asset metadata (the CLI turns it on) records each function's asset directory in the template.
    context: { stage: 'prod', 'aws:cdk:enable-asset-metadata': true },
    outdir: dir,
    region: TEST_REGION,
  });
  const template = app.synth().getStackByName(stack.stackName).template as {
    Resources: Record<string, { Metadata?: Record<string, string> }>;
  };
  const dirs = {} as Record<Operation, string>;
  for (const operation of OPERATIONS) {
    const id = stack.getLogicalId(stack.functions[operation].function.node.defaultChild as CfnElement);
    const assetPath = template.Resources[id]?.Metadata?.['aws:asset:path'];
    if (!assetPath) throw new Error(`no asset for ${operation}`);
    dirs[operation] = join(dir, assetPath);
  }
  return dirs;
}
