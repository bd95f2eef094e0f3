/**
 * A sign-in outcome against its floor, in this process: the sign-in package as a tool runs it (its
 * public createSignIn, on its own DynamoDB client) beside the same verification and the same DynamoDB
 * requests sent bare on a twin user (bench/kit.ts, `replayer`). Each outcome is one file of
 * bench/measurements/ that says how to reach it; a new function of the package (say, a session
 * check) is one more such file.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { hash, verify as verifyHash } from '@node-rs/argon2';
import { createSignIn, type SignIn } from '@white-label-user-management/sign-in';
import { formatArgon2Setting } from '#platform/config';
import { localConnection } from '#store/client';
import type { Env } from './env';
import {
  atMost,
  cpuTimed,
  inRounds,
  type Measurement,
  median,
  over,
  replayer,
  shown,
  spread,
  timed,
  twinEmails,
  type WireRequest,
  wireRequest,
} from './kit';

export const PASSWORD = 'correct horse battery staple';
export const WRONG = 'not the password at all';
/** A call of the package: at most this many milliseconds of CPU above its floor, unless its outcome says less. */
const LIMIT_MS = 1;
const WARM_UP = 3;

export interface SignInKit {
  /** The package, its requests recorded; its clock is `now()` plus `advance`d seconds. */
  readonly signIn: SignIn;
  readonly ownerId: string;
  /** The hash every user is stored with (the service's setting). */
  readonly storedHash: string;
  /** How many times the measurement will make the call (its warm-up included). */
  readonly calls: number;
  /** A user of the module and its twin alike: the module's e-mail. */
  user(tag: string, options?: { mustReset?: boolean }): Promise<string>;
  /** Moves the package's clock on (past a wait). */
  advance(seconds: number): void;
  /** Runs `work` on the package and sends its requests to the twin as well (a set-up both must share). */
  mirrored<T>(work: () => Promise<T>): Promise<T>;
}

export interface Outcome {
  readonly title: string;
  /** Its own limit above the floor, in ms, where the issue that asked for it set one lower than LIMIT_MS. */
  readonly limitMs?: number;
  /** Builds the outcome's users; returns the call (which must answer `expect`) and the password its floor verifies, if any. */
  prepare(kit: SignInKit): Promise<{
    call(): Promise<{ outcome: string }>;
    expect: string;
    verifies?: string;
    /** What else the floor computes besides the replay (checkSession's HMAC), when the call verifies no password. */
    floorWork?: () => unknown;
  }>;
}

/** The measurement of one outcome: its call and its floor, step by step, over rounds. */
export const signInMeasurement = (name: string, outcome: Outcome): Measurement => ({
  title: `sign-in ${outcome.title}, against the same verification and DynamoDB requests bare`,
  async run(env: Env) {
    const { endpoint, stores, owner, config } = await env.dynamodb();
    /** The requests as the SDK hands them over: turned into WireRequests after the call, outside its timing. */
    let recorded: Parameters<Handler['handle']>[0][] | undefined;
    type Handler = {
      handle(request: { headers: Record<string, string>; body: unknown }, options?: unknown): Promise<unknown>;
      destroy?(): void;
    };
    const inner = new DynamoDBClient(localConnection(endpoint)).config.requestHandler as Handler;
    let offset = 0;
    const signIn = createSignIn({
      usersTable: config.usersTableName,
      signInTable: config.signInTableName,
      argon2Setting: formatArgon2Setting(env.setting),
      now: () => Date.now() + offset,
      dynamodb: {
        ...localConnection(endpoint),
        // Every request the package sends, as sent: what its floor replays.
        requestHandler: {
          handle(request: Parameters<Handler['handle']>[0], options?: unknown) {
            recorded?.push(request);
            return inner.handle(request, options);
          },
        } as never,
      },
    });
    const bare = new DynamoDBClient(localConnection(endpoint));
    const replay = replayer(bare);
    const storedHash = await hash(PASSWORD, { algorithm: 2, ...env.setting });
    const during = async <T>(work: () => Promise<T>) => {
      const list: Parameters<Handler['handle']>[0][] = [];
      recorded = list;
      try {
        const result = await work();
        return { result, requests: () => list.map(wireRequest) };
      } finally {
        recorded = undefined;
      }
    };
    const kit: SignInKit = {
      signIn,
      ownerId: owner.ownerId,
      storedHash,
      calls: WARM_UP + env.size.rounds * env.size.perRound,
      async user(tag, options = {}) {
        const { module, twin } = twinEmails(tag);
        for (const email of [module, twin])
          await stores.users.createUser({
            ownerId: owner.ownerId,
            email,
            passwordHash: storedHash,
            shouldResetPassword: options.mustReset === true,
          });
        return module;
      },
      advance: (seconds) => {
        offset += seconds * 1000;
      },
      async mirrored(work) {
        const { result, requests } = await during(work);
        await replay(requests());
        return result;
      },
    };
    const { call, expect, verifies, floorWork } = await outcome.prepare(kit);
    let callCount = 0;
    const step = async () => {
      let made: (() => WireRequest[]) | undefined;
      const module = await cpuTimed(async () => {
        const done = await during(call);
        if (done.result.outcome !== expect) throw new Error(`${name}: expected ${expect}, got ${done.result.outcome}`);
        made = done.requests;
      });
      const requests = made!();
      let calls = 0;
      const floor = await cpuTimed(async () => {
        if (verifies !== undefined) await verifyHash(storedHash, verifies);
        floorWork?.();
        calls = await timed(() => replay(requests));
      });
      callCount = requests.length;
      return { module: module.cpuMs, floor: floor.cpuMs, moduleElapsed: module.ms, floorElapsed: floor.ms, calls };
    };
    for (let i = 0; i < WARM_UP; i++) await step();
    const samples = await inRounds(env, name, step);
    const cpu = over(samples, 'module', 'floor');
    const elapsed = over(samples, 'moduleElapsed', 'floorElapsed');
    await signIn.close();
    bare.destroy();
    inner.destroy?.();
    return [
      atMost(`sign-in ${outcome.title}, CPU above its floor`, 'ms', outcome.limitMs ?? LIMIT_MS, cpu.difference, cpu.floorMs),
      shown(`sign-in ${outcome.title}, elapsed above its floor`, 'ms', elapsed.difference, elapsed.floorMs),
      shown(`sign-in ${outcome.title}: its ${callCount} DynamoDB calls, sent bare`, 'ms', spread(samples.calls!.map(median))),
    ];
  },
});
