/**
 * Aggregation figures (issue 16): a flunder GET through the gateway's proxy at 32 clients beside
 * the same GET sent to the sample-apiserver directly (with the front-proxy identity the gateway
 * would send), with the gateway's CPU time per proxied request (load-independent); 1,000
 * concurrent watches through the proxy (the gateway's memory per stream); `/apis` aggregated
 * discovery with 50 remote APIServices of which 5 are down (2 refuse connections, 3 accept and
 * never answer). The gateway runs in its own process (bench/aggregator-gateway-child.ts), the
 * sample-apiserver in another, the clients here. Prints figures; asserts nothing.
 * BENCH_AGG_PROF=DIR writes CPU profiles of the gateway process there, one per proxied GET phase
 * (summarise one with /tmp/top.js FILE, or open it in Chrome's DevTools). BENCH_AGG_ONLY=get runs
 * the GET comparison alone (at 32 clients, then 1); BENCH_AGG_H2=1 sends those GETs over HTTP/2
 * (one session, a stream per request, as client-go does) instead of HTTP/1.1 keep-alive.
 */
import { fork } from 'node:child_process';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { SAMPLE_NAMESPACE, SAMPLE_SERVICE } from '../test/aggregator/sample-fixture.ts';
import { get, h2Getter, loadGets, quantile } from './lib/get-load.ts';
import { createCertificateAuthority, issueServingCertificate } from '../src/server/certs.ts';

const CLIENTS = 32;
const PER_CLIENT = Number(process.env.BENCH_AGG_PER_CLIENT ?? 100);
const WATCHES = Number(process.env.BENCH_AGG_WATCHES ?? 1000);
/**
 * Warm-up requests per client before a phase is measured (latencies and the gateway's CPU): the
 * first proxied requests also pay for compiling the proxy path, which is not a per-request cost.
 */
const WARMUP = Number(process.env.BENCH_AGG_WARMUP ?? 20);

/** A phase of CLIENTS (or `clients`) loops of PER_CLIENT GETs after WARMUP each. */
const load = (label: string, fn: () => Promise<number>, clients = CLIENTS, cpu?: () => Promise<number>) => loadGets(label, fn, { clients, perClient: PER_CLIENT, warmup: WARMUP }, cpu);

interface Ready {
  url: string;
  ca: string;
  cert: string;
  key: string;
  samplePort: number;
  sampleCa: string;
  frontProxyCert: string;
  frontProxyKey: string;
}

const child = fork(fileURLToPath(new URL('./aggregator-gateway-child.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ask = <T>(msg: Record<string, unknown>, reply: string): Promise<T> =>
  new Promise((resolve) => {
    const on = (m: { type: string; id?: number }) => {
      if (m.type !== reply || (msg.id !== undefined && m.id !== msg.id)) return;
      child.off('message', on);
      resolve(m as T);
    };
    child.on('message', on);
    child.send(msg);
  });
const gw = await new Promise<Ready>((resolve, reject) => {
  child.once('exit', (code) => reject(new Error(`gateway child exited ${code}`)));
  child.on('message', (m: { type: string }) => {
    if (m.type === 'ready') resolve(m as unknown as Ready);
  });
});
const cpuMicros = async () => (await ask<{ micros: number }>({ type: 'cpu' }, 'cpu')).micros;
const memory = () => ask<{ rss: number; heapUsed: number }>({ type: 'mem' }, 'mem');
const load1 = () => loadavg()[0]!.toFixed(2);
/**
 * The gateway's CPU time (microseconds) at the start and at the end of a measured phase; with
 * BENCH_AGG_PROF, the phase's CPU profile is taken between the two.
 */
function gatewayCpu(label: string): () => Promise<number> {
  const dir = process.env.BENCH_AGG_PROF;
  let started = false;
  return async () => {
    if (!started) {
      started = true;
      if (dir) await ask({ type: 'profile-start' }, 'profile-started');
      return cpuMicros();
    }
    const micros = await cpuMicros();
    if (dir) console.log(`profile: ${(await ask<{ file: string }>({ type: 'profile-stop', dir, label }, 'profile-stopped')).file}`);
    return micros;
  };
}
/** Ends the run early (BENCH_AGG_ONLY). */
class Done extends Error {}

try {
  const path = '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/bench';

  // 1. Proxied vs direct GET, at 32 clients and at 1.
  const gwAgent = new https.Agent({ ca: gw.ca, cert: gw.cert, key: gw.key, keepAlive: true, maxSockets: CLIENTS });
  const directAgent = new https.Agent({ ca: gw.sampleCa, cert: gw.frontProxyCert, key: gw.frontProxyKey, keepAlive: true, maxSockets: CLIENTS });
  const identity = { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' };
  const sampleName = `${SAMPLE_SERVICE}.${SAMPLE_NAMESPACE}.svc`;
  const h2 = process.env.BENCH_AGG_H2 === '1';
  const h2Direct = h2 ? h2Getter(`https://127.0.0.1:${gw.samplePort}`, { ca: gw.sampleCa, cert: gw.frontProxyCert, key: gw.frontProxyKey, servername: sampleName }, identity) : undefined;
  const h2Gateway = h2 ? h2Getter(gw.url, { ca: gw.ca, cert: gw.cert, key: gw.key }) : undefined;
  const viaDirect = () => (h2Direct ? h2Direct.get(path) : get(directAgent, `https://127.0.0.1:${gw.samplePort}${path}`, identity, sampleName));
  const viaGateway = () => (h2Gateway ? h2Gateway.get(path) : get(gwAgent, `${gw.url}${path}`));
  const protocol = h2 ? 'HTTP/2' : 'HTTP/1.1';
  for (const clients of [CLIENTS, 1]) {
    const direct = await load(`direct GET (sample-apiserver, ${protocol})`, viaDirect, clients);
    const proxied = await load(`proxied GET (through the gateway, ${protocol})`, viaGateway, clients, gatewayCpu(`${h2 ? 'h2' : 'h1'}-${clients}`));
    console.log(`added by the gateway at ${clients} client(s): p50 ${(proxied.p50 - direct.p50).toFixed(2)} ms, p99 ${(proxied.p99 - direct.p99).toFixed(2)} ms; gateway CPU per proxied request ${proxied.cpuMsPerRequest!.toFixed(3)} ms (load average ${load1()})`);
  }
  // The gateway's own GET of a stored object, same client: what the front door costs without a backend.
  const localPath = '/api/v1/namespaces/default';
  const viaLocal = () => (h2Gateway ? h2Gateway.get(localPath) : get(gwAgent, `${gw.url}${localPath}`));
  const local = await load(`local GET (the gateway's own namespace, ${protocol})`, viaLocal, CLIENTS, gatewayCpu(`${h2 ? 'h2' : 'h1'}-local`));
  console.log(`gateway CPU per local GET ${local.cpuMsPerRequest!.toFixed(3)} ms (load average ${load1()})`);
  h2Direct?.close();
  h2Gateway?.close();
  if (process.env.BENCH_AGG_ONLY === 'get') throw new Done();

  // 2. Concurrent watches through the proxy: the gateway's memory per stream.
  const before = await memory();
  const watchAgent = new https.Agent({ ca: gw.ca, cert: gw.cert, key: gw.key, keepAlive: false, maxSockets: Infinity });
  const requests: import('node:http').ClientRequest[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from(
      { length: WATCHES },
      () =>
        new Promise<void>((resolve, reject) => {
          const req = https.request(`${gw.url}/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=true&resourceVersion=0`, { agent: watchAgent }, (res) => {
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
  const after = await memory();
  console.log(
    `${WATCHES} watches through the proxy open in ${opened.toFixed(0)} ms; gateway memory per stream: RSS ${((after.rss - before.rss) / WATCHES / 1024).toFixed(1)} KiB, heap ${((after.heapUsed - before.heapUsed) / WATCHES / 1024).toFixed(1)} KiB (load average ${load1()})`,
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
    const spec = { group: `g${i}.bench.example.com`, version: 'v1', groupPriorityMinimum: 500 + i, versionPriority: 10, caBundle: Buffer.from(ca.cert).toString('base64'), service: { namespace: 'bench', name: `svc${i}` } };
    const r = await ask<{ status: number; text: string }>({ type: 'register', id: i, name: `v1.g${i}.bench.example.com`, namespace: 'bench', service: `svc${i}`, port, spec }, 'registered');
    if (r.status !== 201) throw new Error(`APIService: ${r.status} ${r.text}`);
  }
  await new Promise((r) => setTimeout(r, 7000));
  const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
  const listed = await new Promise<string>((resolve, reject) => {
    https.get(`${gw.url}/apis/apiregistration.k8s.io/v1/apiservices`, { agent: gwAgent }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
  const list = (JSON.parse(listed) as { items: { metadata: { name: string }; status: { conditions?: { status: string }[] } }[] }).items;
  const available = list.filter((a) => a.metadata.name.includes('bench') && a.status.conditions?.[0]?.status === 'True').length;
  console.log(`remote APIServices: 50, available: ${available}`);
  const lat: number[] = [];
  const cpu1 = await cpuMicros();
  for (let i = 0; i < 1000; i++) {
    const t = performance.now();
    const code = await get(gwAgent, `${gw.url}/apis`, { accept });
    lat.push(performance.now() - t);
    if (code !== 200) throw new Error(`/apis: ${code}`);
  }
  const discoveryCpu = ((await cpuMicros()) - cpu1) / 1000 / 1000;
  console.log(`/apis aggregated discovery (50 remote APIServices, 5 down), 1 client: p50 ${quantile(lat, 0.5).toFixed(2)} ms, p99 ${quantile(lat, 0.99).toFixed(2)} ms, max ${Math.max(...lat).toFixed(2)} ms; gateway CPU per request ${discoveryCpu.toFixed(3)} ms (load average ${load1()})`);
  gwAgent.destroy();
  directAgent.destroy();
  ext.close();
  hung.close();
} catch (err) {
  if (!(err instanceof Done)) throw err;
} finally {
  const exited = new Promise((r) => child.once('exit', r));
  child.send({ type: 'stop' });
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
process.exit(0);
