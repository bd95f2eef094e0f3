/** `npm start` at rest (bench/idle.ts): its Node process and DynamoDB Local over a window of nothing, as shares of one core. */

import { type Idle, npmStartIdle as measureIdle } from '../idle';
import { atMost, type Measurement } from '../measurement';
import { round } from '../stats';

const LIMIT = 0.1;

export const npmStartIdle: Measurement<Idle> = {
  name: 'npmStartIdle',
  title: 'npm start at rest: its Node process and DynamoDB Local over a window of nothing',
  needs: [],
  run: (context) => measureIdle(context.root, context.quick ? 3_000 : 5_000),
  targets: (r) => ({
    share: atMost(
      `npm start at rest <= ${LIMIT * 100} % of a core (Node and DynamoDB Local together)`,
      LIMIT,
      round(r.nodeCoreShare + r.dynamodbLocalCoreShare, 3),
      `Node ${r.nodeCoreShare}, DynamoDB Local ${r.dynamodbLocalCoreShare} of a core over ${r.windowS} s`,
    ),
  }),
  render: (r) => `## npm start at rest

Over ${r.windowS} s of nothing, after it listened: its Node process (the server and the lifecycle events' stream poller) ${r.nodeCoreShare} of a core, DynamoDB Local (answering the poller) ${r.dynamodbLocalCoreShare}.`,
};
