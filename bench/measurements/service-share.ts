/**
 * The service's share above the SDK floor, in the Lambda stand-in: each operation's handler called
 * as Lambda calls it, call by call beside its bare work with the service's own SDK client (a hash
 * then the PutItem; a hash then the UpdateItem; the Query then the DeleteItem), the floor first on
 * even calls and the operation first on odd ones. The share is taken round by round (the
 * operation's mean CPU beyond the hash, less its floor's, in the same round) and judged on the
 * median of the rounds: one figure for a whole run sat inside its own noise.
 */

import { randomUUID } from 'node:crypto';
import { atMost, type Measurement, resultIn } from '../measurement';
import { FLOOR_OF, OPERATIONS, type Operation, UNMEASURED } from '../operations';
import { table } from '../report';
import { NOTHING, nothing, type PhaseCpu, type StandIn } from '../stand-in';
import { formatSpread, MIN_ROUNDS, type Spread, spread } from '../stats';
import { latency } from './latency';

export { FLOOR_OF, OPERATIONS, type Operation, UNMEASURED } from '../operations';

const FLOOR_NAME = {
  createUser: 'hash then PutItem',
  resetUserPassword: 'hash then UpdateItem',
  deleteUser: 'Query then DeleteItem',
} as const;
type FloorPhase = (typeof FLOOR_OF)[Operation];

const SHARE_LIMIT_MS = 0.5;

export interface OperationShare {
  /** The floor phase it is measured beside. */
  readonly floor: FloorPhase;
  /** CPU per call beyond the hash over every round: the operation's, and its floor's. */
  readonly operationMs: number;
  readonly sdkFloorMs: number;
  /** Per round, the operation's non-hash CPU per call less its floor's: median, range, each round. */
  readonly shareMs: Spread;
}

export interface ServiceShare {
  readonly rounds: number;
  readonly callsPerRound: number;
  /** CPU per call of each phase: `nothing` (what measuring costs, already taken off the others), each floor, each operation. */
  readonly phases: Record<typeof NOTHING | FloorPhase | Operation, PhaseCpu>;
  readonly share: Record<Operation, OperationShare>;
}

/** Each operation's share from the phases: round by round, the operation's non-hash CPU less its floor's. */
export function sharesFrom(phases: ServiceShare['phases']): Record<Operation, OperationShare> {
  const share = (op: Operation): OperationShare => {
    const floor = FLOOR_OF[op];
    const ours = phases[op].nonHashCpuMsRounds.rounds;
    const theirs = phases[floor].nonHashCpuMsRounds.rounds;
    if (ours.length !== theirs.length) throw new Error(`${op} and ${floor} were measured over different rounds`);
    return {
      floor,
      operationMs: phases[op].nonHashCpuMs,
      sdkFloorMs: phases[floor].nonHashCpuMs,
      shareMs: spread(ours.map((ms, r) => ms - theirs[r]!)),
    };
  };
  return Object.fromEntries(OPERATIONS.map((op) => [op, share(op)])) as Record<Operation, ReturnType<typeof share>>;
}

/** In the stand-in: `rounds` rounds of `perRound` calls of each operation, each beside its floor. */
export async function inLambda(standIn: StandIn, { rounds, perRound }: { rounds: number; perRound: number }) {
  const password = 'correct horse battery staple';
  const floors = {
    hashThenPut: standIn.floor.hashThenPut,
    hashThenUpdate: standIn.floor.hashThenUpdate,
    queryThenDelete: standIn.floor.queryThenDelete,
  };
  return standIn.measureRounds({ rounds, perRound }, async (measure, calls) => {
    const users = Array.from({ length: calls }, () => `cpu-${randomUUID().slice(0, 13)}@example.com`);
    const bodies: Record<Operation, (email: string) => object> = {
      createUser: (user_email) => ({ user_email, user_password: password }),
      resetUserPassword: (user_email) => ({ user_email, new_password: 'a brand new passphrase' }),
      // Users without associated items: one Query and one DeleteItem each.
      deleteUser: (user_email) => ({ user_email }),
    };
    const alternate = async (i: number, first: () => Promise<void>, second: () => Promise<void>) => {
      if (i % 2 === 0) {
        await first();
        await second();
      } else {
        await second();
        await first();
      }
    };
    for (let i = 0; i < calls; i++) {
      await alternate(
        i,
        () => measure(NOTHING, nothing),
        () => measure(NOTHING, nothing),
      );
    }
    for (const op of OPERATIONS) {
      for (let i = 0; i < calls; i++) {
        const call = standIn.handlerCall(op, bodies[op](users[i]!));
        await alternate(
          i,
          () => measure(FLOOR_OF[op], floors[FLOOR_OF[op]]),
          () => measure(op, call),
        );
      }
    }
  });
}

export const serviceShare: Measurement<ServiceShare> = {
  name: 'serviceShare',
  title: 'the service share above the SDK floor: each handler beside its floor in the Lambda stand-in, in rounds',
  needs: ['lambda'],
  async run(context) {
    const rounds = context.quick ? MIN_ROUNDS : 8;
    // --quick: five rounds of 8, 40 of each in all (a full run: 8 rounds of 60).
    const perRound = context.quick ? 8 : 60;
    const measured = await context.lambda.run<typeof inLambda>(import.meta.url, { rounds, perRound });
    const phases = Object.fromEntries(
      [NOTHING, ...OPERATIONS.flatMap((op) => [FLOOR_OF[op], op])].map((name) => [name, measured[name]!]),
    ) as ServiceShare['phases'];
    return { rounds, callsPerRound: perRound, phases, share: sharesFrom(phases) };
  },
  targets: (r) =>
    Object.fromEntries(
      OPERATIONS.map((op) => {
        const s = r.share[op];
        return [
          op,
          atMost(
            `service share above the SDK floor, ${op} <= ${SHARE_LIMIT_MS} ms CPU`,
            SHARE_LIMIT_MS,
            s.shareMs.median,
            `median of ${s.shareMs.rounds.length} rounds, range ${s.shareMs.min} to ${s.shareMs.max}; beyond the hash: the operation ${s.operationMs} ms, the SDK's bare ${FLOOR_NAME[op]} ${s.sdkFloorMs} ms`,
          ),
        ];
      }),
    ),
  render(r, report) {
    const http = report.latency === undefined ? undefined : resultIn(report, latency).httpCpu;
    const unmeasured = UNMEASURED.length > 0 ? `\nNot measured: ${UNMEASURED.join(', ')} (no SDK floor in bench/operations.ts yet).\n` : '';
    return `## The service's share above its SDK floor
${unmeasured}
In a Lambda stand-in (a process calling the handlers as Lambda does: event built beforehand, warm, one at a time, logging at INFO, metrics on), each operation call by call beside its bare work with the service's SDK client, ${r.rounds} rounds of ${r.callsPerRound} calls of each. The share is the operation's CPU beyond the hash less its floor's, taken round by round; the target is judged on the median of the rounds, and the range (min to max) says how far a single round strayed.

${table(
  ['operation', 'share ms: median', 'min', 'max', 'rounds', "operation's non-hash CPU ms", "floor's non-hash CPU ms", 'floor'],
  OPERATIONS.map((op) => {
    const s = r.share[op];
    return [op, s.shareMs.median, s.shareMs.min, s.shareMs.max, s.shareMs.rounds.join(', '), s.operationMs, s.sdkFloorMs, FLOOR_NAME[op]];
  }),
)}

### CPU per request

Read per thread from /proc: the hash is what libuv's pool threads spent (argon2 runs there), the rest every other thread (pipeline, SDK, HTTP to DynamoDB, logging; V8's GC helpers), as the mean over every round (${r.phases.createUser.requests} requests per phase) and the median (min to max) of the rounds' means.${http ? " Over HTTP: the local server's process at concurrency 1 (bench/measurements/latency.ts)." : ''}

${table(
  [
    'phase',
    'CPU ms',
    'rounds: median (min to max)',
    'hash CPU ms',
    'non-hash CPU ms',
    'wall ms p50',
    'errors',
    'over HTTP: CPU ms',
    'over HTTP: non-hash CPU ms',
  ],
  (Object.entries(r.phases) as [keyof ServiceShare['phases'], PhaseCpu][]).map(([phase, c]) => {
    const overHttp = http && phase in http ? http[phase as Operation] : undefined;
    return [
      phase,
      c.cpuMs,
      formatSpread(c.cpuMsRounds),
      c.hashCpuMs,
      c.nonHashCpuMs,
      c.wallMsP50,
      c.errors,
      overHttp?.cpuMs,
      overHttp?.nonHashCpuMs,
    ];
  }),
)}

\`nothing\` is a call that does nothing, measured as every call is: what reading /proc around a call costs, taken off every other row. \`hashThenPut\`, \`hashThenUpdate\` and \`queryThenDelete\` are the SDK floors, each run call by call beside its operation.`;
  },
};
