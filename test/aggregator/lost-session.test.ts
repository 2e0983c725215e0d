/**
 * A backend HTTP/2 session that ends while proxied requests wait for their answers (issue 16):
 * a real HTTP/2 TLS extension server started here sends GOAWAY, or cuts its connection, with a
 * request in flight. An idempotent GET is sent once more on a new session and answers with the
 * second attempt's body; a POST answers kube-aggregator's 503 (Go's error text) and is not sent
 * again (the backend counts what reaches it); a watch already streaming just ends; the gateway
 * keeps serving.
 */
import http2, { type ServerHttp2Stream } from 'node:http2';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAggregatedSetup, waitForAvailable, type AggregatedSetup } from './sample-fixture.ts';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certs.ts';

let s: AggregatedSetup;
let backend: http2.Http2SecureServer;
/** TLS connections the backend accepted, in order. */
const connections: Socket[] = [];
/** Resource requests that reached the backend: method and path. */
const seen: string[] = [];
/** What the backend does with the next resource request whose path contains `cut`. */
let onCut: ((stream: ServerHttp2Stream) => void) | undefined;

const group = 'lost.example.com';
const base = `/apis/${group}/v1/namespaces/default/things`;
const resourceList = { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/v1`, resources: [{ name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['get', 'list', 'create', 'watch'] }] };

function answer(stream: ServerHttp2Stream, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  stream.respond({ ':status': status, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  stream.end(text);
}

/** Sends GOAWAY (NO_ERROR) naming the stream before `stream` as the last one processed: `stream` was refused. */
function goawayBefore(stream: ServerHttp2Stream): void {
  stream.session?.goaway(http2.constants.NGHTTP2_NO_ERROR, (stream.id ?? 1) - 2);
}

/** Cuts the TCP connection under `stream` without GOAWAY (a backend that died). */
function cutConnection(stream: ServerHttp2Stream): void {
  // The session's socket may not be touched through HTTP/2; its port finds the raw one.
  const port = stream.session?.socket.remotePort;
  for (const c of connections) if (c.remotePort === port) c.destroy();
}

beforeAll(async () => {
  s = await startAggregatedSetup({ probeIntervalMs: 1000 });
  const ca = await createCertificateAuthority('lost-ca');
  const serving = await issueServingCertificate({ caCert: ca.cert, caKey: ca.key }, { dnsNames: ['lost.default.svc'], ips: [] });
  backend = http2.createSecureServer({ cert: serving.cert, key: serving.key });
  backend.on('secureConnection', (c: Socket) => connections.push(c));
  backend.on('stream', (stream, headers) => {
    // The gateway's streams refused or cut here fail on this side too.
    stream.on('error', () => undefined);
    const path = String(headers[':path'] ?? '');
    const method = String(headers[':method'] ?? '');
    if (path === `/apis/${group}/v1`) return answer(stream, 200, resourceList);
    if (!path.startsWith(`/apis/${group}/v1/namespaces/`)) return answer(stream, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404 });
    seen.push(`${method} ${path}`);
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      if (path.includes('cut') && onCut) {
        const act = onCut;
        onCut = undefined;
        return act(stream);
      }
      if (path.includes('watch=true')) {
        stream.respond({ ':status': 200, 'content-type': 'application/json' });
        stream.write('{"type":"ADDED","object":{"kind":"Thing","apiVersion":"lost.example.com/v1","metadata":{"name":"a"}}}\n');
        return;
      }
      answer(stream, 200, { kind: 'Thing', apiVersion: `${group}/v1`, metadata: { name: 'x' }, attempt: seen.length, received: Buffer.concat(chunks).length });
    });
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
  s.resolver.set('default', 'lost', '127.0.0.1', (backend.address() as AddressInfo).port);
  const res = await s.gw.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    body: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: `v1.${group}` },
      spec: { group, version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, caBundle: Buffer.from(ca.cert).toString('base64'), service: { namespace: 'default', name: 'lost' } },
    },
  });
  expect(res.status).toBe(201);
  await waitForAvailable(s.gw, `v1.${group}`, 'True', 15_000);
}, 120_000);

afterAll(async () => {
  for (const c of connections) c.destroy();
  await new Promise((r) => backend?.close(r));
  await s?.close();
});

/** Resource requests the backend saw for `path` (its own count, not the gateway's). */
const reached = (path: string) => seen.filter((r) => r.endsWith(path)).length;

test('a GET refused by a GOAWAY is sent again on a new connection and answers with the second attempt', async () => {
  const before = connections.length;
  onCut = goawayBefore;
  const res = await s.gw.request('GET', `${base}/cut-get`);
  expect(res.status).toBe(200);
  expect(reached(`${base}/cut-get`)).toBe(2);
  // The body is the second attempt's: the backend numbered it.
  expect(res.json).toMatchObject({ kind: 'Thing', attempt: seen.lastIndexOf(`GET ${base}/cut-get`) + 1 });
  expect(connections.length).toBeGreaterThan(before);
});

test('a GET whose connection is cut before any answer is sent again and answers 200', async () => {
  onCut = cutConnection;
  const res = await s.gw.request('GET', `${base}/cut-get-reset`);
  expect(res.status).toBe(200);
  expect(reached(`${base}/cut-get-reset`)).toBe(2);
});

test('a POST refused by a GOAWAY answers kube-aggregator\'s 503 and is not sent again', async () => {
  onCut = goawayBefore;
  const res = await s.gw.request('POST', `${base}/cut-post`, { body: { kind: 'Thing', apiVersion: `${group}/v1`, metadata: { name: 'p' } } });
  expect(res.status).toBe(503);
  expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(res.text).toBe("http2: Transport: cannot retry err [http2: Transport received Server's graceful shutdown GOAWAY] after Request.Body was written; define Request.GetBody to avoid this error\n");
  // Time for a resent request to arrive, were there one.
  await new Promise((r) => setTimeout(r, 300));
  expect(reached(`${base}/cut-post`)).toBe(1);
  expect((await s.gw.request('GET', `${base}/after-post`)).status).toBe(200);
});

test('a POST whose connection is cut before any answer answers 503 and is not sent again', async () => {
  onCut = cutConnection;
  const res = await s.gw.request('POST', `${base}/cut-post-reset`, { body: { kind: 'Thing' } });
  expect(res.status).toBe(503);
  expect(res.text).toMatch(/^(unexpected EOF|read tcp 127\.0\.0\.1:\d+: read: connection reset by peer)\n$/);
  await new Promise((r) => setTimeout(r, 300));
  expect(reached(`${base}/cut-post-reset`)).toBe(1);
  expect((await s.gw.request('GET', `${base}/after-post-reset`)).status).toBe(200);
});

test('a watch streaming when its backend connection is cut ends; the gateway keeps serving', async () => {
  const got: string[] = [];
  const ended = new Promise<string>((resolve) => {
    const req = https.request(`${s.gw.server.url}${base}?watch=true&cut-watch=1`, { ca: s.gw.server.caCert, cert: s.gw.server.adminCert, key: s.gw.server.adminKey, agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        got.push(c);
        // Once the first event arrived, the backend dies under it.
        if (got.length === 1) for (const c of connections) c.destroy();
      });
      res.on('end', () => resolve('end'));
      res.on('error', () => resolve('error'));
      res.on('close', () => resolve('close'));
    });
    req.on('error', () => resolve('error'));
    req.end();
  });
  expect(['end', 'error', 'close']).toContain(await ended);
  expect(got.join('')).toContain('"ADDED"');
  const after = await s.gw.request('GET', `${base}/after-watch`);
  expect(after.status).toBe(200);
});
