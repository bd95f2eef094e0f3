/** HTTP over a raw socket: bytes no HTTP client would send, and every answer the server writes back. */

import { connect } from 'node:net';

/** An answer parsed from the raw bytes: status, lower-cased headers, body. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Every answer in the bytes received, in order: each head, then as many body bytes as its Content-Length says. */
export function parseAnswers(raw: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine = '', ...lines] = rest
      .subarray(0, end === -1 ? rest.length : end)
      .toString()
      .split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const start = end === -1 ? rest.length : end + 4;
    const length = headers['content-length'] === undefined ? rest.length - start : Number(headers['content-length']);
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.subarray(start, start + length).toString() });
    rest = rest.subarray(start + length);
  }
  return answers;
}

/** Connects to `baseUrl`'s host and port, writes `bytes`, and resolves with every answer received until the server closes the connection. */
export function exchangeRaw(baseUrl: string, bytes: string | Buffer): Promise<RawAnswer[]> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswers(Buffer.concat(chunks))));
  });
}
