/** A small client for the API over real HTTP. */

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The body's bytes as they arrived. */
  readonly bytes: Buffer;
  readonly text: string;
  readonly body: unknown;
}

export interface RequestOptions {
  /** Sent as X-API-Key; `null` sends no header. */
  apiKey?: string | null;
  /** Replaces the JSON body with this raw text, or these bytes. */
  raw?: string | Uint8Array;
  method?: string;
  headers?: Record<string, string>;
}

export function apiClient(baseUrl: string, defaultKey: string) {
  return async function call(path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse> {
    const apiKey = options.apiKey === undefined ? defaultKey : options.apiKey;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (apiKey !== null) headers['x-api-key'] = apiKey;
    const method = options.method ?? 'POST';
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : (options.raw ?? (body === undefined ? undefined : JSON.stringify(body))),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    return { status: response.status, headers: response.headers, bytes, text, body: parseJson(text) };
  };
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * POSTs `body` with exactly these header lines, in this order and spelling (fetch folds a repeated
 * header into one, so a request carrying X-API-Key twice goes out through node:http).
 */
export function postWithRawHeaders(
  baseUrl: string,
  path: string,
  headerLines: readonly [string, string][],
  body: unknown,
): Promise<ApiResponse> {
  const url = new URL(`${baseUrl}${path}`);
  const payload = JSON.stringify(body);
  // A raw header list gets no defaults from node:http: Host and the length are ours to send.
  const raw = [
    ['Host', url.host],
    ...headerLines,
    ['Content-Type', 'application/json'],
    ['Content-Length', String(Buffer.byteLength(payload))],
  ].flat();
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers: raw }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
        const text = bytes.toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers, bytes, text, body: parseJson(text) });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * An answer read some other way (a raw socket) in the shape the contract suite compares: its
 * status, its headers and its body's bytes.
 */
export function apiResponse(status: number, headers: Readonly<Record<string, string>>, body: string | Uint8Array): ApiResponse {
  const bytes = Buffer.from(body);
  const text = bytes.toString('utf8');
  return { status, headers: new Headers(headers), bytes, text, body: parseJson(text) };
}
