/**
 * Plain HTTP on the TLS port. Go's net/http (and so kube-apiserver) reads the first 5 bytes of a
 * connection as a TLS record header; when they are not one and look like an HTTP request line
 * ("GET /", "HEAD ", "POST ", "PUT /", "OPTIO"), it writes a fixed HTTP/1.0 400 on the raw
 * connection and closes it. Node's TLS server would just reset the connection, so we peek at the
 * first bytes of every accepted socket before the TLS layer sees them.
 */
import type { Server } from 'node:net';
import type { Socket } from 'node:net';

/** The exact bytes Go's net/http writes (server.go, serve: tls.RecordHeaderError). */
export const PLAIN_HTTP_RESPONSE = 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

const HTTP_PREFIXES = ['GET /', 'HEAD ', 'POST ', 'PUT /', 'OPTIO'];
const TLS_HANDSHAKE = 0x16;
/** A client that sends part of an HTTP-looking prefix and stalls is handed to TLS after this long. */
const PEEK_TIMEOUT_MS = 10_000;

/**
 * Puts the peek in front of the server's own 'connection' listeners (the TLS wrapping, for a TLS
 * or HTTP/2 secure server). Call before listen.
 */
export function answerPlainHttpOnTlsPort(server: Server): void {
  const listeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  const handOver = (socket: Socket) => {
    for (const listener of listeners) listener.call(server, socket);
  };
  server.on('connection', (socket: Socket) => peek(socket, handOver));
}

function peek(socket: Socket, handOver: (socket: Socket) => void): void {
  let head: Buffer = Buffer.alloc(0);
  let done = false;
  const finish = (verdict: 'tls' | 'http' | 'gone') => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('error', onGone);
    socket.off('close', onGone);
    socket.pause();
    if (verdict === 'http') {
      socket.end(PLAIN_HTTP_RESPONSE);
      return;
    }
    if (verdict === 'gone') {
      socket.destroy();
      return;
    }
    // The TLS socket reads what is buffered on the plain one before reading on (initRead).
    if (head.length > 0) socket.unshift(head);
    handOver(socket);
  };
  const onData = (chunk: Buffer) => {
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    if (head[0] === TLS_HANDSHAKE) return finish('tls');
    const start = head.subarray(0, 5).toString('latin1');
    if (head.length >= 5) return finish(HTTP_PREFIXES.includes(start) ? 'http' : 'tls');
    // Still a possible prefix of an HTTP request line: wait for more; otherwise TLS decides.
    if (!HTTP_PREFIXES.some((p) => p.startsWith(start))) finish('tls');
  };
  const onGone = () => finish('gone');
  const timer = setTimeout(() => finish('tls'), PEEK_TIMEOUT_MS);
  timer.unref();
  socket.on('data', onData);
  socket.on('error', onGone);
  socket.on('close', onGone);
}
