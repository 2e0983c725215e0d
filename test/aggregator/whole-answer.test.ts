/**
 * What the backend receives and what the client gets back. The caller's identity as request
 * headers, an extra key escaped into a valid header name. Small proxied answers of declared length are read whole and written in one go on the client's
 * own response (proxied-request.ts), over HTTP/1.1 and over HTTP/2: the backend's status, headers
 * and body reach the client with the gateway's own headers (Audit-Id, the flow-control UIDs), and
 * the response hooks still see the answer (metrics count it); an answer the backend cuts short
 * of its declared length is cut for the client too, never passed as complete.
 */
import http2, { type IncomingHttpHeaders } from 'node:http2';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAggregatedSetup, type AggregatedSetup } from './sample-fixture.ts';
import { answerJson, startH2Backend, type H2Backend } from './h2-backend.ts';

let s: AggregatedSetup;
let b: H2Backend;
let base: string;
/** The headers of the last resource request the backend received. */
let lastHeaders: import('node:http2').IncomingHttpHeaders = {};

beforeAll(async () => {
  s = await startAggregatedSetup({ probeIntervalMs: 1000 });
  b = await startH2Backend(s, 'whole');
  base = `/apis/${b.group}/v1/namespaces/default/things`;
  b.onResource = (stream, headers) => {
    lastHeaders = headers;
    const path = String(headers[':path']);
    if (path.endsWith('/short')) {
      // Declares 100 bytes, sends 10, then resets the stream.
      stream.respond({ ':status': 200, 'content-type': 'application/json', 'content-length': '100' });
      stream.write('{"kind":"T');
      setTimeout(() => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR), 20);
      return;
    }
    if (path.endsWith('/missing')) return answerJson(stream, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }, { 'x-backend': 'yes' });
    answerJson(stream, 200, { kind: 'Thing', apiVersion: `${b.group}/v1`, metadata: { name: 'w' } }, { 'x-backend': 'yes', etag: '"v1"' });
  };
}, 120_000);

afterAll(async () => {
  await b?.close();
  await s?.close();
});

/** One request over HTTP/2 to the gateway, as client-go sends it. */
async function h2Get(path: string): Promise<{ headers: IncomingHttpHeaders; body: string; error?: Error }> {
  const session = http2.connect(s.gw.server.url, { ca: s.gw.server.caCert, cert: s.gw.server.adminCert, key: s.gw.server.adminKey });
  session.on('error', () => undefined);
  try {
    return await new Promise((resolve) => {
      const req = session.request({ ':path': path });
      let headers: IncomingHttpHeaders = {};
      let body = '';
      req.setEncoding('utf8');
      req.on('response', (h) => (headers = h));
      req.on('data', (c: string) => (body += c));
      req.on('end', () => resolve({ headers, body }));
      req.on('error', (error: Error) => resolve({ headers, body, error }));
    });
  } finally {
    session.close();
  }
}

test('over HTTP/1.1: status, the backend headers and body, the gateway headers', async () => {
  const res = await s.gw.request('GET', `${base}/one`);
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ kind: 'Thing', apiVersion: `${b.group}/v1`, metadata: { name: 'w' } });
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
  expect(res.headers['x-backend']).toBe('yes');
  expect(res.headers.etag).toBe('"v1"');
  expect(res.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers['x-kubernetes-pf-prioritylevel-uid']).toBeTruthy();
  const missing = await s.gw.request('GET', `${base}/missing`);
  expect(missing.status).toBe(404);
  expect(missing.json).toMatchObject({ kind: 'Status', reason: 'NotFound' });
});

test('over HTTP/2: status, the backend headers and body, the gateway headers; the metrics count it', async () => {
  const res = await h2Get(`${base}/two`);
  expect(res.error).toBeUndefined();
  expect(res.headers[':status']).toBe(200);
  expect(JSON.parse(res.body)).toEqual({ kind: 'Thing', apiVersion: `${b.group}/v1`, metadata: { name: 'w' } });
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
  expect(res.headers['x-backend']).toBe('yes');
  expect(res.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
  const missing = await h2Get(`${base}/missing`);
  expect(missing.headers[':status']).toBe(404);
  const metrics = await s.gw.request('GET', '/metrics');
  expect(metrics.text).toMatch(new RegExp(`apiserver_request_total\\{[^}]*code="200"[^}]*group="${b.group.replace(/\./g, '\\.')}"[^}]*verb="GET"`));
  expect(metrics.text).toMatch(new RegExp(`aggregator_proxy_requests_total\\{code="404",name="v1\\.${b.group.replace(/\./g, '\\.')}"\\} [1-9]`));
});

test('an answer cut short of its declared length is never passed as complete', async () => {
  // Nothing was written before the whole answer was in: the client's exchange fails without an answer.
  const h1 = await s.gw.request('GET', `${base}/short`).then(
    (r) => r,
    (e: Error) => e,
  );
  expect(h1).toBeInstanceOf(Error);
  const h2 = await h2Get(`${base}/short`);
  expect(h2.headers[':status']).toBeUndefined();
  expect(h2.body).toBe('');
  // The gateway keeps serving.
  expect((await s.gw.request('GET', `${base}/after`)).status).toBe(200);
});

test('an extra key with characters a header name cannot hold is escaped (Go\'s header key escaping); the backend connection stays up', async () => {
  const opened = b.connections.length;
  const res = await s.gw.request('GET', `${base}/as-alice`, { headers: { 'impersonate-user': 'alice', 'impersonate-group': 'system:masters', 'impersonate-extra-scope%28x%29': 'v1' } });
  expect(res.status).toBe(200);
  expect(lastHeaders['x-remote-user']).toBe('alice');
  expect(lastHeaders['x-remote-extra-scope%28x%29']).toBe('v1');
  expect((await s.gw.request('GET', `${base}/after-alice`)).status).toBe(200);
  expect(b.connections.length).toBe(opened);
});
