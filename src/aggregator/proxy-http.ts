/**
 * HTTP details the proxy's paths share (remote-backend.ts, proxied-request.ts, upgrade.ts): the
 * headers never forwarded, Go's wording of network errors, and kube-aggregator's plain-text
 * error answer.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Hop-by-hop headers (RFC 9110 7.6.1) and those HTTP/2 forbids: never forwarded either way. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'http2-settings', 'proxy-authorization', 'proxy-authenticate']);

/** Go's `dial tcp HOST:PORT: connect: connection refused`-style text for a socket error, as kube's proxy writes it. */
export function dialError(err: NodeJS.ErrnoException, host: string, port: number): string {
  const addr = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
      return `read tcp ${addr}: read: connection reset by peer`;
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: i/o timeout`;
    default:
      return err.message;
  }
}

/** kube-aggregator's error answer (Go's http.Error): plain text, nosniff, the message and a newline. */
export function sendPlain(reply: FastifyReply, code: number, message: string): FastifyReply {
  return reply.code(code).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache, private').send(`${message}\n`);
}

/** Copies a backend's response headers into `out`: not its HTTP/2 pseudo-headers, not hop-by-hop ones. */
export function copyAnswerHeaders(from: IncomingHttpHeaders, out: OutgoingHttpHeaders): OutgoingHttpHeaders {
  for (const k in from) {
    const v = from[k];
    if (v === undefined || k.charCodeAt(0) === 58 /* ':' */ || HOP_BY_HOP.has(k)) continue;
    out[k] = v;
  }
  return out;
}
