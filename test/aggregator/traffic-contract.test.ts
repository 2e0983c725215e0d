/**
 * The traffic contract per APIService (issue 16 item 7) and the proxy's header rules (item 4),
 * against a small real HTTPS extension server started here, which counts what reaches it and
 * can hold requests open: concurrency over the limit is 429 + Retry-After without touching the
 * backend, bodies over the limit 413, a backend slower than the timeout 504; the backend sees
 * the gateway's client certificate and the caller's identity, never the client's credentials.
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAggregatedSetup, waitForAvailable, type AggregatedSetup } from './sample-fixture.ts';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certs.ts';
import { MAX_BODY_ANNOTATION, MAX_INFLIGHT_ANNOTATION, TIMEOUT_ANNOTATION } from '../../src/aggregator/traffic.ts';

let s: AggregatedSetup;
let backend: https.Server;
const held: ServerResponse[] = [];
const seen: { method: string; url: string; httpVersion: string; headers: IncomingMessage['headers']; peerCn: string }[] = [];

const resourceList = { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'slow.example.com/v1', resources: [{ name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['get', 'list', 'create'] }] };

beforeAll(async () => {
  s = await startAggregatedSetup({ probeIntervalMs: 1000 });
  const ca = await createCertificateAuthority('slow-ca');
  const serving = await issueServingCertificate({ caCert: ca.cert, caKey: ca.key }, { dnsNames: ['slow.default.svc'], ips: [] });
  backend = https.createServer({ cert: serving.cert, key: serving.key, ca: s.frontProxyCa.cert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
    const url = req.url ?? '';
    if (url === '/apis/slow.example.com/v1') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify(resourceList));
    }
    if (url === '/apis') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
    }
    // Only the resource requests the tests send count: the gateway's own background reads (discovery,
    // OpenAPI documents) reach the backend at times the tests do not control.
    if (url.startsWith('/apis/slow.example.com/v1/namespaces/')) {
      seen.push({ method: req.method ?? '', url, httpVersion: req.httpVersion, headers: req.headers, peerCn: String(peer?.subject?.CN ?? '') });
    }
    if (url.includes('odd-status')) {
      // A status Node's HTTP/1.1 parser accepts and the front door cannot answer with.
      res.writeHead(999, { 'content-type': 'application/json' });
      return res.end('{}');
    }
    if (url.includes('hold')) {
      held.push(res);
      return;
    }
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ kind: 'ThingList', apiVersion: 'slow.example.com/v1', metadata: {}, items: [] }));
    });
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
  s.resolver.set('default', 'slow', '127.0.0.1', (backend.address() as AddressInfo).port);
  const res = await s.gw.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    body: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.slow.example.com', annotations: { [MAX_INFLIGHT_ANNOTATION]: '2', [MAX_BODY_ANNOTATION]: '100', [TIMEOUT_ANNOTATION]: '1s' } },
      spec: { group: 'slow.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, caBundle: Buffer.from(ca.cert).toString('base64'), service: { namespace: 'default', name: 'slow' } },
    },
  });
  expect(res.status).toBe(201);
  await waitForAvailable(s.gw, 'v1.slow.example.com', 'True', 15_000);
}, 120_000);

afterAll(async () => {
  for (const r of held) r.destroy();
  backend?.closeAllConnections();
  await new Promise((r) => backend?.close(r));
  await s?.close();
});

const base = '/apis/slow.example.com/v1/namespaces/default/things';

test('the backend sees the gateway\'s client certificate and the caller\'s identity, never the client\'s credentials or identity claims', async () => {
  seen.length = 0;
  // The client certificate authenticates (kube tries it before tokens); the Authorization header must still not travel on.
  const ok = await s.gw.request('GET', base, { headers: { authorization: 'Bearer secret-token-that-must-not-leak', 'x-remote-user': 'mallory', 'x-remote-group': 'system:masters', 'x-remote-extra-scopes': 'forged' } });
  expect(ok.status).toBe(200);
  expect(seen).toHaveLength(1);
  const h = seen[0]!.headers;
  expect(seen[0]!.peerCn).toBe('front-proxy-client');
  // This backend offers no h2 in ALPN: the gateway falls back to HTTP/1.1 (http2.test.ts has the h2 side).
  expect(seen[0]!.httpVersion).toBe('1.1');
  expect(h['x-remote-user']).toBe('admin');
  expect(String(h['x-remote-group']).split(', ').sort()).toEqual(['system:authenticated', 'system:masters']);
  expect(h['x-remote-extra-scopes']).toBeUndefined();
  expect(h.authorization).toBeUndefined();
  expect(h.host).toMatch(/^slow\.default\.svc:\d+$/);
});

test('requests over max-inflight get 429 with Retry-After without reaching the backend', async () => {
  seen.length = 0;
  const hanging = [s.gw.request('GET', `${base}/hold-1`), s.gw.request('GET', `${base}/hold-2`)];
  for (let i = 0; i < 50 && held.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  let refused: Awaited<ReturnType<typeof s.gw.request>> | undefined;
  try {
    expect(held).toHaveLength(2);
    refused = await s.gw.request('GET', base);
  } finally {
    // Released whatever happened, so a failure here cannot hold the limit for the tests after it.
    for (const r of held.splice(0)) r.end('{}');
    await Promise.all(hanging);
  }
  expect(refused?.status).toBe(429);
  expect(refused?.headers['retry-after']).toBe('1');
  expect(refused?.json).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', details: { retryAfterSeconds: 1 } });
  expect(seen.map((r) => r.url).sort()).toEqual([`${base}/hold-1`, `${base}/hold-2`]);
  const after = await s.gw.request('GET', base);
  expect(after.status).toBe(200);
  const metrics = await s.gw.request('GET', '/metrics');
  expect(metrics.text).toMatch(/aggregator_proxy_rejected_requests_total\{name="v1.slow.example.com",reason="concurrency"\} 1/);
  expect(metrics.text).toMatch(/aggregator_proxy_requests_total\{code="200",name="v1.slow.example.com"\} \d+/);
  expect(metrics.text).toMatch(/aggregator_proxy_request_duration_seconds_count\{name="v1.slow.example.com"\} \d+/);
  expect(metrics.text).toMatch(/aggregator_unavailable_apiservice\{name="v1.slow.example.com"\} 0/);
});

test('a body over max-body-bytes is 413 without reaching the backend', async () => {
  seen.length = 0;
  const res = await s.gw.request('POST', base, { body: { kind: 'Thing', apiVersion: 'slow.example.com/v1', metadata: { name: 'x'.repeat(200) } } });
  expect(res.status).toBe(413);
  expect(res.json).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 100' });
  expect(seen.filter((r) => r.method === 'POST')).toHaveLength(0);
  const small = await s.gw.request('POST', base, { body: { kind: 'Thing' } });
  expect(small.status).toBe(200);
  // Only POSTs count: a watch or slow GET of the tests before may still arrive late under load.
  expect(seen.filter((r) => r.method === 'POST')).toHaveLength(1);
});

test('a backend slower than the timeout gives 504; a watch is not timed out', async () => {
  const t0 = Date.now();
  const res = await s.gw.request('GET', `${base}/hold-slow`);
  expect(res.status).toBe(504);
  expect(res.json).toMatchObject({ kind: 'Status', reason: 'Timeout' });
  expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  // A watch held longer than the timeout stays open.
  const watch = s.gw.request('GET', `${base}?watch=true&hold-watch=1`);
  await new Promise((r) => setTimeout(r, 1500));
  const w = held.find((r) => r.req.url?.includes('hold-watch'));
  expect(w).toBeDefined();
  w!.end('{"type":"ADDED","object":{}}\n');
  expect((await watch).status).toBe(200);
  for (const r of held.splice(0)) r.destroy();
});

test('a backend status the front door cannot pass on is the proxy\'s 503 for that request; the gateway keeps serving', async () => {
  const res = await s.gw.request('GET', `${base}/odd-status`);
  expect(res.status).toBe(503);
  expect(res.text).toBe('malformed HTTP status code "999"\n');
  expect((await s.gw.request('GET', base)).status).toBe(200);
});
