/**
 * Aggregation figures (issue 16): a flunder GET through the gateway's proxy at 32 clients beside
 * the same GET sent to the sample-apiserver directly (with the front-proxy identity the gateway
 * would send); 1,000 concurrent watches through the proxy (memory per stream, gateway and clients
 * share this process); `/apis` aggregated discovery with 50 remote APIServices of which 5 are down
 * (2 refuse connections, 3 accept and never answer). Prints figures; asserts nothing.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { startAggregatedSetup, SAMPLE_NAMESPACE, SAMPLE_SERVICE } from '../test/aggregator/sample-fixture.ts';
import { createCertificateAuthority, issueServingCertificate } from '../src/server/certs.ts';

const CLIENTS = 32;
const PER_CLIENT = Number(process.env.BENCH_AGG_PER_CLIENT ?? 100);
const WATCHES = Number(process.env.BENCH_AGG_WATCHES ?? 1000);

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

function get(agent: https.Agent, url: string, headers: Record<string, string> = {}, servername?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { agent, headers, ...(servername ? { servername } : {}) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function load(label: string, fn: () => Promise<number>): Promise<{ p50: number; p99: number }> {
  // Warm-up: connections and caches.
  await Promise.all(Array.from({ length: CLIENTS }, () => fn()));
  const lat: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = 0; i < PER_CLIENT; i++) {
        const s = performance.now();
        const code = await fn();
        lat.push(performance.now() - s);
        if (code !== 200) throw new Error(`${label}: ${code}`);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  const r = { p50: quantile(lat, 0.5), p99: quantile(lat, 0.99) };
  console.log(`${label}: ${((CLIENTS * PER_CLIENT) / secs).toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`);
  return r;
}

const s = await startAggregatedSetup({ probeIntervalMs: 5000 });
try {
  await s.startSample();
  await s.register();
  const made = await s.gw.kubectl(['create', '-f', '-'], { input: 'apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata: {name: bench, namespace: default}\n' });
  if (made.code !== 0) throw new Error(made.stderr);
  const path = '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/bench';

  // 1. Proxied vs direct GET.
  const gwAgent = new https.Agent({ ca: s.gw.server.caCert, cert: s.gw.server.adminCert, key: s.gw.server.adminKey, keepAlive: true, maxSockets: CLIENTS });
  const directAgent = new https.Agent({ ca: s.sampleCa.cert, cert: s.frontProxyClient.cert, key: s.frontProxyClient.key, keepAlive: true, maxSockets: CLIENTS });
  const identity = { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' };
  const direct = await load('direct GET (sample-apiserver)', () => get(directAgent, `https://127.0.0.1:${s.samplePort}${path}`, identity, `${SAMPLE_SERVICE}.${SAMPLE_NAMESPACE}.svc`));
  const proxied = await load('proxied GET (through the gateway)', () => get(gwAgent, `${s.gw.server.url}${path}`));
  console.log(`added by the gateway: p50 ${(proxied.p50 - direct.p50).toFixed(2)} ms, p99 ${(proxied.p99 - direct.p99).toFixed(2)} ms (load average ${(await import('node:os')).loadavg()[0]!.toFixed(2)})`);

  // 2. Concurrent watches through the proxy.
  global.gc?.();
  const before = process.memoryUsage();
  const watchAgent = new https.Agent({ ca: s.gw.server.caCert, cert: s.gw.server.adminCert, key: s.gw.server.adminKey, keepAlive: false, maxSockets: Infinity });
  const requests: import('node:http').ClientRequest[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from(
      { length: WATCHES },
      () =>
        new Promise<void>((resolve, reject) => {
          const req = https.request(`${s.gw.server.url}/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=true&resourceVersion=0`, { agent: watchAgent }, (res) => {
            res.once('data', () => resolve());
            res.on('error', () => undefined);
          });
          req.on('error', reject);
          req.end();
          requests.push(req);
        }),
    ),
  );
  const opened = performance.now() - t0;
  global.gc?.();
  const after = process.memoryUsage();
  console.log(
    `${WATCHES} watches through the proxy open in ${opened.toFixed(0)} ms; per stream (gateway + client in this process): RSS ${((after.rss - before.rss) / WATCHES / 1024).toFixed(1)} KiB, heap ${((after.heapUsed - before.heapUsed) / WATCHES / 1024).toFixed(1)} KiB`,
  );
  for (const r of requests) r.destroy();
  watchAgent.destroy();
  await new Promise((r) => setTimeout(r, 1000));

  // 3. Discovery with 50 remote APIServices, 5 of them down.
  const ca = await createCertificateAuthority('bench-ca');
  const serving = await issueServingCertificate({ caCert: ca.cert, caKey: ca.key }, { dnsNames: Array.from({ length: 50 }, (_, i) => `svc${i}.bench.svc`), ips: [] });
  const ext = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const m = /^\/apis\/(g\d+\.bench\.example\.com)\/v1$/.exec(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    if (m) return res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${m[1]}/v1`, resources: [{ name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get', 'list', 'watch'] }] }));
    res.end(JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
  });
  await new Promise<void>((r) => ext.listen(0, '127.0.0.1', () => r()));
  // Accepts connections and never answers: a hung backend.
  const hung = createTcpServer(() => undefined);
  await new Promise<void>((r) => hung.listen(0, '127.0.0.1', () => r()));
  const refused = createTcpServer();
  await new Promise<void>((r) => refused.listen(0, '127.0.0.1', () => r()));
  const refusedPort = (refused.address() as AddressInfo).port;
  await new Promise((r) => refused.close(r));
  for (let i = 0; i < 50; i++) {
    const port = i < 2 ? refusedPort : i < 5 ? (hung.address() as AddressInfo).port : (ext.address() as AddressInfo).port;
    s.resolver.set('bench', `svc${i}`, '127.0.0.1', port);
    const r = await s.gw.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      body: {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: `v1.g${i}.bench.example.com` },
        spec: { group: `g${i}.bench.example.com`, version: 'v1', groupPriorityMinimum: 500 + i, versionPriority: 10, caBundle: Buffer.from(ca.cert).toString('base64'), service: { namespace: 'bench', name: `svc${i}` } },
      },
    });
    if (r.status !== 201) throw new Error(`APIService: ${r.status} ${r.text}`);
  }
  await new Promise((r) => setTimeout(r, 7000));
  const list = (await s.gw.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices')).json.items as { metadata: { name: string }; status: { conditions?: { status: string }[] } }[];
  const available = list.filter((a) => a.metadata.name.includes('bench') && a.status.conditions?.[0]?.status === 'True').length;
  console.log(`remote APIServices: 50, available: ${available}`);
  const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
  const lat: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t = performance.now();
    const code = await get(gwAgent, `${s.gw.server.url}/apis`, { accept });
    lat.push(performance.now() - t);
    if (code !== 200) throw new Error(`/apis: ${code}`);
  }
  console.log(`/apis aggregated discovery (50 remote APIServices, 5 down), 1 client: p50 ${quantile(lat, 0.5).toFixed(2)} ms, p99 ${quantile(lat, 0.99).toFixed(2)} ms`);
  gwAgent.destroy();
  directAgent.destroy();
  ext.close();
  hung.close();
} finally {
  await s.close();
}
process.exit(0);
