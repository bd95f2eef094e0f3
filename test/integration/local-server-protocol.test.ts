/**
 * The local server answers like the contract: what Node's HTTP parser refuses is answered as
 * `{"message": ...}` JSON (400, 431), and so are a request without a Host header (or with two),
 * CONNECT (400) and an unsupported Expect (417); a valid request followed by a malformed one on the
 * same connection still gets its own answer first. A body over 16 KiB is never read: the request is
 * answered in the contract's order (401 without a valid key, 413 with one) while the caller is still
 * sending, and the connection is closed. Raw sockets, so the bytes on the wire are exactly these.
 */

import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ALL_MESSAGES as MESSAGES, OPERATIONS, operationPath } from '#contract/operations';
import { OPENAPI_PATH } from '../../codegen/openapi';
import { newOwner, startLocalServer, uniqueEmail } from '../support/local';
import { exchangeRaw, parseAnswers, type RawAnswer } from '../support/raw-http';

let server: Awaited<ReturnType<typeof startLocalServer>>;
let apiKey: string;
beforeAll(async () => {
  server = await startLocalServer();
  ({ apiKey } = await newOwner('protocol'));
});
afterAll(() => server.close());

const parse = (raw: string): RawAnswer => parseAnswers(Buffer.from(raw))[0] ?? { status: 0, headers: {}, body: '' };
const exchangeAll = (bytes: string | Buffer) => exchangeRaw(server.baseUrl, bytes);
const exchange = async (bytes: string | Buffer): Promise<RawAnswer> =>
  (await exchangeAll(bytes))[0] ?? { status: 0, headers: {}, body: '' };

/** A POST of `body` to an operation, as raw bytes, with the test owner's key. */
const post = (operation: string, body: object) => {
  const json = JSON.stringify(body);
  return `POST /v1/${operation} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
};

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

describe('what is not an API request, answered in JSON with the connection closed', () => {
  const answered = async (bytes: string) => {
    const answers = await exchangeAll(bytes);
    return answers.map((answer) => [answer.status, answer.headers['content-type'], JSON.parse(answer.body), answer.headers.connection]);
  };

  it.each([
    ['an HTTP/1.1 request without Host', 'GET /openapi.json HTTP/1.1\r\n\r\n'],
    ['two Host headers', 'GET /openapi.json HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'],
    ['two Host headers, spelt differently', 'POST /v1/createUser HTTP/1.1\r\nHost: a\r\nhOsT: a\r\nContent-Length: 0\r\n\r\n'],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'],
    ['CONNECT naming an operation', 'CONNECT /v1/createUser HTTP/1.1\r\nHost: x\r\n\r\n'],
  ])('%s: 400 {"message":"Bad Request"}', async (_, bytes) => {
    expect(await answered(bytes)).toEqual([[400, 'application/json', { message: MESSAGES.badRequest }, 'close']]);
  });

  it('an HTTP/1.0 request needs no Host: it is routed (404 here)', async () => {
    expect(await answered('GET /nowhere HTTP/1.0\r\n\r\n')).toEqual([[404, 'application/json', { message: MESSAGES.notFound }, 'close']]);
  });

  it('Expect: something-else: 417 {"message":"Expectation Failed"}, before the body is read', async () => {
    const bytes = `POST /v1/createUser HTTP/1.1\r\nHost: x\r\nX-API-Key: ${apiKey}\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\n{}`;
    expect(await answered(bytes)).toEqual([[417, 'application/json', { message: MESSAGES.expectationFailed }, 'close']]);
  });

  it('Expect: 100-continue is still honoured: 100, then the operation answers', async () => {
    const email = uniqueEmail('expect-continue');
    const body = JSON.stringify({ user_email: email, user_password: 'long enough password' });
    const { port } = new URL(server.baseUrl);
    const received = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(
          `POST /v1/createUser HTTP/1.1\r\nHost: x\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
        ),
      );
      let text = '';
      socket.on('data', (chunk) => {
        // The body goes only once the server said 100 Continue.
        if (!text.startsWith('HTTP/1.1 100')) socket.write(body);
        text += chunk;
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    const answer = parse(received.slice('HTTP/1.1 100 Continue\r\n\r\n'.length));
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, { user_email: email, user_password: 'long enough password' }]);
  });

  it('valid requests, then a malformed one on the same connection: each valid one answered first, in order, then 400', async () => {
    const email = uniqueEmail('pipelined');
    const answers = await answered(
      post('createUser', { user_email: email, user_password: 'long enough password' }) +
        post('deleteUser', { user_email: email }) +
        'GARBAGE\r\n\r\n',
    );
    expect(answers).toEqual([
      [200, 'application/json', { user_email: email, user_password: 'long enough password' }, 'keep-alive'],
      [200, 'application/json', { message: MESSAGES.userDeleted }, 'keep-alive'],
      [400, 'application/json', { message: MESSAGES.badRequest }, 'close'],
    ]);
    // The delete happened, and its answer said so.
    const again = await answered(`${post('deleteUser', { user_email: email })}GARBAGE\r\n\r\n`);
    expect(again[0]).toEqual([404, 'application/json', { message: MESSAGES.userNotFound }, 'keep-alive']);
  });

  it('pipelined POSTs are handled one after another (RFC 9112, 9.3.2): create, delete, create, delete of one user all succeed', async () => {
    const email = uniqueEmail('pipelined-order');
    const create = post('createUser', { user_email: email, user_password: 'long enough password' });
    const remove = post('deleteUser', { user_email: email });
    const answers = await answered(`${create}${remove}${create}${remove}GARBAGE\r\n\r\n`);
    expect(answers.map(([status, , body]) => [status, body])).toEqual([
      [200, { user_email: email, user_password: 'long enough password' }],
      [200, { message: MESSAGES.userDeleted }],
      [200, { user_email: email, user_password: 'long enough password' }],
      [200, { message: MESSAGES.userDeleted }],
      [400, { message: MESSAGES.badRequest }],
    ]);
  });

  it('a valid request, then a header section over the limit: the answer, then 431', async () => {
    const email = uniqueEmail('pipelined-431');
    const answers = await answered(
      post('createUser', { user_email: email, user_password: 'long enough password' }) +
        `POST /v1/createUser HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answers.map(([status]) => status)).toEqual([200, 431]);
  });
});

describe('the answers openapi.json declares on every operation', () => {
  const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as {
    paths: Record<
      string,
      { post: { responses: Record<string, { content: { 'application/json': { examples: Record<string, { value: unknown }> } } }> } }
    >;
  };
  const documented = (path: string, status: number, name: string) =>
    document.paths[path]?.post.responses[String(status)]?.content['application/json'].examples[name]?.value;

  it.each(OPERATIONS.map(operationPath))('%s: notHttp (400), expectationFailed (417) and headersTooLarge (431), as sent', async (path) => {
    const head = `POST ${path} HTTP/1.1\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\n`;
    const cases = [
      [400, 'notHttp', `${head}Content-Length: 2\r\n\r\n{}`],
      [417, 'expectationFailed', `${head}Host: x\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\n{}`],
      [431, 'headersTooLarge', `${head}Host: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`],
    ] as const;
    for (const [status, name, bytes] of cases) {
      const answer = await exchange(bytes);
      expect([name, answer.status, JSON.parse(answer.body)]).toEqual([name, status, documented(path, status, name)]);
    }
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
