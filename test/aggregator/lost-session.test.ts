/**
 * A backend HTTP/2 session that ends while proxied requests wait for their answers (issue 16):
 * a real HTTP/2 TLS extension server started here (h2-backend.ts) sends GOAWAY, or cuts its
 * connection, with a request in flight. An idempotent GET is sent once more on a new session and
 * answers with the second attempt's body; a POST answers kube-aggregator's 503 (Go's error text)
 * and is not sent again (the backend counts what reaches it); a watch already streaming just
 * ends; the gateway keeps serving.
 */
import http2, { type ServerHttp2Stream } from 'node:http2';
import https from 'node:https';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAggregatedSetup, type AggregatedSetup } from './sample-fixture.ts';
import { answerJson, startH2Backend, type H2Backend } from './h2-backend.ts';

let s: AggregatedSetup;
let b: H2Backend;
/** What the backend does with the next resource request whose path contains `cut`. */
let onCut: ((stream: ServerHttp2Stream) => void) | undefined;
let base: string;

/** Sends GOAWAY (NO_ERROR) naming the stream before `stream` as the last one processed: `stream` was refused. */
function goawayBefore(stream: ServerHttp2Stream): void {
  stream.session?.goaway(http2.constants.NGHTTP2_NO_ERROR, (stream.id ?? 1) - 2);
}

beforeAll(async () => {
  s = await startAggregatedSetup({ probeIntervalMs: 1000 });
  b = await startH2Backend(s, 'lost');
  base = `/apis/${b.group}/v1/namespaces/default/things`;
  b.onResource = (stream, headers, body) => {
    const path = String(headers[':path']);
    if (path.includes('cut') && onCut) {
      const act = onCut;
      onCut = undefined;
      return act(stream);
    }
    if (path.includes('watch=true')) {
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.write(`{"type":"ADDED","object":{"kind":"Thing","apiVersion":"${b.group}/v1","metadata":{"name":"a"}}}\n`);
      return;
    }
    answerJson(stream, 200, { kind: 'Thing', apiVersion: `${b.group}/v1`, metadata: { name: 'x' }, attempt: b.seen.length, received: body.length });
  };
}, 120_000);

afterAll(async () => {
  await b?.close();
  await s?.close();
});

/** Resource requests the backend saw for `path` (its own count, not the gateway's). */
const reached = (path: string) => b.seen.filter((r) => r.endsWith(path)).length;

test('a GET refused by a GOAWAY is sent again on a new connection and answers with the second attempt', async () => {
  const before = b.connections.length;
  onCut = goawayBefore;
  const res = await s.gw.request('GET', `${base}/cut-get`);
  expect(res.status).toBe(200);
  expect(reached(`${base}/cut-get`)).toBe(2);
  // The body is the second attempt's: the backend numbered it.
  expect(res.json).toMatchObject({ kind: 'Thing', attempt: b.seen.lastIndexOf(`GET ${base}/cut-get`) + 1 });
  expect(b.connections.length).toBeGreaterThan(before);
});

test('a GET whose connection is cut before any answer is sent again and answers 200', async () => {
  onCut = (stream) => b.cutConnection(stream);
  const res = await s.gw.request('GET', `${base}/cut-get-reset`);
  expect(res.status).toBe(200);
  expect(reached(`${base}/cut-get-reset`)).toBe(2);
});

test("a POST refused by a GOAWAY answers kube-aggregator's 503 and is not sent again", async () => {
  onCut = goawayBefore;
  const res = await s.gw.request('POST', `${base}/cut-post`, { body: { kind: 'Thing', apiVersion: `${b.group}/v1`, metadata: { name: 'p' } } });
  expect(res.status).toBe(503);
  expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(res.text).toBe("http2: Transport: cannot retry err [http2: Transport received Server's graceful shutdown GOAWAY] after Request.Body was written; define Request.GetBody to avoid this error\n");
  // Time for a resent request to arrive, were there one.
  await new Promise((r) => setTimeout(r, 300));
  expect(reached(`${base}/cut-post`)).toBe(1);
  expect((await s.gw.request('GET', `${base}/after-post`)).status).toBe(200);
});

test('a POST whose connection is cut before any answer answers 503 and is not sent again', async () => {
  onCut = (stream) => b.cutConnection(stream);
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
        if (got.length === 1) for (const c of b.connections) c.destroy();
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
