/**
 * OWASP's five equivalent argon2id settings side by side, in the Lambda stand-in: in each round one
 * hash of each setting in turn (the first one rotating), beside a call that does nothing (what
 * measuring costs), CPU per hash from the process's threads.
 */

import { DEFAULT_ARGON2_SETTING, formatArgon2Setting, OWASP_ARGON2ID_SETTINGS } from '#platform/config';
import { hashAt } from '../argon2';
import { holds, type Measurement } from '../measurement';
import { table } from '../report';
import type { PhaseCpu, StandIn } from '../stand-in';
import { NOTHING, nothing } from '../stand-in';
import { formatSpread, MIN_ROUNDS } from '../stats';

export interface Argon2 {
  /** The setting the service ran with (ARGON2_SETTING, else the default). */
  readonly serviceSetting: string;
  readonly defaultSetting: string;
  /** The setting with the least CPU per hash (mean over every round). */
  readonly fastest: string;
  readonly rounds: number;
  readonly hashesPerRound: number;
  /** Each setting by name (`m=7168,t=5,p=1`): CPU per hash, its split, wall clock, and its spread over the rounds. */
  readonly settings: Record<string, PhaseCpu>;
}

const NAMES = OWASP_ARGON2ID_SETTINGS.map(formatArgon2Setting);

/** In the stand-in: `rounds` rounds of `perRound` hashes of each setting. */
export async function inLambda(standIn: StandIn, { rounds, perRound }: { rounds: number; perRound: number }) {
  return standIn.measureRounds({ rounds, perRound }, async (measure, calls) => {
    for (let i = 0; i < calls; i++) {
      await measure(NOTHING, nothing);
      for (let k = 0; k < NAMES.length; k++) {
        const which = (i + k) % NAMES.length;
        await measure(NAMES[which]!, () => hashAt(OWASP_ARGON2ID_SETTINGS[which]!).then(() => true));
      }
    }
  });
}

export const argon2: Measurement<Argon2> = {
  name: 'argon2',
  title: "argon2id: OWASP's five settings side by side in the Lambda stand-in",
  needs: ['lambda'],
  async run(context) {
    const rounds = context.quick ? MIN_ROUNDS : 8;
    // --quick: five rounds of 8, 40 of each in all (a full run: 8 rounds of 60).
    const perRound = context.quick ? 8 : 60;
    const phases = await context.lambda.run<typeof inLambda>(import.meta.url, { rounds, perRound });
    const settings = Object.fromEntries(NAMES.map((name) => [name, phases[name]!]));
    return {
      serviceSetting: formatArgon2Setting(context.setting),
      defaultSetting: formatArgon2Setting(DEFAULT_ARGON2_SETTING),
      fastest: [...NAMES].sort((a, b) => settings[a]!.cpuMs - settings[b]!.cpuMs)[0]!,
      rounds,
      hashesPerRound: perRound,
      settings,
    };
  },
  targets: (r) => ({
    defaultIsFastest: holds(
      'the default argon2id setting is the fastest of the five measured',
      'the fastest',
      `${r.defaultSetting} (fastest ${r.fastest})`,
      r.defaultSetting === r.fastest,
    ),
  }),
  render: (r) => `## argon2id: OWASP's five equivalent settings, side by side

One hash at a time in the Lambda stand-in, ${r.rounds} rounds of ${r.hashesPerRound} of each setting in turn; CPU is the process's (all threads) per hash, the mean over every round, then the median and range of the rounds' means.

${table(
  ['setting', 'CPU ms per hash', 'rounds: median (min to max)', 'hash CPU ms', 'non-hash CPU ms', 'wall ms p50', 'hashes', ''],
  Object.entries(r.settings).map(([name, s]) => [
    name,
    s.cpuMs,
    formatSpread(s.cpuMsRounds),
    s.hashCpuMs,
    s.nonHashCpuMs,
    s.wallMsP50,
    s.requests,
    [name === r.fastest ? 'fastest' : '', name === r.defaultSetting ? 'default' : ''].filter(Boolean).join(', '),
  ]),
)}`,
};
