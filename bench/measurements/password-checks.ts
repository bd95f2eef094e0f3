/**
 * The password policy's cost: the checks a create or reset makes, in the Lambda stand-in after the
 * rounds before it (bench/password-checks.ts), and the online check when a stage turns it on,
 * against a stand-in range server on loopback, in this process.
 */

import { atMost, type Measurement } from '../measurement';
import { type PasswordChecks as Checks, passwordChecks as checkPasswords, type OnlineCheck, onlineCheck } from '../password-checks';
import type { StandIn } from '../stand-in';

const CHECKS_LIMIT_MS = 0.05;

export interface PasswordChecks {
  /** CPU per password over batches of 1,000 random ones in the stand-in. */
  readonly checks: Checks;
  readonly online: OnlineCheck;
}

/** In the stand-in: `batches` batches of 1,000 passwords through the checks. */
export const inLambda = (_standIn: StandIn, { batches }: { batches: number }) => checkPasswords(batches);

export const passwordChecks: Measurement<PasswordChecks> = {
  name: 'passwordChecks',
  title: 'the password checks in the Lambda stand-in, and the online check against a stand-in range server on loopback',
  needs: ['lambda'],
  async run(context) {
    const checks = await context.lambda.run<typeof inLambda>(import.meta.url, { batches: context.scaled(200) });
    return { checks, online: await onlineCheck(context.scaled(400)) };
  },
  targets: ({ checks }) => ({
    cpu: atMost(
      `password checks (NFC, the lists, the context words) <= ${CHECKS_LIMIT_MS} ms CPU p50 per create or reset`,
      CHECKS_LIMIT_MS,
      checks.cpuMsP50,
      `p99 ${checks.cpuMsP99} ms; ${checks.checked} random passwords in the Lambda stand-in, after its rounds; part of the service share`,
    ),
  }),
  render: ({ checks, online }) => `## Password checks

What a create or reset checks before its hash (NFC, the length in code points, the user's e-mail and its local part, 100 blocked words of the owner's, the blocklist's binary search), in the Lambda stand-in after its rounds: ${checks.checked} random passwords in batches of 1,000 (half of them decomposed, so that NFC has work), **${checks.cpuMsP50} ms CPU p50** and ${checks.cpuMsP99} ms p99 per password; ${checks.accepted} accepted. This is part of each operation's CPU in the stand-in, and of its share above the SDK floor.

The online check, when a stage turns it on (off by default; never called when off): one request per password the offline rules accept, ${online.calls} calls against a stand-in range server on loopback answering about 900 padded lines, **${online.wallMsP50} ms wall p50**, ${online.cpuMsPerCall} ms of this process's CPU per call (the stand-in's serving included), before the network's round trip to the real service.`,
};
