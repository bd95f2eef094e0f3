/**
 * Writes the synthesis cache (synth-cache.ts) for one key: `tsx test/infra/synth-cache-build.ts <folder>`.
 * Each stage as `synthStage` builds it, with what the infra tests read of its constructs. Written
 * beside the folder first and moved into place whole, so a reader never sees half of it.
 */

import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnElement, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { STAGES } from '../../lib/stage-config';
import { synthStage } from './synth';
import type { CachedStageJson } from './synth-cache';

const dir = process.argv[2];
if (!dir) throw new Error('usage: tsx test/infra/synth-cache-build.ts <folder>');
const partial = `${dir}.${process.pid}.partial`;
rmSync(partial, { recursive: true, force: true });
mkdirSync(partial, { recursive: true });

for (const stage of STAGES) {
  const { app, stack, template } = synthStage(stage);
  const idOf = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const constructs = stack.node.findAll();
  const record: CachedStageJson = {
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
  writeFileSync(join(partial, `${stage}.json`), JSON.stringify(record));
}
writeFileSync(join(partial, 'complete'), '');
try {
  renameSync(partial, dir);
} catch {
  // Another run wrote the same key first: its stages are these.
  rmSync(partial, { recursive: true, force: true });
}
