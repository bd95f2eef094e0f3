/** What the stack sets that the capacity model reads: a stage's API Gateway throttle and whether WAF is on (lib/stage-config.ts). */

import { App } from 'aws-cdk-lib';
import { CATALOGUE } from '#contract/operations';
import { type StageName, stageConfigFromContext } from '../lib/stage-config';

export interface StackSettings {
  readonly stage: string;
  /** API Gateway's stage throttle, applied to each method separately (requests/s). */
  readonly throttleRateLimit: number;
  readonly waf: boolean;
}

/** A stage's settings, read through the same function the CDK app uses. */
export function stackSettings(stage: StageName): StackSettings {
  const config = stageConfigFromContext(new App().node, stage);
  return { stage, throttleRateLimit: config.throttleRateLimit, waf: config.waf };
}

/** Each function's memory (MB), as the stack deploys it. */
export const memoryOf = (operation: keyof typeof CATALOGUE): number => CATALOGUE[operation].memoryMb;
