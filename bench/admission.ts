/**
 * Admission benchmark (issue 14): creates per second at 32 clients against a server in its own
 * process (memory store, so admission is not hidden behind disk writes) with (a) no admission
 * configuration, (b) 10 ValidatingAdmissionPolicies of 3 expressions each matching the object
 * (when this build serves them), (c) one validating webhook on loopback (keep-alive pool warm);
 * and (d) how long a request takes to fail when a Fail-policy webhook is down and its circuit
 * breaker is open.
 *
 * The webhook's overhead at 32 clients is measured as the server's CPU time per request (process
 * user + system time over the run, divided by the requests), with and without the webhook: on a
 * shared 2-core machine latency differences at 32 clients are mostly queueing, CPU per request is
 * what the webhook call costs the gateway. The webhook's own CPU (its process) is reported apart.
 */
import type { ChildProcess } from 'node:child_process';
import { cpuOf, forkServer, httpsClient, pct } from './lib/driver.ts';

const server = await forkServer(new URL('./api-server-child.ts', import.meta.url), { env: { BENCH_BACKEND: 'memory' } });
const child = server.child;
const { request, close } = httpsClient(server.ready);

let runs = 0;

/** createLoad, with the server's (and the webhook's) CPU per request in µs. */
async function measured(label: string, total: number, clients: number, webhook?: ChildProcess) {
  const s0 = await cpuOf(child);
  const w0 = webhook ? await cpuOf(webhook) : 0;
  const out = await createLoad(label, total, clients);
  const serverCpu = ((await cpuOf(child)) - s0) / total;
  const webhookCpu = webhook ? ((await cpuOf(webhook)) - w0) / total : 0;
  console.log(`admission ${label.padEnd(26)} server CPU ${serverCpu.toFixed(0)} µs/request${webhook ? `, webhook process ${webhookCpu.toFixed(0)} µs/request` : ''}`);
  return { ...out, serverCpu };
}

/** `total` creates from `clients` concurrent clients; returns creates/s and latency percentiles. */
async function createLoad(label: string, total: number, clients: number, expect = 201): Promise<{ rate: number; p50: number; p99: number }> {
  const lat: number[] = [];
  const prefix = `run${++runs}`;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const s = performance.now();
        const r = await request('POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: `${prefix}-${i}`, labels: { bench: 'yes' } }, data: { key: `value-${i}` } });
        if (r.status !== expect) throw new Error(`${label}: expected ${expect}, got ${r.status} ${r.text}`);
        lat.push(performance.now() - s);
      }
    }),
  );
  const rate = total / ((performance.now() - t0) / 1000);
  const out = { rate, p50: pct(lat, 50), p99: pct(lat, 99) };
  console.log(`admission ${label.padEnd(26)} clients=${clients}  ${rate.toFixed(0).padStart(6)}/s  p50 ${out.p50.toFixed(2)} ms  p99 ${out.p99.toFixed(2)} ms`);
  return out;
}

/** The webhook runs in a third process (see admission-webhook-child.ts). */
async function webhookServer(): Promise<{ port: number; caBundle: string; proc: ChildProcess; close(): void }> {
  const wh = await forkServer<{ port: number; caBundle: string }>(new URL('./admission-webhook-child.ts', import.meta.url));
  return { port: wh.ready.port, caBundle: wh.ready.caBundle, proc: wh.child, close: () => void wh.stop() };
}

const webhookConfig = (name: string, url: string, caBundle: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name },
  webhooks: [
    {
      name: `${name}.bench.example.com`,
      clientConfig: { url, caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      ...extra,
    },
  ],
});

const TOTAL = Number(process.env.BENCH_ADMISSION_CREATES ?? 4000);
await request('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
await createLoad('warm-up', 500, 32);
const a = await measured('(a) no admission', TOTAL, 32);

// (b) ValidatingAdmissionPolicies, when served.
const vapServed = (await request('GET', '/apis/admissionregistration.k8s.io/v1')).text.includes('"validatingadmissionpolicies"');
if (vapServed) {
  for (let i = 0; i < 10; i++) {
    await request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      metadata: { name: `bench-${i}` },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
        validations: [
          { expression: "object.metadata.name.startsWith('(')  || object.metadata.name.size() > 0" },
          { expression: "has(object.data) && 'key' in object.data" },
          { expression: "object.metadata.labels['bench'] == 'yes'" },
        ],
      },
    });
    await request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      metadata: { name: `bench-${i}` },
      spec: { policyName: `bench-${i}`, validationActions: ['Deny'] },
    });
  }
  await new Promise((r) => setTimeout(r, 1000));
  await createLoad('(b) warm-up', 500, 32);
  const b = await createLoad('(b) 10 policies x 3 expr', TOTAL, 32);
  console.log(`admission (b)/(a) = ${((b.rate / a.rate) * 100).toFixed(0)}% (target >= 80%)`);
  for (let i = 0; i < 10; i++) {
    await request('DELETE', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/bench-${i}`);
    await request('DELETE', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/bench-${i}`);
  }
} else {
  console.log('admission (b) skipped: ValidatingAdmissionPolicy is not served by this build');
}

// (c) one validating webhook on loopback.
const wh = await webhookServer();
await request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', webhookConfig('allow', `https://127.0.0.1:${wh.port}/allow`, wh.caBundle));
await new Promise((r) => setTimeout(r, 500));
await createLoad('(c) warm-up', 500, 32);
const c = await measured('(c) one webhook', TOTAL, 32, wh.proc);
// CPU per request on a shared machine drifts (JIT, other tenants): alternate runs without and with
// the webhook and take the median of the paired differences.
const ROUNDS = Number(process.env.BENCH_ADMISSION_ROUNDS ?? 3);
const diffs: number[] = [c.serverCpu - a.serverCpu];
for (let r = 1; r < ROUNDS; r++) {
  await request('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/allow');
  await new Promise((ok) => setTimeout(ok, 500));
  const off = await measured(`(a) round ${r + 1}`, TOTAL, 32);
  await request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', webhookConfig('allow', `https://127.0.0.1:${wh.port}/allow`, wh.caBundle));
  await new Promise((ok) => setTimeout(ok, 500));
  const on = await measured(`(c) round ${r + 1}`, TOTAL, 32, wh.proc);
  diffs.push(on.serverCpu - off.serverCpu);
}
const overhead = pct(diffs, 50);
console.log(
  `admission (c) webhook overhead at 32 clients: ${(overhead / 1000).toFixed(3)} ms server CPU per request, median of ${diffs.length} paired runs [${diffs.map((d) => (d / 1000).toFixed(3)).join(', ')}] (target < 1 ms with the pool warm); p50 latency ${c.p50.toFixed(2)} vs ${a.p50.toFixed(2)} ms (includes queueing on this machine)`,
);
const c1 = await createLoad('(c) one webhook, 1 client', 1000, 1);
await request('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/allow');
await new Promise((r) => setTimeout(r, 500));
const a1 = await createLoad('(a) no admission, 1 client', 1000, 1);
console.log(`admission (c) webhook overhead p50 ${(c1.p50 - a1.p50).toFixed(2)} ms per request at 1 client`);
wh.close();

// (d) a Fail-policy webhook that is down: after the breaker opens, requests fail without a call.
await request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', webhookConfig('down', 'https://127.0.0.1:1/down', wh.caBundle));
await new Promise((r) => setTimeout(r, 500));
for (let i = 0; i < 10; i++) await request('POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: `trip-${i}` } });
const d = await createLoad('(d) breaker open, 1 client', 1000, 1, 500);
console.log(`admission (d) failing request p50 ${d.p50.toFixed(2)} ms end to end vs ${a1.p50.toFixed(2)} ms for a successful create: the breaker fails it without waiting`);

await server.stop();
close();
