/**
 * The backend transport on its own, against real TLS servers on loopback: HTTP/2 when ALPN offers
 * it, HTTP/1.1 when not, and an idempotent request on an HTTP/2 connection that died without
 * GOAWAY (a killed backend) sent again on a new connection, so the caller sees the backend's real
 * state (here: connection refused) rather than a reset stream.
 */
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BackendTransport } from '../../src/aggregator/backend-transport.ts';
import { createCertificateAuthority, issueServingCertificate, type CertKeyPair } from '../../src/server/certs.ts';

let ca: CertKeyPair;
let serving: CertKeyPair;
const transports: BackendTransport[] = [];

beforeAll(async () => {
  ca = await createCertificateAuthority('transport-ca');
  serving = await issueServingCertificate({ caCert: ca.cert, caKey: ca.key }, { dnsNames: ['api.ns.svc'], ips: [] });
});

afterAll(() => {
  for (const t of transports) t.close();
});

function transport(): BackendTransport {
  const t = new BackendTransport({ serverName: 'api.ns.svc', ca: ca.cert, rejectUnauthorized: true });
  transports.push(t);
  return t;
}

async function read(t: BackendTransport, port: number, method = 'GET'): Promise<{ status: number; protocol: string; body: string }> {
  const res = await t.request('127.0.0.1', port, method, '/apis', { host: `api.ns.svc:${port}` }, undefined).response;
  let body = '';
  for await (const c of res.body) body += String(c);
  return { status: res.status, protocol: res.protocol, body };
}

test('HTTP/2 where ALPN offers it (one session for many requests), HTTP/1.1 where it does not', async () => {
  const h2 = http2.createSecureServer({ cert: serving.cert, key: serving.key }, (req, res) => res.end(`h2 ${req.httpVersion}`));
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', () => r()));
  const h1 = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => res.end(`h1 ${req.httpVersion}`));
  await new Promise<void>((r) => h1.listen(0, '127.0.0.1', () => r()));
  try {
    const t = transport();
    const answers = await Promise.all(Array.from({ length: 10 }, () => read(t, (h2.address() as AddressInfo).port)));
    for (const a of answers) expect(a).toEqual({ status: 200, protocol: 'h2', body: 'h2 2.0' });
    expect(t.sessionsOpened).toBe(1);
    const t1 = transport();
    expect(await read(t1, (h1.address() as AddressInfo).port)).toEqual({ status: 200, protocol: 'http/1.1', body: 'h1 1.1' });
    expect(t1.sessionsOpened).toBe(0);
  } finally {
    for (const t of transports.splice(0)) t.close();
    h1.closeAllConnections();
    await new Promise((r) => h1.close(r));
    await new Promise((r) => h2.close(r));
  }
});

test('a GET on an HTTP/2 connection that died is retried on a new connection; the caller sees connection refused', async () => {
  const sockets = new Set<Socket>();
  const h2 = http2.createSecureServer({ cert: serving.cert, key: serving.key }, (_req, res) => res.end('ok'));
  h2.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', () => r()));
  const port = (h2.address() as AddressInfo).port;
  const t = transport();
  expect((await read(t, port)).protocol).toBe('h2');
  // The backend dies at once: listener gone, connections cut without GOAWAY.
  h2.close();
  for (const s of sockets) s.destroy();
  const err = await read(t, port).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e,
  );
  expect(err?.code).toBe('ECONNREFUSED');
});

test('after a GOAWAY the session takes no new stream: the next request opens a new session, the stream in flight still finishes', async () => {
  const conns: Socket[] = [];
  let held: import('node:http2').ServerHttp2Stream | undefined;
  const h2 = http2.createSecureServer({ cert: serving.cert, key: serving.key });
  h2.on('secureConnection', (c: Socket) => conns.push(c));
  h2.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    if (String(headers[':path']).includes('hold')) {
      held = stream;
      // The backend starts to shut down: every stream so far (this one included) will still be answered.
      stream.session?.goaway(http2.constants.NGHTTP2_NO_ERROR, stream.id ?? 0);
      return;
    }
    stream.respond({ ':status': 200 });
    stream.end(`conn ${conns.length}`);
  });
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', () => r()));
  const port = (h2.address() as AddressInfo).port;
  try {
    const t = transport();
    expect((await read(t, port)).body).toBe('conn 1');
    const inFlight = t.request('127.0.0.1', port, 'GET', '/hold', { host: `api.ns.svc:${port}` }, undefined).response;
    for (let i = 0; i < 100 && !held; i++) await new Promise((r) => setTimeout(r, 10));
    expect(held).toBeDefined();
    // Give the GOAWAY time to arrive.
    await new Promise((r) => setTimeout(r, 50));
    const next = await read(t, port);
    expect(next).toEqual({ status: 200, protocol: 'h2', body: 'conn 2' });
    expect(t.sessionsOpened).toBe(2);
    held!.respond({ ':status': 200 });
    held!.end('held answered');
    const res = await inFlight;
    let body = '';
    for await (const c of res.body) body += String(c);
    expect(body).toBe('held answered');
  } finally {
    for (const c of conns) c.destroy();
    await new Promise((r) => h2.close(r));
  }
});

/** An HTTP/2 backend whose handling of each stream the test decides; it counts what it received, per connection. */
async function scriptedBackend(onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, connection: number, seen: number, socket: Socket) => void) {
  const received: string[] = [];
  let connections = 0;
  const sockets: Socket[] = [];
  const server = http2.createSecureServer({ cert: serving.cert, key: serving.key });
  server.on('secureConnection', (socket: Socket) => sockets.push(socket));
  server.on('session', (session) => {
    const connection = ++connections;
    let seen = 0;
    session.on('stream', (stream, headers) => {
      received.push(`${connection} ${headers[':method']} ${headers[':path']}`);
      stream.on('error', () => {});
      // Bodies are read whole before the stream is handled.
      stream.resume();
      stream.on('end', () => onStream(stream, headers, connection, ++seen, sockets[connection - 1]!));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, received, sockets, port: (server.address() as AddressInfo).port };
}

async function send(t: BackendTransport, port: number, method: string, path: string): Promise<string> {
  const body = method === 'POST' ? Buffer.from('{}') : undefined;
  const res = await t.request('127.0.0.1', port, method, path, { host: `api.ns.svc:${port}`, ...(body ? { 'content-length': String(body.length) } : {}) }, body).response;
  let text = '';
  for await (const c of res.body) text += String(c);
  return `${res.status} ${text}`;
}

test('requests a GOAWAY left unprocessed are sent again on a new connection when they have no body; the one it kept is answered on the old', async () => {
  const held: http2.ServerHttp2Stream[] = [];
  const b = await scriptedBackend((stream, headers, connection, seen) => {
    if (connection === 1 && headers[':path'] === '/hold') return void held.push(stream);
    if (connection === 1 && seen === 3) {
      // Shutting down gracefully: it finishes stream 1 and says it did not take the others.
      stream.session!.goaway(http2.constants.NGHTTP2_NO_ERROR, held[0]!.id);
      held[0]!.respond({ ':status': 200 });
      held[0]!.end('held');
      return;
    }
    if (connection === 1) return;
    stream.respond({ ':status': 200 });
    stream.end(`${headers[':method']} ${headers[':path']} on ${connection}`);
  });
  try {
    const t = transport();
    const hold = send(t, b.port, 'GET', '/hold');
    while (b.received.length < 1) await new Promise((r) => setTimeout(r, 5));
    const get = send(t, b.port, 'GET', '/read');
    const post = send(t, b.port, 'POST', '/write').catch((e: Error) => e.message);
    expect(await hold).toBe('200 held');
    expect(await get).toBe('200 GET /read on 2');
    // A request with a body is not sent again (kube-aggregator's Go proxy cannot replay a body: no GetBody); Go's error text.
    expect(await post).toBe("http2: Transport: cannot retry err [http2: Transport received Server's graceful shutdown GOAWAY] after Request.Body was written; define Request.GetBody to avoid this error");
    expect(t.sessionsOpened).toBe(2);
    expect(b.received.filter((r) => r.endsWith('/write'))).toEqual(['1 POST /write']);
    // The next request goes to the new connection, not the one shutting down.
    expect(await send(t, b.port, 'GET', '/after')).toBe('200 GET /after on 2');
  } finally {
    for (const t of transports.splice(0)) t.close();
    for (const socket of b.sockets) socket.destroy();
    await new Promise((r) => b.server.close(r));
  }
});

test('a write whose connection dies after the backend took it is not sent again; a read in the same spot is', async () => {
  const b = await scriptedBackend((stream, headers, connection, _seen, socket) => {
    // The first two connections' backend takes the request, then dies without GOAWAY or an answer.
    if (connection <= 2) return void socket.destroy();
    stream.respond({ ':status': 200 });
    stream.end(`${headers[':method']} ${headers[':path']} on ${connection}`);
  });
  try {
    const t = transport();
    const err = await send(t, b.port, 'POST', '/write').then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(b.received).toEqual(['1 POST /write']);
    // Connection 2 takes the read and dies; the read goes again on connection 3.
    expect(await send(t, b.port, 'GET', '/read')).toBe('200 GET /read on 3');
    expect(b.received).toEqual(['1 POST /write', '2 GET /read', '3 GET /read']);
  } finally {
    for (const t of transports.splice(0)) t.close();
    for (const socket of b.sockets) socket.destroy();
    await new Promise((r) => b.server.close(r));
  }
});
