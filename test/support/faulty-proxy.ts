/**
 * A proxy on loopback between a client and the API that misbehaves on purpose, request by request:
 * it forwards, forwards and then drops the client's connection before answering (the answer lost
 * on the way back), answers itself (a 429, a 503...), or never answers.
 */

import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyStep =
  | 'forward'
  /** Forward, read the API's whole answer, then destroy the client's socket without sending it. */
  | 'drop-after-forward'
  /** Read the request and never answer. */
  | 'hang'
  | { status: number; headers?: Record<string, string>; body: string };

export interface ProxiedRequest {
  readonly path: string;
  readonly idempotencyKey: string | undefined;
  readonly body: string;
}

const FORWARDED_REQUEST_HEADERS = ['x-api-key', 'content-type', 'idempotency-key'];
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'idempotent-replayed', 'retry-after', 'allow'];

const pick = (headers: IncomingHttpHeaders | Headers, names: string[]) => {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
};

/** Starts the proxy in front of `upstream`; `plan(n, request)` decides what happens to the n-th request (from 1). */
export async function startFaultyProxy(upstream: string, plan: (n: number, request: ProxiedRequest) => ProxyStep) {
  const requests: ProxiedRequest[] = [];
  /** The API's answers the proxy read and never delivered. */
  const dropped: { status: number; body: string }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = {
      path: req.url ?? '',
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      body: Buffer.concat(chunks).toString(),
    };
    requests.push(request);
    const step = plan(requests.length, request);
    if (step === 'hang') return;
    if (typeof step === 'object') {
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(step.body);
      return;
    }
    const answer = await fetch(`${upstream}${request.path}`, {
      method: req.method,
      headers: pick(req.headers, FORWARDED_REQUEST_HEADERS),
      body: request.body,
    });
    const text = await answer.text();
    if (step === 'drop-after-forward') {
      dropped.push({ status: answer.status, body: text });
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status, pick(answer.headers, FORWARDED_RESPONSE_HEADERS));
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    dropped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
