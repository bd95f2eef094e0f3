/**
 * The capacity model's view of the stack (capacity/stack.ts) against the synthesized template: the
 * stage throttle on every method, the WAF's rate limits and window, each function's memory and the
 * stream consumer's event source mapping are what the model computes with, for every stage.
 */

import { describe, expect, it } from '@jest/globals';
import type { CfnElement } from 'aws-cdk-lib';
import { OPERATIONS } from '../../capacity/inputs';
import { CONSUMER, memoryOf, stackSettings } from '../../capacity/stack';
import { STAGES } from '../../lib/stage-config';
import { resourcesOf, synthStage } from './synth';

describe.each(STAGES)('%s: the capacity model reads what the stack deploys', (stage) => {
  const { stack, template } = synthStage(stage);
  const resources = Object.values(resourcesOf(template));
  const model = stackSettings(stage);
  const of = (type: string) => resources.filter((resource) => resource.Type === type);

  it("the stage throttle is the stage's default for every method (/*/*), so each operation has its own", () => {
    const settings = of('AWS::ApiGateway::Stage').map((s) => s.Properties?.MethodSettings);
    expect(settings).toEqual([
      [
        expect.objectContaining({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: model.throttleRateLimit,
          ThrottlingBurstLimit: model.throttleBurstLimit,
        }),
      ],
    ]);
  });

  it('the WAF rate limits, window and rule count', () => {
    const acls = of('AWS::WAFv2::WebACL');
    expect(acls.length).toBe(model.waf ? 1 : 0);
    if (!model.waf) return;
    const rules = acls[0]!.Properties?.Rules as {
      Name: string;
      Statement: { RateBasedStatement?: { Limit: number; EvaluationWindowSec: number } };
    }[];
    expect(rules.length).toBe(model.wafRules);
    const rate = (name: string) => rules.find((rule) => rule.Name === name)?.Statement.RateBasedStatement;
    expect(rate('LimitPerApiKey')).toMatchObject({ Limit: model.wafKeyLimit, EvaluationWindowSec: model.wafWindowSeconds });
    expect(rate('LimitPerIp')).toMatchObject({ Limit: model.wafIpLimit, EvaluationWindowSec: model.wafWindowSeconds });
  });

  it("each operation's function memory, and the consumer's event source mapping and memory", () => {
    const functions = resourcesOf(template);
    for (const op of OPERATIONS) {
      const id = stack.getLogicalId(stack.functions[op].function.node.defaultChild as CfnElement);
      expect([op, functions[id]?.Properties?.MemorySize]).toEqual([op, memoryOf(op)]);
    }
    const consumer = stack.getLogicalId(stack.lifecycleEvents.consumer.function.node.defaultChild as CfnElement);
    expect(functions[consumer]?.Properties?.MemorySize).toBe(CONSUMER.memoryMb);
    const [mapping, ...others] = of('AWS::Lambda::EventSourceMapping');
    expect(others).toEqual([]);
    expect(mapping?.Properties).toMatchObject({
      BatchSize: CONSUMER.batchSize,
      MaximumBatchingWindowInSeconds: CONSUMER.maxBatchingWindowSeconds,
    });
    // Not set: Lambda's default, one batch per shard at a time.
    expect(mapping?.Properties?.ParallelizationFactor ?? 1).toBe(CONSUMER.parallelizationFactor);
  });
});
