/**
 * Writes the synthesis cache (synth-cache.ts) for one key: `tsx test/infra/synth-cache-build.ts <folder>`.
 * Each stage as `synthStage` builds it, with what the infra tests read of its constructs. A stage
 * that fails to build or synthesize is kept as its error (`<stage>.error`), which each test reading
 * it then fails with, as `synthStage` would have. Written beside the folder first and moved into
 * place whole, so a reader never sees half of it.
 */

import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnElement, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { CachedStageJson } from './synth-cache';

const dir = process.argv[2];
if (!dir) throw new Error('usage: tsx test/infra/synth-cache-build.ts <folder>');
const partial = `${dir}.${process.pid}.partial`;
rmSync(partial, { recursive: true, force: true });
mkdirSync(partial, { recursive: true });

const STAGES = ['dev', 'staging', 'prod'] as const;
const failed = (stage: string, error: unknown) =>
  writeFileSync(join(partial, `${stage}.error`), error instanceof Error ? (error.stack ?? error.message) : String(error));

// Imported here, so that a module that fails to load fails each stage, not this script.
const synth = await import('./synth').catch((error: unknown) => {
  for (const stage of STAGES) failed(stage, error);
  return undefined;
});
for (const stage of synth ? STAGES : []) {
  try {
    writeFileSync(join(partial, `${stage}.json`), JSON.stringify(record(stage)));
  } catch (error) {
    failed(stage, error);
  }
}

function record(stage: (typeof STAGES)[number]): CachedStageJson {
  const { app, stack, template } = synth!.synthStage(stage);
  const idOf = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const constructs = stack.node.findAll();
  return {
    stackName: stack.stackName,
    terminationProtection: stack.terminationProtection,
    config: stack.config,
    template: template.toJSON(),
    logicalIds: Object.fromEntries(
      constructs
        .filter(CfnElement.isCfnElement)
        .map((element) => [element.node.path.slice(stack.node.path.length + 1), stack.getLogicalId(element)]),
    ),
    warnings: stack.node.metadata.filter((entry) => entry.type === 'aws:cdk:warning').map((entry) => String(entry.data)),
    acknowledged: constructs
      .flatMap((construct) => construct.node.metadata.filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>)),
    nagViolations: new AwsSolutionsChecks(app)
      .validateScope(stack)
      .violations.map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`),
    alarms: {
      monitoring: stack.monitoring.alarms.map(idOf),
      releaseWide: stack.monitoring.releaseAlarms.map(idOf),
      lifecycleEvents: stack.lifecycleEvents.alarms.map(idOf),
      versions: stack.release.versionAlarms.map(idOf),
    },
    hooks: Object.fromEntries(Object.entries(stack.release.hooks).map(([name, hook]) => [name, idOf(hook)])),
  };
}
writeFileSync(join(partial, 'complete'), '');
try {
  renameSync(partial, dir);
} catch {
  // Another run wrote the same key first: its stages are these.
  rmSync(partial, { recursive: true, force: true });
}
