/**
 * The local server's answers to what is not an API request at all, in the contract's
 * `{"message": ...}` JSON like every other answer, each closing the connection:
 *
 * - what Node's HTTP parser refuses (a malformed request line or header, `Content-Length`
 *   beside `Transfer-Encoding`): `400 Bad Request`; a header section over Node's limit: `431`;
 * - an HTTP/1.1 request without a `Host` header, or with more than one (RFC 9112, 3.2: "A server
 *   MUST respond with a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks
 *   a Host header field and to any request message that contains more than one Host header field
 *   line"): `400 Bad Request`;
 * - `CONNECT` (a request for a tunnel, whose target names no resource of this server): `400 Bad Request`;
 * - an `Expect` other than `100-continue`: `417 Expectation Failed`.
 *
 * Pipelined requests (several sent on one connection before any answer) are handled one after
 * another, each once the answer before it was sent: RFC 9112, 9.3.2, "A server MAY process a
 * sequence of pipelined requests in parallel if they all have safe methods [...], but it MUST send
 * the corresponding responses in the same order that the requests were received", and these are
 * POSTs (a delete pipelined after a create finds the user). A request that was valid keeps its
 * answer: when a malformed one follows it, the error's answer waits until every response in flight
 * on the connection was sent.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { MESSAGES } from '#contract/messages';

type Answer = readonly [status: number, reason: string, message: string];

const BAD_REQUEST: Answer = [400, 'Bad Request', MESSAGES.badRequest];
const HEADERS_TOO_LARGE: Answer = [431, 'Request Header Fields Too Large', MESSAGES.headersTooLarge];
const EXPECTATION_FAILED: Answer = [417, 'Expectation Failed', MESSAGES.expectationFailed];

/** Per connection: the responses handed out and not yet finished. */
const inFlight = new WeakMap<Duplex, Set<ServerResponse>>();
/** Per connection: the protocol answer waiting for them, once one is due. */
const pending = new WeakMap<Duplex, Answer>();
/** Per connection: settles once the last request handed out there has been answered. */
const turns = new WeakMap<Duplex, Promise<void>>();

/**
 * Creates the server with the protocol answers wired in. `handler` sees only requests that passed
 * them; each of its responses is tracked, so that a protocol error after it waits for it.
 */
export function createProtocolServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Server {
  // Node's own answer to a missing Host is a 400 with an empty body: the check is done here instead.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    track(res);
    if (hostProblem(req)) return refuse(res, BAD_REQUEST);
    inTurn(res, () => handler(req, res));
  });
  // Node would answer 417 with an empty body; the body may follow, so the connection closes.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    track(res);
    refuse(res, EXPECTATION_FAILED);
  });
  // Node would close the connection unanswered.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => answerOnSocket(socket, BAD_REQUEST));
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    answerOnSocket(socket, error.code === 'HPE_HEADER_OVERFLOW' ? HEADERS_TOO_LARGE : BAD_REQUEST);
  });
  return server;
}

/** An HTTP/1.1 request with no Host header, or with two (HTTP/1.0 needs none). */
function hostProblem(req: IncomingMessage): boolean {
  const hosts = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === 'host').length;
  return hosts > 1 || (hosts === 0 && req.httpVersion === '1.1');
}

function track(res: ServerResponse): void {
  // The request's connection: a pipelined response gets it only once the ones before it are sent.
  const socket = res.req.socket;
  const responses = inFlight.get(socket) ?? new Set<ServerResponse>();
  inFlight.set(socket, responses.add(res));
  // After Node's own 'finish' listener, which hands the connection to the next response or ends it.
  res.once('finish', () => settled(socket, res));
  res.once('close', () => settled(socket, res));
}

/** Runs `handle` once every earlier request on the connection has been answered (at once when none is pending). */
function inTurn(res: ServerResponse, handle: () => void): void {
  const socket = res.req.socket;
  const before = turns.get(socket);
  const answered = new Promise<void>((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
  turns.set(
    socket,
    (before ?? Promise.resolve()).then(() => answered),
  );
  if (before) void before.then(handle);
  else handle();
}

function settled(socket: Duplex, res: ServerResponse): void {
  const responses = inFlight.get(socket);
  if (!responses?.delete(res) || responses.size > 0) return;
  const answer = pending.get(socket);
  if (answer) writeAnswer(socket, answer);
}

/** Answers on a response of its own, closing the connection: nothing more is read from it. */
function refuse(res: ServerResponse, [status, , message]: Answer): void {
  const body = JSON.stringify({ message });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

/** Answers on the raw connection, once the responses in flight on it are sent; the first answer due wins. */
function answerOnSocket(socket: Duplex, answer: Answer): void {
  if (pending.has(socket)) return;
  pending.set(socket, answer);
  if ((inFlight.get(socket)?.size ?? 0) === 0) writeAnswer(socket, answer);
}

function writeAnswer(socket: Duplex, [status, reason, message]: Answer): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
