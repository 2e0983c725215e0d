/**
 * The edges of the HTTP layer, below the request pipeline: requests Node's parser or Fastify's
 * router refuse before any hook runs, `Expect: 100-continue`, and HTTP/2 bodies sent without
 * Content-Length. Left to their defaults these answer in Fastify's own JSON or lose the answer;
 * here they answer as kube-apiserver (Go's net/http in front of it) does.
 */
import type { Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../api/status-errors.ts';

/** Go's http.DefaultMaxHeaderBytes (kube-apiserver keeps it) plus the 4096 bytes of slack Go allows. */
export const GO_MAX_HEADER_BYTES = (1 << 20) + 4096;

/** Go's plain-text answer for a request it cannot read, written straight to the socket. */
function goPlainError(status: string): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`;
}

/**
 * Node's `clientError`: the HTTP/1 parser refused the request (headers too large, malformed
 * request line or headers, bad chunked encoding). Go answers the first two in plain text and
 * closes; a broken chunked body reaches kube's handler as a read error, answered with a Status.
 * (Header size is limited as Go limits it, to 1 MiB; see GO_MAX_HEADER_BYTES.)
 */
export function clientErrorHandler(err: NodeJS.ErrnoException & { reason?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const code = err.code ?? '';
    if (code === 'HPE_HEADER_OVERFLOW') socket.write(goPlainError('431 Request Header Fields Too Large'));
    else if (code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.write(goPlainError('408 Request Timeout'));
    else if (/CHUNK/.test(code)) {
      // kube's handler gets Go's chunked-reader error from reading the body and returns it
      // unwrapped: a 500 Status without a reason, in Go's words.
      const message = code === 'HPE_INVALID_CHUNK_SIZE' ? 'invalid byte in chunk length' : 'malformed chunked encoding';
      const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
      socket.write(
        `HTTP/1.1 500 Internal Server Error\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    } else socket.write(goPlainError('400 Bad Request'));
  }
  socket.destroySoon();
}

/**
 * Fastify's router refused the URL (a bad percent escape in the path). Go cannot parse such a
 * request line either and answers `400 Bad Request` in plain text; over HTTP/2 it resets the
 * stream with PROTOCOL_ERROR.
 */
export function frameworkErrorHandler(err: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply): void {
  const raw = reply.raw as ServerResponse | Http2ServerResponse;
  const stream = (raw as Http2ServerResponse).stream;
  if (stream && typeof stream.close === 'function') {
    // NGHTTP2_PROTOCOL_ERROR
    stream.close(1);
    return;
  }
  const body = '400 Bad Request';
  reply.hijack();
  (raw as ServerResponse).writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', 'content-length': Buffer.byteLength(body) });
  raw.end(body);
  void req;
}

/**
 * `Expect: 100-continue` with a Content-Length over the limit: answer 413 at once, before any
 * 100 Continue, so the client never starts the upload and always reads the Status (a 413 sent
 * while a large body is still arriving can be lost to a connection reset). Everything else
 * continues as usual.
 */
export function continueHandler(limit: number, dispatch: (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void) {
  return (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void => {
    const length = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(length) && length > limit) {
      const body = JSON.stringify(errors.requestEntityTooLarge(limit).toStatus());
      const headers: Record<string, string | number> = { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'content-length': Buffer.byteLength(body) };
      if (req.httpVersionMajor < 2) headers.connection = 'close';
      (res as ServerResponse).writeHead(413, headers);
      res.end(body);
      return;
    }
    (res as ServerResponse).writeContinue();
    dispatch(req, res);
  };
}

/**
 * HTTP/2 has no Transfer-Encoding: a body streamed without Content-Length (as `kubectl create
 * --raw -f FILE` sends it) is known only from the stream staying open after the headers. Fastify
 * reads a body only when one of those headers says there is one, so say it.
 */
export function markStreamedHttp2Body(req: FastifyRequest): void {
  const raw = req.raw as unknown as { stream?: { endAfterHeaders?: boolean }; headers: Record<string, unknown> };
  if (!raw.stream || raw.stream.endAfterHeaders !== false) return;
  if (raw.headers['content-length'] !== undefined || raw.headers['content-type'] !== undefined) return;
  raw.headers['transfer-encoding'] = 'chunked';
}
