/**
 * HTTP/2 to a backend that offers it (the real sample-apiserver: Go servers offer h2 in ALPN):
 * 32 concurrent proxied requests and a watch share one TCP connection to the backend (observed
 * from the kernel's socket table, not from the gateway), and the watch still streams its events
 * as they happen. The HTTP/1.1 fallback is covered by traffic-contract.test.ts (a Node https
 * backend without ALPN).
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import https from 'node:https';
import { expect, test } from 'vitest';
import { type AggregatedSetup } from './sample-fixture.ts';
import { withRegisteredSample } from './registered-sample.ts';

let s: AggregatedSetup;

withRegisteredSample((setup) => (s = setup));

/**
 * Established TCP connections this process (the gateway runs in it) holds to 127.0.0.1:`port`:
 * the kernel's socket table, filtered by the socket inodes of our own file descriptors (the
 * sample's loopback client connects to its own port too).
 */
function connectionsTo(port: number): number {
  const ours = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) ours.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[2] === `0100007F:${hexPort}` && f[3] === '01' && ours.has(f[9] ?? '')).length;
}

const flunders = '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders';

test('proxied requests and a watch are multiplexed on one HTTP/2 connection, and the watch streams', async () => {
  const gw = s.gw;
  // A watch through the proxy, read as it arrives.
  const events: string[] = [];
  let watchRes: import('node:http').IncomingMessage | undefined;
  const watchReq = https.request(`${gw.server.url}${flunders}?watch=true`, { ca: gw.server.caCert, cert: gw.server.adminCert, key: gw.server.adminKey, agent: false }, (res) => {
    watchRes = res;
    res.setEncoding('utf8');
    let buf = '';
    res.on('data', (c: string) => {
      buf += c;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        events.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
  });
  watchReq.end();
  const reads = await Promise.all(Array.from({ length: 32 }, () => gw.request('GET', flunders)));
  for (const r of reads) expect(r.status).toBe(200);
  // Answers of declared length are passed on whole (read before they are sent).
  for (const r of reads) expect(JSON.parse(r.text).kind).toBe('FlunderList');
  // HTTP/1.1 would have needed one connection per concurrent request (32 here).
  // (The fixture's readiness probe may still hold one idle keep-alive connection.)
  const conns = connectionsTo(s.samplePort);
  expect(conns).toBeGreaterThanOrEqual(1);
  expect(conns).toBeLessThanOrEqual(2);

  const created = await gw.request('POST', flunders, { body: { apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', metadata: { name: 'h2-watched' }, spec: {} } });
  expect(created.status).toBe(201);
  const deadline = Date.now() + 20_000;
  while (!events.some((e) => e.includes('"ADDED"') && e.includes('h2-watched')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  // The event arrived while the watch is still open: streamed, not buffered until the end.
  expect(events.some((e) => e.includes('"ADDED"') && e.includes('h2-watched'))).toBe(true);
  expect(watchRes?.statusCode).toBe(200);
  expect(watchRes?.complete).toBe(false);
  watchReq.destroy();
  expect((await gw.request('DELETE', `${flunders}/h2-watched`)).status).toBe(200);
}, 60_000);
