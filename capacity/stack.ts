/**
 * What the stack sets, as the capacity model needs it: a stage's throttle, WAF limits and tracing
 * from lib/stage-config.ts (read through the same function the CDK app uses), each function's
 * memory from the catalogue, and the stream consumer's settings. The consumer's are written in its
 * construct without a name to import; test/infra/capacity-stack.test.ts holds the copy below to
 * the synthesized template.
 */

import { App } from 'aws-cdk-lib';
import { CATALOGUE } from '#contract/operations';
import { PUBLISH_BATCH } from '#events/lifecycle-events';
import { EDGE_RULES } from '../lib/constructs/edge-protection';
import { ACCESS_LOG_METRICS } from '../lib/constructs/monitoring';
import { type StageName, stageConfigFromContext } from '../lib/stage-config';
import type { Operation } from './inputs';
import type { StackSettings } from './model';

/** The users table's stream consumer (lib/constructs/lifecycle-events.ts): its event source mapping and memory. */
export const CONSUMER = {
  batchSize: 100,
  maxBatchingWindowSeconds: 1,
  /** Not set by the construct: Lambda's default. */
  parallelizationFactor: 1,
  memoryMb: 256,
} as const;

/** A stage's settings for the model, with its defaults and any `-c key=value` overrides given as `context`. */
export function stackSettings(stage: StageName, context: Record<string, unknown> = {}): StackSettings {
  const config = stageConfigFromContext(new App({ context }).node, stage);
  return {
    stage,
    throttleRateLimit: config.throttleRateLimit,
    throttleBurstLimit: config.throttleBurstLimit,
    waf: config.waf,
    wafRules: Object.keys(EDGE_RULES).length,
    wafKeyLimit: config.wafKeyLimit,
    wafIpLimit: config.wafIpLimit,
    wafWindowSeconds: config.wafWindowSeconds,
    apiKeyCacheTtlSeconds: config.apiKeyCacheTtlSeconds,
    tracingSampleRate: config.tracingSampleRate,
    metricFilters: Object.keys(ACCESS_LOG_METRICS).length,
    consumer: { ...CONSUMER, publishBatch: PUBLISH_BATCH },
  };
}

/** Each function's memory (MB), as the stack deploys it. */
export const memoryOf = (operation: Operation): number => CATALOGUE[operation].memoryMb;
