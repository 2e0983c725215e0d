/**
 * The gateway side of bench/aggregator.ts, in its own process so the bench clients do not share
 * its event loop or heap: the gateway with the real sample-apiserver registered behind it (the
 * sample runs as its own process too), answering over IPC: its CPU time and memory, and the
 * registration of the discovery bench's APIServices (the static resolver lives here).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { startAggregatedSetup } from '../test/aggregator/sample-fixture.ts';

type Msg = { type: 'cpu' } | { type: 'mem' } | { type: 'stop' } | { type: 'profile-start' } | { type: 'profile-stop'; dir: string; label: string } | { type: 'register'; id: number; name: string; namespace: string; service: string; port: number; spec: Record<string, unknown> };

const s = await startAggregatedSetup({ probeIntervalMs: 5000 });
await s.startSample();
await s.register();
const made = await s.gw.kubectl(['create', '-f', '-'], { input: 'apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata: {name: bench, namespace: default}\n' });
if (made.code !== 0) throw new Error(made.stderr);
process.send?.({
  type: 'ready',
  url: s.gw.server.url,
  ca: s.gw.server.caCert,
  cert: s.gw.server.adminCert,
  key: s.gw.server.adminKey,
  samplePort: s.samplePort,
  sampleCa: s.sampleCa.cert,
  frontProxyCert: s.frontProxyClient.cert,
  frontProxyKey: s.frontProxyClient.key,
});
/** The CPU profile of one phase of the bench (BENCH_AGG_PROF): started and stopped on request, so startup is not in it. */
let profiler: Session | undefined;

process.on('message', (msg: Msg) => {
  if (msg.type === 'profile-start') {
    profiler = new Session();
    profiler.connect();
    void profiler
      .post('Profiler.enable')
      .then(() => profiler!.post('Profiler.start'))
      .then(() => process.send?.({ type: 'profile-started' }));
  } else if (msg.type === 'profile-stop') {
    void profiler!.post('Profiler.stop').then(({ profile }) => {
      const file = join(msg.dir, `gateway-${msg.label}-${process.pid}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      profiler!.disconnect();
      process.send?.({ type: 'profile-stopped', file });
    });
  } else if (msg.type === 'cpu') {
    const u = process.cpuUsage();
    process.send?.({ type: 'cpu', micros: u.user + u.system });
  } else if (msg.type === 'mem') {
    for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    process.send?.({ type: 'mem', rss: m.rss, heapUsed: m.heapUsed });
  } else if (msg.type === 'register') {
    s.resolver.set(msg.namespace, msg.service, '127.0.0.1', msg.port);
    void s.gw
      .request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', { body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: msg.name }, spec: msg.spec } })
      .then((r) => process.send?.({ type: 'registered', id: msg.id, status: r.status, text: r.status === 201 ? '' : r.text }));
  } else if (msg.type === 'stop') {
    void s.close().then(() => process.exit(0));
  }
});
