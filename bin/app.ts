#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { buildApp } from '../lib/app';
import { stageConfigFromContext, stagesFromContext } from '../lib/stage-config';

// Stage and overrides come from context: `cdk synth -c stage=prod -c throttleRateLimit=200`.
// A mistake there is the caller's, not a bug: one line and exit 1, no stack trace. The context is
// read first on an app of its own that never synthesizes; any later error keeps its stack.
const mistake = contextMistake();
if (mistake) {
  console.error(mistake);
  process.exitCode = 1;
} else {
  buildApp().app.synth();
}

function contextMistake(): string | undefined {
  const { node } = new App({ autoSynth: false });
  try {
    for (const stage of stagesFromContext(node)) stageConfigFromContext(node, stage);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
