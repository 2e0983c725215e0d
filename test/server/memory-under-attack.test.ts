/**
 * The memory test of issue 10: slow watchers that never read and many concurrent large bodies at
 * once. Asserted by counts and bounds: every body is answered, every probe of /readyz and /livez
 * during the attack answers 200, the stuck watchers are closed by the server, and the process's
 * resident memory grows by less than MAX_RSS_GROWTH_MIB over its level before the attack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tls from 'node:tls';
import { startTestServer, type TestServer } from './harness.ts';

/** The stated bound: the attack below moves ~120 MiB of bodies and ~200 MiB of watch events. */
const MAX_RSS_GROWTH_MIB = 400;
const WATCHERS = 12;
const WRITES = 60;
const BODIES = 12;

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(async () => {
  await ts?.close();
});

describe('memory under slow watchers and large bodies', () => {
  it(`keeps serving and stays under +${MAX_RSS_GROWTH_MIB} MiB RSS`, async () => {
    const mib = () => process.memoryUsage().rss / 1024 / 1024;
    const before = mib();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, mib())), 5);

    const sockets: tls.TLSSocket[] = [];
    let closedByServer = 0;
    for (let i = 0; i < WATCHERS; i++) {
      const s = tls.connect({ host: '127.0.0.1', port: ts.server.port, ca: ts.server.caCert, cert: ts.server.adminCert, key: ts.server.adminKey, ALPNProtocols: ['http/1.1'], servername: 'localhost' });
      await new Promise((r) => s.once('secureConnect', r));
      s.write('GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n\r\n');
      s.pause();
      s.on('error', () => {});
      s.on('close', () => closedByServer++);
      sockets.push(s);
    }

    let probes = 0;
    let healthy = 0;
    let attacking = true;
    const probing = (async () => {
      while (attacking) {
        for (const p of ['/readyz', '/livez']) {
          probes++;
          if ((await ts.request('GET', p)).status === 200) healthy++;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    })();

    const payload = 'w'.repeat(300 * 1024);
    const writes = (async () => {
      let ok = 0;
      for (let i = 0; i < WRITES; i++) if ((await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `slow-${i}` }, data: { a: payload } } })).status === 201) ok++;
      return ok;
    })();
    const big = (i: number) => ({ metadata: { name: `large-${i}` }, data: { a: 'y'.repeat(900 * 1024) }, extra: 'z'.repeat(2 * 1024 * 1024) });
    const bodies = Promise.all(Array.from({ length: BODIES }, (_, i) => ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: big(i) })));

    const [written, answered] = await Promise.all([writes, bodies]);
    attacking = false;
    await probing;
    for (const s of sockets) s.resume();
    for (let i = 0; i < 200 && closedByServer < WATCHERS; i++) await new Promise((r) => setTimeout(r, 10));
    clearInterval(sampler);
    for (const s of sockets) s.destroy();

    expect(written).toBe(WRITES);
    expect(answered.map((r) => r.status)).toEqual(Array(BODIES).fill(201));
    expect(probes).toBeGreaterThan(0);
    expect(healthy).toBe(probes);
    // 60 events of 300 KiB (18 MiB) per watcher: each is far past its 4 MiB budget.
    expect(closedByServer).toBe(WATCHERS);
    console.log(`memory test: RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MiB (+${(peak - before).toFixed(0)}), ${probes} health probes all 200`);
    expect(peak - before).toBeLessThan(MAX_RSS_GROWTH_MIB);
  }, 120_000);
});
