/**
 * A proxy on loopback in front of DynamoDB Local, for a package the test cannot reach into: it
 * records each call (its operation, and how many items a batch or a transaction names) and can hold
 * the next call that matches until the test lets it go. Bytes pass unchanged both ways.
 */

import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A call as recorded: `GetItem`, `BatchGetItem:3`, `TransactWriteItems:2`. */
export type GateCall = string;

const describeCall = (target: string | undefined, body: string): GateCall => {
  const operation = String(target).split('.')[1] ?? 'unknown';
  const input = JSON.parse(body) as { TransactItems?: unknown[]; RequestItems?: Record<string, { Keys?: unknown[] } | unknown[]> };
  if (input.TransactItems) return `${operation}:${input.TransactItems.length}`;
  if (input.RequestItems) {
    const count = Object.values(input.RequestItems).reduce<number>(
      (n, r) => n + (Array.isArray(r) ? r.length : ((r as { Keys?: unknown[] }).Keys?.length ?? 0)),
      0,
    );
    return `${operation}:${count}`;
  }
  return operation;
};

export async function startDynamoDBGate(upstream: string) {
  const target = new URL(upstream);
  const calls: GateCall[] = [];
  let hold: { matches: (call: GateCall) => boolean; arrived: () => void; released: Promise<void> } | undefined;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const call = describeCall(req.headers['x-amz-target'] as string | undefined, body.toString());
    calls.push(call);
    if (hold?.matches(call)) {
      const held = hold;
      hold = undefined;
      held.arrived();
      await held.released;
    }
    const forward = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    forward.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Every call so far, in the order they reached the gate; empty it to start counting afresh. */
    calls,
    /**
     * Holds the next call that `matches`: `arrived` resolves once it is held; `release` lets it through
     * (and, when none matched, stops waiting for one).
     */
    holdNext(matches: (call: GateCall) => boolean) {
      let arrived!: () => void;
      let letGo!: () => void;
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (letGo = resolve));
      const held = { matches, arrived, released };
      hold = held;
      return {
        arrived: reached,
        release() {
          if (hold === held) hold = undefined;
          letGo();
        },
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
