/**
 * OWASP's five equivalent argon2id settings side by side: in each step one hash of each, the first
 * one rotating. The floor is the fastest of the five; the target, that the service's default is it
 * (or within a tenth of a millisecond's noise of it).
 */

import { hash } from '@node-rs/argon2';
import { DEFAULT_ARGON2_SETTING, formatArgon2Setting, OWASP_ARGON2ID_SETTINGS } from '#platform/config';
import { atMost, inRounds, type Measurement, median, over, shown, type Target, timed } from '../kit';

const NAMES = OWASP_ARGON2ID_SETTINGS.map(formatArgon2Setting);
const DEFAULT = formatArgon2Setting(DEFAULT_ARGON2_SETTING);
/** The default may be at most this many milliseconds above the fastest. */
const LIMIT_MS = 0.1;

export const measurement: Measurement = {
  title: "argon2id: OWASP's five settings, one hash of each per step",
  async run(env) {
    const step = async (i: number) => {
      const ms: Record<string, number> = {};
      for (let k = 0; k < NAMES.length; k++) {
        const which = (i + k) % NAMES.length;
        ms[NAMES[which]!] = await timed(() => hash('correct horse battery staple', { algorithm: 2, ...OWASP_ARGON2ID_SETTINGS[which]! }));
      }
      return ms;
    };
    for (let i = 0; i < NAMES.length; i++) await step(i);
    const samples = await inRounds(env, 'argon2', step, { rounds: env.size.rounds, perRound: env.size.perRound * 2 });
    const fastest = [...NAMES].sort((a, b) => median(samples[a]!.flat()) - median(samples[b]!.flat()))[0]!;
    return NAMES.map((name): Target => {
      const { difference, floorMs } = over(samples, name, fastest);
      const what = `argon2id ${name}, above the fastest of the five (${fastest})`;
      return name === DEFAULT
        ? atMost(`${what}: the default`, 'ms', LIMIT_MS, difference, floorMs)
        : shown(what, 'ms', difference, floorMs);
    });
  },
};
