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
