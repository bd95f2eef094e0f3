/**
 * The local server answers like the contract: what Node's HTTP parser refuses is answered as
 * `{"message": ...}` JSON (400, 431), and a body over 16 KiB is never read: the request is answered
 * in the contract's order (401 without a valid key, 413 with one) while the caller is still sending,
 * and the connection is closed. Raw sockets, so the bytes on the wire are exactly these.
 */

import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
import { newOwner, startLocalServer } from '../support/local';

let server: Awaited<ReturnType<typeof startLocalServer>>;
let apiKey: string;
beforeAll(async () => {
  server = await startLocalServer();
  ({ apiKey } = await newOwner('protocol'));
});
afterAll(() => server.close());

/** An answer parsed from the raw bytes: status, lower-cased headers, body. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const parse = (raw: string): RawAnswer => {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
};

/** Opens a connection, writes `bytes`, and resolves with everything received until the server closes it. */
function exchange(bytes: string | Buffer): Promise<RawAnswer> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parse(Buffer.concat(chunks).toString('utf8'))));
  });
}

describe("what Node's HTTP parser refuses", () => {
  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n'],
    ['a DEL byte in a header value', 'POST /v1/createUser HTTP/1.1\r\nHost: x\r\nX-Odd: a\x7fb\r\nContent-Length: 0\r\n\r\n'],
    [
      'Content-Length beside Transfer-Encoding',
      'POST /v1/createUser HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
  ])('%s: 400 JSON, and the connection closed', async (_, bytes) => {
    const answer = await exchange(bytes);
    expect([answer.status, answer.headers['content-type'], JSON.parse(answer.body)]).toEqual([
      400,
      'application/json',
      { message: MESSAGES.badRequest },
    ]);
    expect(answer.headers.connection).toBe('close');
  });

  it('a header section over the limit: 431 JSON', async () => {
    const answer = await exchange(`POST /v1/createUser HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect([answer.status, answer.headers['content-type'], JSON.parse(answer.body)]).toEqual([
      431,
      'application/json',
      { message: MESSAGES.headersTooLarge },
    ]);
  });
});

describe('a body over 16 KiB is answered before it is read', () => {
  /**
   * Sends the head of a request declaring `declared` bytes, then only the first 64 KiB of its body,
   * and resolves with the answer and how much of the body had been written when the answer came.
   */
  function sendLarge(headers: string[], declared: number): Promise<RawAnswer & { bodySent: number }> {
    const { port } = new URL(server.baseUrl);
    return new Promise((resolve, reject) => {
      let bodySent = 0;
      let sentAtAnswer = -1;
      const socket: Socket = connect(Number(port), '127.0.0.1', () => {
        const head = [
          'POST /v1/createUser HTTP/1.1',
          'Host: x',
          'Content-Type: application/json',
          ...headers,
          `Content-Length: ${declared}`,
        ];
        socket.write(`${head.join('\r\n')}\r\n\r\n`);
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        socket.write(chunk, () => {
          bodySent += chunk.length;
        });
      });
      const chunks: Buffer[] = [];
      socket.on('data', (data) => {
        if (sentAtAnswer < 0) sentAtAnswer = bodySent;
        chunks.push(data);
      });
      socket.on('error', (error: NodeJS.ErrnoException) =>
        error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error),
      );
      socket.on('close', () => resolve({ ...parse(Buffer.concat(chunks).toString('utf8')), bodySent: sentAtAnswer }));
    });
  }

  const declared = 9_500_000;

  it.each([
    ['no X-API-Key', []],
    ['an unknown key', [`X-API-Key: wlk_${'A'.repeat(43)}`]],
  ])('%s: 401 while most of the declared body was never sent, and the connection closed', async (_, headers) => {
    const answer = await sendLarge(headers, declared);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([401, { message: MESSAGES.unauthorized }]);
    expect(answer.headers.connection).toBe('close');
    expect(answer.bodySent).toBeLessThan(declared);
  });

  it('a valid key: 413, before the body is read, the connection closed', async () => {
    const answer = await sendLarge([`X-API-Key: ${apiKey}`], declared);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([413, { message: MESSAGES.bodyTooLarge }]);
    expect(answer.headers.connection).toBe('close');
    expect(answer.bodySent).toBeLessThan(declared);
  });

  it('twenty keyless 9.5 MB declarations in a row are each refused without the server buffering them', async () => {
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 20; i++) {
      const answer = await sendLarge([], declared);
      expect([answer.status, JSON.parse(answer.body)]).toEqual([401, { message: MESSAGES.unauthorized }]);
    }
    // The server runs in this process: reading 20 bodies of 9.5 MB would have grown it by far more.
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });
});
