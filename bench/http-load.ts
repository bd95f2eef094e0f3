/**
 * A small closed-loop load generator over keep-alive HTTP/1.1: `concurrency` callers, each
 * sending its next request when the last one answered. Chosen over autocannon because every
 * request needs its own body (a fresh e-mail per create, a distinct seeded user per delete),
 * every answer's status is checked, and latencies keep sub-millisecond resolution (autocannon's
 * histograms record whole milliseconds, too coarse against a ~10 ms floor).
 */

import { Agent, request } from 'node:http';
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

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const url = new URL(options.path, options.baseUrl);
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.maxMs;

  const caller = async () => {
    while (next < options.maxRequests && performance.now() < deadline) {
      const body = options.body(next++);
      if (body === undefined) return;
      const sent = performance.now();
      const status = await post(agent, url, options.apiKey, JSON.stringify(body));
      const latency = performance.now() - sent;
      latencies.push(latency);
      options.record?.push(latency);
      if (status !== (options.expectStatus ?? 200)) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, caller));
  const elapsed = performance.now() - started;
  agent.destroy();
  return {
    concurrency: options.concurrency,
    requests: latencies.length,
    errors,
    per_s: round(latencies.length / (elapsed / 1000), 1),
    p50_ms: round(percentile(latencies, 50), 3),
    p99_ms: round(percentile(latencies, 99), 3),
  };
}

function post(agent: Agent, url: URL, apiKey: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': apiKey },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
