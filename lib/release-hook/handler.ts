import { CodeDeployClient, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { type HookTarget, hookEvent, judge } from './checks';

const lambda = new LambdaClient({});
const codedeploy = new CodeDeployClient({});

/** The version under release (its qualified ARN) and what it is: set per deployment group by lib/constructs/release.ts. */
const versionArn = process.env.TARGET_VERSION_ARN ?? '';
const target: HookTarget = process.env.TARGET_PATH ? { kind: 'api', path: process.env.TARGET_PATH } : { kind: 'consumer' };

/**
 * CodeDeploy's BeforeAllowTraffic hook: invokes the new version once, as checks.ts says, and reports
 * Succeeded or Failed. Failed (or no report within the hour CodeDeploy waits) rolls the release back
 * before any request reaches the new version.
 */
export async function handler(event: { DeploymentId: string; LifecycleEventHookExecutionId: string }): Promise<void> {
  let problem: string | undefined;
  try {
    const answer = await lambda.send(
      new InvokeCommand({ FunctionName: versionArn, Payload: JSON.stringify(hookEvent(target)), LogType: 'Tail' }),
    );
    problem = judge(target, {
      functionError: answer.FunctionError,
      payload: Buffer.from(answer.Payload ?? new Uint8Array()).toString('utf8'),
      logTail: Buffer.from(answer.LogResult ?? '', 'base64').toString('utf8'),
    });
  } catch (error) {
    problem = `the invocation itself failed (${(error as Error).name})`;
  }
  // What the version answered is a test answer to an unknown key: no secret in it, but only the verdict is logged.
  console.log(JSON.stringify({ message: 'Pre-traffic check', versionArn, passed: problem === undefined, problem }));
  await codedeploy.send(
    new PutLifecycleEventHookExecutionStatusCommand({
      deploymentId: event.DeploymentId,
      lifecycleEventHookExecutionId: event.LifecycleEventHookExecutionId,
      status: problem === undefined ? 'Succeeded' : 'Failed',
    }),
  );
}
