/**
 * Custom-resource figures: time from CRD create to Established and served, and custom resource
 * creates at 32 clients (a schema with CEL rules) beside ConfigMap creates in the same run. The
 * server runs in its own process (bench/api-server-child.ts), so its CPU time per create is
 * measured apart from the load generator: on a shared, loaded machine that is the comparable
 * figure, rates and latencies are printed beside it with the load average. Asserts nothing.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parse } from 'yaml';
import { startTestServer } from '../test/server/harness.ts';
import { startServerProcess } from './server-process.ts';

const crd = parse(readFileSync(new URL('../test/fixtures/crd-databases.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;
const CLIENTS = 32;
const PER_CLIENT = Number(process.env.BENCH_CRD_PER_CLIENT ?? 40);
const load = () => loadavg()[0]!.toFixed(1);

const server = await startServerProcess(process.env.BENCH_CRD_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CRD_PROF}`] : []);
const { request } = server;
const serverCpu = server.cpuMicros;

/** Waits until the server is idle (start-up work done): under 5 ms of CPU in a 200 ms window, at most 10 s. */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const before = await serverCpu();
    await new Promise((r) => setTimeout(r, 200));
    if ((await serverCpu()) - before < 5000) return;
  }
}

try {
  await settle();
  const cpu0 = await serverCpu();
  const start = performance.now();
  const created = await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  if (created.status !== 201) throw new Error(`CRD create: ${created.status} ${created.text}`);
  let polls = 0;
  for (;;) {
    polls++;
    const r = await request('GET', '/apis/ops.example.com/v1/namespaces/default/databases');
    if (r.status === 200) break;
    await new Promise((res) => setTimeout(res, 2));
  }
  const established = performance.now() - start;
  const cpu = ((await serverCpu()) - cpu0) / 1000;
  console.log(`CRD create -> Established and served: ${established.toFixed(1)} ms wall (load ${load()}), server CPU ${cpu.toFixed(1)} ms over ${polls} polls`);

  const run = async (label: string, path: string, body: (i: number) => unknown) => {
    const before = await serverCpu();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; i < PER_CLIENT; i++) {
          const r = await request('POST', path, body(c * PER_CLIENT + i));
          if (r.status !== 201) throw new Error(`${label}: ${r.status} ${r.text}`);
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    const n = CLIENTS * PER_CLIENT;
    const perCreate = ((await serverCpu()) - before) / n;
    console.log(`${label} creates at ${CLIENTS} clients: ${(n / secs).toFixed(0)}/s wall (load ${load()}), server CPU ${perCreate.toFixed(0)} µs per create (${(1e6 / perCreate).toFixed(0)}/s per core)`);
    return perCreate;
  };
  const body = (i: number, prefix: string) => ({
    apiVersion: 'ops.example.com/v1',
    kind: 'Database',
    metadata: { name: `${prefix}-${i}` },
    spec: { engine: 'postgres', version: '16.2', replicas: 2, users: [{ name: 'app', roles: ['rw'] }], backup: { schedule: 'daily', retentionDays: 7 } },
  });
  // A warm-up of each path first (compilation of the CEL rules and the handlers), then the measured runs.
  await run('warm-up ConfigMap', '/api/v1/namespaces/default/configmaps', (i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `warm-${i}` }, data: { a: 'b' } }));
  await run('warm-up Database', '/apis/ops.example.com/v1/namespaces/default/databases', (i) => body(i, 'warm'));
  const cm = await run('ConfigMap', '/api/v1/namespaces/default/configmaps', (i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { a: 'b' } }));
  const cr = await run('Database (CEL rules)', '/apis/ops.example.com/v1/namespaces/default/databases', (i) => body(i, 'db'));
  console.log(`custom resource / ConfigMap create rate, by server CPU per create: ${((cm / cr) * 100).toFixed(0)}%`);
} finally {
  await server.stop();
}

/** With many CRDs installed: memory per CRD, aggregated discovery and OpenAPI v3 latencies. */
async function scale(count: number): Promise<void> {
  const s = await startTestServer();
  try {
    const time = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    const mk = (i: number) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.g${i}.bench.example.com` },
      spec: {
        group: `g${i}.bench.example.com`,
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: crdSchema } }],
      },
    });
    const crdSchema = (crd as { spec: { versions: { schema: { openAPIV3Schema: unknown } }[] } }).spec.versions[0]!.schema.openAPIV3Schema;
    const t0 = performance.now();
    for (let i = 0; i < count; i += 16) {
      await Promise.all(
        Array.from({ length: Math.min(16, count - i) }, async (_, j) => {
          const r = await s.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: mk(i + j) });
          if (r.status !== 201) throw new Error(`CRD ${i + j}: ${r.status} ${r.text}`);
        }),
      );
    }
    // Served once the last one answers.
    for (;;) {
      const r = await s.request('GET', `/apis/g${count - 1}.bench.example.com/v1/namespaces/default/widgets`);
      if (r.status === 200) break;
      await new Promise((res) => setTimeout(res, 10));
    }
    console.log(`${count} CRDs created and served in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    globalThis.gc?.();
    const after = process.memoryUsage().rss;
    console.log(`resident memory per CRD: ${((after - before) / count / 1024).toFixed(0)} KiB`);
    const accept = { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' };
    console.log(`/apis aggregated discovery, first after the last change: ${(await time(() => s.request('GET', '/apis', { headers: accept }))).toFixed(1)} ms`);
    console.log(`/apis aggregated discovery, cached: ${(await time(() => s.request('GET', '/apis', { headers: accept }))).toFixed(1)} ms`);
    const path = `/openapi/v3/apis/g${Math.floor(count / 2)}.bench.example.com/v1`;
    console.log(`${path} first: ${(await time(() => s.request('GET', path))).toFixed(1)} ms`);
    console.log(`${path} cached: ${(await time(() => s.request('GET', path))).toFixed(1)} ms`);
    // One more with the others installed: only its own group's discovery and OpenAPI are built.
    const one = performance.now();
    const r = await s.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: mk(count) });
    if (r.status !== 201) throw new Error(`CRD ${count}: ${r.status} ${r.text}`);
    for (;;) {
      const got = await s.request('GET', `/apis/g${count}.bench.example.com/v1/namespaces/default/widgets`);
      if (got.status === 200) break;
      await new Promise((res) => setTimeout(res, 2));
    }
    console.log(`CRD create -> Established and served with ${count} installed: ${(performance.now() - one).toFixed(1)} ms`);
    let etag = '';
    console.log(
      `/apis aggregated discovery, first after adding one: ${(await time(async () => (etag = String((await s.request('GET', '/apis', { headers: accept })).headers['etag'])))).toFixed(1)} ms`,
    );
    const revalidated = await s.request('GET', '/apis', { headers: { ...accept, 'if-none-match': etag } });
    console.log(`/apis aggregated discovery revalidated (If-None-Match): ${revalidated.status}, ${(await time(() => s.request('GET', '/apis', { headers: { ...accept, 'if-none-match': etag } }))).toFixed(1)} ms`);
  } finally {
    await s.close();
  }
}

const count = Number(process.env.BENCH_CRD_COUNT ?? 1000);
if (count > 0) await scale(count);
