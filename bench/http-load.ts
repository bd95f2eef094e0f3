/**
 * A small closed-loop load generator over keep-alive HTTP/1.1: `concurrency` connections, each
 * sending its next request when the last one answered. Chosen over autocannon because every
 * request needs its own body (a fresh e-mail per create, a distinct seeded user per delete),
 * every answer's status is checked, and latencies keep sub-millisecond resolution (autocannon's
 * histograms record whole milliseconds, too coarse against a ~10 ms floor).
 *
 * It writes each request's bytes straight to a socket and reads only the status line and
 * Content-Length of the answer (the local server always sends one): the generator shares the two
 * cores with the service, and Node's HTTP client cost about 0.3 ms of CPU per request against
 * about 0.15 ms for this, CPU the service would otherwise lose at saturation.
 */

import { connect } from 'node:net';
import { percentile, round } from './stats';

export interface LoadOptions {
  readonly baseUrl: string;
  readonly path: string;
  readonly apiKey: string;
  readonly concurrency: number;
  /** The i-th request's JSON body; returning undefined ends the run (the pool ran dry). */
  readonly body: (i: number) => object | undefined;
  /** Stop after this many requests... */
  readonly maxRequests: number;
  /** ...or after this long, whichever comes first. */
  readonly maxMs: number;
  readonly expectStatus?: number;
  /** Every latency is also pushed here, for figures pooled over several runs. */
  readonly record?: number[];
}

export interface LoadResult {
  readonly concurrency: number;
  readonly requests: number;
  readonly errors: number;
  readonly per_s: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
}

const HEAD_END = '\r\n\r\n';
const CONTENT_LENGTH = /\r\ncontent-length: *(\d+)/i;

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.path, options.baseUrl);
  const head = `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\nx-api-key: ${options.apiKey}\r\ncontent-length: `;
  const expect = String(options.expectStatus ?? 200);
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.maxMs;

  const connection = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      socket.setNoDelay(true);
      socket.setEncoding('latin1');
      let received = '';
      let sent = 0;
      let waiting = false;
      const sendNext = () => {
        const body = next < options.maxRequests && performance.now() < deadline ? options.body(next++) : undefined;
        if (body === undefined) {
          socket.end();
          resolve();
          return;
        }
        const text = JSON.stringify(body);
        sent = performance.now();
        waiting = true;
        socket.write(`${head}${Buffer.byteLength(text)}${HEAD_END}${text}`);
      };
      socket.on('data', (chunk: string) => {
        received += chunk;
        const end = received.indexOf(HEAD_END);
        if (end < 0) return;
        const length = Number(CONTENT_LENGTH.exec(received.slice(0, end + 2))?.[1] ?? Number.NaN);
        if (Number.isNaN(length)) {
          socket.destroy();
          return reject(new Error(`an answer without Content-Length: ${received.slice(0, 80)}`));
        }
        if (received.length < end + HEAD_END.length + length) return;
        waiting = false;
        const latency = performance.now() - sent;
        latencies.push(latency);
        options.record?.push(latency);
        // "HTTP/1.1 200 OK": the status is the second word.
        if (received.slice(9, 12) !== expect) errors++;
        received = received.slice(end + HEAD_END.length + length);
        sendNext();
      });
      socket.once('error', reject);
      // Closed by the server with a request unanswered: that request failed.
      socket.once('close', () => {
        if (waiting) errors++;
        resolve();
      });
      socket.once('connect', sendNext);
    });
  await Promise.all(Array.from({ length: options.concurrency }, connection));
  const elapsed = performance.now() - started;
  return {
    concurrency: options.concurrency,
    requests: latencies.length,
    errors,
    per_s: round(latencies.length / (elapsed / 1000), 1),
    p50_ms: round(percentile(latencies, 50), 3),
    p99_ms: round(percentile(latencies, 99), 3),
  };
}
