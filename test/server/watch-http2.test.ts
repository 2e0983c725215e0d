/**
 * Watches over HTTP/2 go on on their raw stream (src/server/handlers/watch-http2.ts): the request's
 * compatibility and Fastify objects are let go once the headers are out, and the end-of-response
 * work (request metrics, audit ResponseComplete, priority-and-fairness and in-flight releases) runs
 * when the watch ends, however it ends. Checked against a real HTTP/2 server and through the API
 * server with a real HTTP/2 client; the objects' release is checked with weak references.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http2 from 'node:http2';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { detachHttp2Watch } from '../../src/server/handlers/watch-http2.ts';
import { onResponseEnd } from '../../src/request/response-end.ts';
import type { TestServer } from './harness.ts';
import { startAuditedServer, type AuditedServer } from '../audit/audited-server.ts';
import { parsePromText, sampleValue } from '../metrics/prom-text.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Collects garbage until `ref` is gone (or gives up). A deref keeps its target alive to the end of
 * the job, so each collection runs in a later job than the last look.
 */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 10));
    gc();
    await new Promise((r) => setTimeout(r, 0));
    if (ref.deref() === undefined) return true;
  }
  return false;
}

describe('detachHttp2Watch on a real HTTP/2 server', () => {
  it('cuts the stream loose from its request and response, keeps their close listeners as end work, and the stream still streams', async () => {
    const refs: { req?: WeakRef<object>; res?: WeakRef<object> } = {};
    let ended = 0;
    let stream: http2.ServerHttp2Stream | undefined;
    // Facts are gathered here and asserted below: nothing in the handler may hold the request.
    const seen = { detached: false, onEnd: -1, compatListeners: [] as string[], compatLinks: -1 };
    const server = http2.createServer((req, res) => {
      onResponseEnd(res, () => ended++);
      res.writeHead(200, { 'content-type': 'text/plain' });
      const detached = detachHttp2Watch(req, res);
      if (detached === undefined) return;
      seen.detached = true;
      stream = detached.stream;
      seen.onEnd = detached.onEnd.length;
      for (const event of stream.eventNames()) for (const l of stream.listeners(event)) if (/^onStream/.test(l.name)) seen.compatListeners.push(l.name);
      seen.compatLinks = Object.getOwnPropertySymbols(stream).filter((sym) => ['request', 'response', 'proxySocket'].includes(sym.description ?? '') && (stream as unknown as Record<symbol, unknown>)[sym] != null).length;
      stream.on('error', () => {});
      stream.write('first\n');
      refs.req = new WeakRef(req);
      refs.res = new WeakRef(res);
      for (const fn of detached.onEnd) stream.once('close', fn);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const client = http2.connect(`http://127.0.0.1:${port}`);
    const req = client.request({ ':path': '/watch' });
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    while (!text.includes('first\n')) await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual({ detached: true, onEnd: 1, compatListeners: [], compatLinks: 0 });
    // The request and response objects are garbage while the stream lives on.
    const reqGone = await collected(refs.req!);
    const resGone = await collected(refs.res!);
    expect({ reqGone, resGone }).toEqual({ reqGone: true, resGone: true });
    stream!.end('last\n');
    await once(req, 'end');
    expect(text).toBe('first\nlast\n');
    while (ended === 0) await new Promise((r) => setTimeout(r, 5));
    expect(ended).toBe(1);
    client.close();
    server.close();
  });

  it('leaves an HTTP/1.1 response alone', async () => {
    const { createServer } = await import('node:http');
    let answer: unknown = 'unset';
    const server = createServer((req, res) => {
      res.writeHead(200);
      answer = detachHttp2Watch(req as never, res as never);
      res.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    expect(body).toBe('ok');
    expect(answer).toBeUndefined();
    server.close();
  });
});

describe('an HTTP/2 watch through the API server', () => {
  let audited: AuditedServer | undefined;
  let t: TestServer;
  let log: string;

  beforeAll(async () => {
    audited = await startAuditedServer('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "", resources: ["configmaps"]}]\n', 'kgw-watch-h2-');
    ({ server: t, log } = audited);
  });

  afterAll(async () => {
    await audited?.close();
  });

  const metrics = async () => parsePromText((await t.request('GET', '/metrics')).text);
  const watchSeries = { verb: 'WATCH', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' };
  const longRunning = { verb: 'WATCH', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' };

  async function openWatch(session: http2.ClientHttp2Session, path: string, auditId: string) {
    const stream = session.request({ ':path': path, 'audit-id': auditId });
    const lines: string[] = [];
    let buf = '';
    let status = 0;
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => {
      buf += c;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
    stream.on('error', () => {});
    while (status === 0) await new Promise((r) => setTimeout(r, 5));
    return { stream, lines, status: () => status };
  }

  async function auditStages(id: string): Promise<string[]> {
    for (let i = 0; i < 100; i++) {
      const text = await readFile(log, 'utf8').catch(() => '');
      const stages = text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l))
        .filter((e) => e.auditID === id)
        .map((e) => e.stage as string);
      if (stages.includes('ResponseComplete')) return stages;
      await new Promise((r) => setTimeout(r, 20));
    }
    return [];
  }

  it('streams events, and a client that cancels ends it with its metrics and audit events', async () => {
    const before = await metrics();
    const doneBefore = sampleValue(before, 'apiserver_request_total', { ...watchSeries, dry_run: '', code: '200' }) ?? 0;
    const session = http2.connect(t.server.url, { ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey });
    const w = await openWatch(session, '/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dh2-watched', 'h2-cancel');
    expect(w.status()).toBe(200);
    expect((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'h2-watched' }, data: { a: '1' } } })).status).toBe(201);
    while (w.lines.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(JSON.parse(w.lines[0]!)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'h2-watched' } } });
    expect(sampleValue(await metrics(), 'apiserver_longrunning_requests', longRunning)).toBe(1);

    w.stream.close(http2.constants.NGHTTP2_CANCEL);
    let after = await metrics();
    for (let i = 0; i < 100 && sampleValue(after, 'apiserver_longrunning_requests', longRunning) !== 0; i++) after = await metrics();
    expect(sampleValue(after, 'apiserver_longrunning_requests', longRunning)).toBe(0);
    expect(sampleValue(after, 'apiserver_request_total', { ...watchSeries, dry_run: '', code: '200' })).toBe(doneBefore + 1);
    expect(await auditStages('h2-cancel')).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    // The connection serves on.
    const version = session.request({ ':path': '/version' });
    const [headers] = (await once(version, 'response')) as [http2.IncomingHttpHeaders];
    expect(headers[':status']).toBe(200);
    version.resume();
    session.close();
  });

  it('a watch whose time is up ends its stream cleanly and runs the same end work', async () => {
    const session = http2.connect(t.server.url, { ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey });
    const w = await openWatch(session, '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dnone', 'h2-timeout');
    expect(w.status()).toBe(200);
    await once(w.stream, 'end');
    expect(w.stream.rstCode ?? 0).toBe(0);
    expect(await auditStages('h2-timeout')).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    let m = await metrics();
    for (let i = 0; i < 100 && sampleValue(m, 'apiserver_longrunning_requests', longRunning) !== 0; i++) m = await metrics();
    expect(sampleValue(m, 'apiserver_longrunning_requests', longRunning)).toBe(0);
    session.close();
  });

  it('a session that goes away ends all its watches', async () => {
    const session = http2.connect(t.server.url, { ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey });
    const ids = ['h2-gone-1', 'h2-gone-2', 'h2-gone-3'];
    for (const id of ids) expect((await openWatch(session, '/api/v1/namespaces/default/configmaps?watch=1', id)).status()).toBe(200);
    expect(sampleValue(await metrics(), 'apiserver_longrunning_requests', longRunning)).toBe(3);
    session.destroy();
    for (const id of ids) expect(await auditStages(id)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    let m = await metrics();
    for (let i = 0; i < 100 && sampleValue(m, 'apiserver_longrunning_requests', longRunning) !== 0; i++) m = await metrics();
    expect(sampleValue(m, 'apiserver_longrunning_requests', longRunning)).toBe(0);
  });
});
