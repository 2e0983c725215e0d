/**
 * kube's in-flight limits (429 with Retry-After, exemptions), the large-body budget, and the
 * watch buffer budgets: each checked by counts, never by timings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tls from 'node:tls';
import https from 'node:https';
import http2 from 'node:http2';
import { startTestServer, type TestServer } from './harness.ts';
import { LoadLimits, WeightedSemaphore } from '../../src/server/load-limits.ts';
import { WatchBufferBudget } from '../../src/server/handlers/watch.ts';

describe('WeightedSemaphore', () => {
  it('admits by weight in arrival order and refuses past the waiting limit', async () => {
    const s = new WeightedSemaphore(10, 1);
    const a = await s.acquire(6);
    expect(s.inUse).toBe(6);
    let bGranted = false;
    const b = s.acquire(6).then((r) => ((bGranted = true), r));
    expect(await s.acquire(1)).toBeUndefined(); // one already waits
    expect(bGranted).toBe(false);
    a!();
    const rb = await b;
    expect(bGranted).toBe(true);
    expect(s.inUse).toBe(6);
    rb!();
    rb!(); // releasing twice is harmless
    expect(s.inUse).toBe(0);
  });
});

describe('WatchBufferBudget', () => {
  it('closes the most backed-up watchers until the total fits', () => {
    const b = new WatchBufferBudget(100);
    const closed: string[] = [];
    const w = (name: string) => ({ buffered: 0, close: () => closed.push(name) });
    const [x, y, z] = [w('x'), w('y'), w('z')];
    for (const v of [x, y, z]) b.add(v);
    b.account(x, 40);
    b.account(y, 50);
    expect(closed).toEqual([]);
    b.account(z, 30);
    expect(closed).toEqual(['y']);
    expect(b.bufferedBytes).toBe(70);
    b.account(x, 0);
    expect(b.bufferedBytes).toBe(30);
  });
});

/** An anonymous (not system:masters) HTTPS request with a body that is sent only when `release` is called. */
function heldPost(ts: TestServer, path: string, body: string): { release: () => Promise<number> } {
  const agent = new https.Agent({ ca: ts.server.caCert });
  const req = https.request(`${ts.server.url}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
  const status = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, 5));
  return {
    release: async () => {
      req.end(body.slice(5));
      const s = await status;
      agent.destroy();
      return s;
    },
  };
}

describe('in-flight limits', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ config: { maxMutatingRequestsInflight: 1, maxRequestsInflight: 1, authorizationModes: ['AlwaysAllow'], enablePriorityAndFairness: false } }); // anonymous writes: limits, not RBAC, are under test
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('a mutating request over the limit is 429 with kube Status and Retry-After; others are not held up', async () => {
    const held = heldPost(ts, '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'held' } }));
    // Wait (by polling counts) until the held request occupies the mutating slot.
    for (let i = 0; i < 200 && ts.server.app.loadLimits.inflight.mutating < 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(ts.server.app.loadLimits.inflight.mutating).toBe(1);

    const over = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'over' } }, anonymous: true });
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('1');
    expect(over.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', message: 'Too many requests, please try again later.', details: { retryAfterSeconds: 1 }, code: 429 });

    // Read-only requests have their own limit; health checks and system:masters are exempt.
    expect((await ts.request('GET', '/api/v1/namespaces/default/configmaps', { anonymous: true })).status).toBe(200);
    expect((await ts.request('GET', '/readyz', { anonymous: true })).status).toBe(200);
    expect((await ts.request('GET', '/livez', { anonymous: true })).status).toBe(200);
    expect((await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'admin' } } })).status).toBe(201);

    expect(await held.release()).toBe(201);
    expect(ts.server.app.loadLimits.inflight.mutating).toBe(0);
    expect((await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'after' } }, anonymous: true })).status).toBe(201);
  });

  it('kube defaults: 400 read-only and 200 mutating', () => {
    const l = new LoadLimits({ maxBodyBytes: 3 * 1024 * 1024 });
    expect([l.maxReadOnly, l.maxMutating]).toEqual([400, 200]);
  });
});

/** Waits (a bounded while) for every body share to be given back. */
async function released(limits: { bodies: { inUse: number } }): Promise<void> {
  for (let i = 0; i < 200 && limits.bodies.inUse !== 0; i++) await new Promise((r) => setTimeout(r, 10));
}

describe('large-body budget and slow watchers', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer();
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('concurrent large bodies are admitted a budget at a time and all answered', async () => {
    const limits = ts.server.app.loadLimits;
    let maxInUse = 0;
    const sampler = setInterval(() => (maxInUse = Math.max(maxInUse, limits.bodies.inUse)), 1);
    const big = (i: number) => ({ metadata: { name: `big-${i}` }, data: { a: 'y'.repeat(900 * 1024) }, extra: 'z'.repeat(1024 * 1024) });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: big(i) })));
    clearInterval(sampler);
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(maxInUse).toBeGreaterThan(0);
    expect(maxInUse).toBeLessThanOrEqual(limits.bodies.capacity);
    // Shares are given back when each response finishes on the server, which may come just after
    // the client has read it.
    await released(limits);
    expect(limits.bodies.inUse).toBe(0);
  });

  it('bodies of unknown length (HTTP/2 without Content-Length) are not held up by each other; a large one takes the budget', async () => {
    const limits = ts.server.app.loadLimits;
    const session = http2.connect(ts.server.url, { ca: ts.server.caCert, cert: ts.server.adminCert, key: ts.server.adminKey });
    try {
      const post = (name: string) => session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', 'content-type': 'application/json' });
      const status = (stream: http2.ClientHttp2Stream) =>
        new Promise<number>((resolve, reject) => {
          let code = 0;
          stream.on('response', (h) => (code = Number(h[':status'])));
          stream.on('error', reject);
          stream.resume();
          stream.on('end', () => resolve(code));
        });
      // A body still streaming, already past the large-body threshold: it holds the largest share of the budget.
      const open = post('open');
      const openStatus = status(open);
      const head = `{"metadata":{"name":"streamed-open"},"data":{"a":"`;
      open.write(head + 'x'.repeat(300 * 1024));
      while (limits.bodies.inUse === 0) await new Promise((r) => setTimeout(r, 5));
      expect(limits.bodies.inUse).toBe(3 * 1024 * 1024);
      // Small bodies of unknown length still go through meanwhile (they used to wait for that share each).
      const smalls = Array.from({ length: 8 }, (_, i) => {
        const s = post(`small-${i}`);
        const st = status(s);
        s.end(JSON.stringify({ metadata: { name: `streamed-small-${i}` }, data: { a: 'b' } }));
        return st;
      });
      expect(await Promise.all(smalls)).toEqual(Array(8).fill(201));
      open.end('"}}');
      expect(await openStatus).toBe(201);
      await released(limits);
      expect(limits.bodies.inUse).toBe(0);
    } finally {
      session.close();
    }
  });

  it('a watcher that never reads is closed once its buffer is over budget; /readyz keeps answering', async () => {
    const sock = tls.connect({ host: '127.0.0.1', port: ts.server.port, ca: ts.server.caCert, cert: ts.server.adminCert, key: ts.server.adminKey, ALPNProtocols: ['http/1.1'], servername: 'localhost' });
    await new Promise((r) => sock.once('secureConnect', r));
    sock.write('GET /api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0 HTTP/1.1\r\nHost: x\r\n\r\n');
    sock.pause();
    sock.on('error', () => {});
    let closed = false;
    sock.on('close', () => (closed = true));
    const payload = 'p'.repeat(200 * 1024);
    let writes = 0;
    let ready = 0;
    // 100 writes of 200 KiB is 20 MiB: far over the 4 MiB a watcher may hold plus what sockets absorb.
    for (; writes < 100; writes++) {
      await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `w-${writes}` }, data: { a: payload } } });
      if ((await ts.request('GET', '/readyz')).status === 200) ready++;
    }
    sock.resume();
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closed).toBe(true);
    expect(ready).toBe(writes);
    sock.destroy();
  });
});
