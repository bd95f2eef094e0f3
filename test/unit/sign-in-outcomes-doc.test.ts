/**
 * docs/data-contract.md's "What the tool shows, and what it adds in front" against the package: one
 * row per outcome `signIn` and `changePassword` can answer (the record below is typed by the package's
 * own result types, so an outcome added there fails the type check until it is here and in the table),
 * a wait shown for the outcomes that carry one, and the per-address limit and what follows from it
 * stated with the package's and the costly lane's own numbers.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { COSTLY_LANE_DEFAULTS } from '#domain/costly-lane';
import { FREE_FAILURES } from '#domain/sign-in-attempts';
import { ADDRESS_LIMIT, type ChangePasswordResult, type SignInResult } from '../../packages/sign-in/src/index';
import { ROOT } from '../support/processes';

type Outcome = SignInResult['outcome'] | ChangePasswordResult['outcome'];
/** Every outcome, and whether it carries `retryAfterSeconds`: the compiler holds the keys to the union. */
const OUTCOMES: Record<Outcome, boolean> = {
  ok: false,
  'must-reset': false,
  changed: false,
  refused: false,
  wrong: false,
  throttled: true,
  locked: false,
  busy: true,
};
type WithWait = Extract<SignInResult | ChangePasswordResult, { retryAfterSeconds: number }>['outcome'];
/** The outcomes with a wait, as the result types say (the compiler holds the keys to them). */
const WITH_WAIT: Record<WithWait, true> = { throttled: true, busy: true };

const doc = readFileSync(join(ROOT, 'docs/data-contract.md'), 'utf8');
const section = (() => {
  const start = doc.indexOf('### What the tool shows, and what it adds in front');
  const end = doc.indexOf('\n### ', start + 1);
  if (start < 0 || end < 0) throw new Error('no section "What the tool shows, and what it adds in front" in docs/data-contract.md');
  return doc.slice(start, end);
})();
const prose = section.replace(/\s+/g, ' ');
const rows = new Map([...section.matchAll(/^\| `([a-z-]+)` +\| (.+?) +\|$/gm)].map((m) => [m[1]!, m[2]!]));
const thousands = (n: number) => n.toLocaleString('en-US');

describe('what the tool shows for each outcome', () => {
  it('has one row per outcome of signIn and changePassword, no other', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(OUTCOMES).sort());
  });

  it('shows the wait (retryAfterSeconds) for exactly the outcomes that carry one', () => {
    expect(
      Object.entries(OUTCOMES)
        .filter(([, wait]) => wait)
        .map(([outcome]) => outcome)
        .sort(),
    ).toEqual(Object.keys(WITH_WAIT).sort());
    for (const [outcome, text] of rows)
      expect([outcome, text.includes('`retryAfterSeconds`')]).toEqual([outcome, OUTCOMES[outcome as Outcome]]);
  });
});

describe('the limit per client address, with its numbers', () => {
  const { attempts, windowSeconds } = ADDRESS_LIMIT;

  it("states the package's ADDRESS_LIMIT", () => {
    expect(prose).toContain(`at most ${attempts} attempts per address per ${windowSeconds} s window`);
  });

  it('states what one address can try an hour and a day, from the limit', () => {
    expect(prose).toContain(
      `at most ${thousands((attempts * 3600) / windowSeconds)} passwords an hour and ${thousands((attempts * 86_400) / windowSeconds)} a day`,
    );
  });

  it("states the costly lane's place and queue, the free failures and what a person needs, from the code", () => {
    const words = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
    expect(prose).toContain(`a lane of ${words[COSTLY_LANE_DEFAULTS.concurrency]} place (\`costlyLane.concurrency\`)`);
    expect(prose).toContain(`at most ${COSTLY_LANE_DEFAULTS.maxQueue} attempts wait`);
    expect(prose).toContain(`fail ${words[FREE_FAILURES]} times in a row without a wait`);
    // The free failures, the right password (must-reset) and the change of password.
    expect(prose).toContain(`sends ${words[FREE_FAILURES + 2]} requests and never waits`);
    expect(prose).toContain(
      `after the ${['', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh'][FREE_FAILURES + 1]} failure the next attempt waits`,
    );
    expect(prose).toContain(`the first ${words[FREE_FAILURES + 1]} guesses come at once`);
    expect(prose).toContain(`at most ${words[attempts]} such verifications a window`);
  });
});
