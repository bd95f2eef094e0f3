/** The online password check as a stage setting: off by default on every stage; on, its endpoint and its alarm. */

import { describe, expect, it } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { STAGES } from '../../lib/stage-config';
import { OPERATIONS } from '../../lib/user-management-stack';
import { baseStage, resourcesOf, synthStage } from './synth';

const alarmName = (stage: string) => `UserManagement-${stage}-breach-check-unavailable`;

describe('the online password check (Pwned Passwords)', () => {
  it.each(STAGES)('%s: off by default: no function has PWNED_PASSWORDS_URL, no alarm for it', (stage) => {
    const { template } = baseStage(stage);
    const functions = Object.values(resourcesOf(template)).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions.filter((f) => JSON.stringify(f.Properties?.Environment ?? {}).includes('PWNED_PASSWORDS_URL'))).toEqual([]);
    template.resourcePropertiesCountIs('AWS::CloudWatch::Alarm', { AlarmName: alarmName(stage) }, 0);
  });

  it('-c pwnedPasswordsCheck=true: the API functions call the public range API (no VPC), and an alarm fires when it fails 5 minutes running', () => {
    const { template } = synthStage('prod', { pwnedPasswordsCheck: 'true' });
    template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      {
        Environment: { Variables: Match.objectLike({ PWNED_PASSWORDS_URL: 'https://api.pwnedpasswords.com' }) },
        VpcConfig: Match.absent(),
      },
      OPERATIONS.length,
    );
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: alarmName('prod'),
      Namespace: 'UserManagement/prod',
      MetricName: 'breachCheckUnavailable',
      Dimensions: [{ Name: 'check', Value: 'pwned-passwords' }],
      Statistic: 'Sum',
      Period: 60,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 5,
      TreatMissingData: 'notBreaching',
      AlarmActions: [Match.anyValue()],
    });
  });

  it('a malformed setting fails the synth', () => {
    expect(() => synthStage('dev', { pwnedPasswordsCheck: 'perhaps' })).toThrow(/pwnedPasswordsCheck/);
  });
});
