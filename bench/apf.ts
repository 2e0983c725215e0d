/**
 * API Priority and Fairness benchmark (issue 18 item 3), each figure on a fresh server in its own
 * process (memory store):
 *
 * 1. creates/s at 32 clients by a token user (classified into global-default, queued like any
 *    tenant) with APF on and off (the plain in-flight limits), alternating over --rounds rounds
 *    (default 3) and reporting medians;
 * 2. a flood: tenant-a keeps 10x the server's concurrency limit of GETs in flight
 *    (--max-requests-inflight=10, --max-mutating-requests-inflight=5: 15 seats), while tenant-b
 *    and an exempt client (system:masters) each send GETs one after another: their p50/p99 and how
 *    many were refused, with APF on and off, beside the same clients without the flood.
 *
 * Prints figures; asserts nothing.
 */
import { forkServer, httpsClient, pct, type Ready } from './lib/driver.ts';

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 3);

async function withServer<T>(env: Record<string, string>, fn: (s: Ready, cpu: () => Promise<number>) => Promise<T>): Promise<T> {
  // BENCH_APF_PROF=DIR: CPU profiles of the servers, into DIR/on and DIR/off.
  const prof = process.env.BENCH_APF_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_APF_PROF}/${env.BENCH_APF}`] : [];
  // The server bundled as it ships (as bench:audit runs it); BENCH_APF_SOURCE=1 runs it from source under tsx.
  const server = await forkServer(new URL('./apf-server-child.ts', import.meta.url), { built: process.env.BENCH_APF_SOURCE === undefined, env, execArgv: prof });
  try {
    return await fn(server.ready, server.cpu);
  } finally {
    await server.stop();
  }
}

function client(s: Ready, token: string | undefined, maxSockets: number) {
  return httpsClient(s, { token, maxSockets });
}

const median = (xs: number[]) => pct(xs, 50);

async function createRate(s: Ready, total: number, clients: number, cpu: () => Promise<number>): Promise<{ rate: number; cpuMicros: number }> {
  const admin = client(s, undefined, 4);
  await admin.request('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
  admin.close();
  const c = client(s, 'token-b', clients);
  // Warm-up: connections, caches, the JIT.
  for (let i = 0; i < 200; i++) await c.request('POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: `warm-${i}` } });
  let next = 0;
  const cpu0 = await cpu();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const r = await c.request('POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: `cm-${i}` }, data: { k: `v-${i}` } });
        if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
      }
    }),
  );
  const rate = total / ((performance.now() - t0) / 1000);
  const cpuMicros = ((await cpu()) - cpu0) / total;
  c.close();
  return { rate, cpuMicros };
}

/** Server CPU per GET of one ConfigMap by a token user (non-exempt), 32 clients. */
async function getCpu(s: Ready, total: number, clients: number, cpu: () => Promise<number>): Promise<number> {
  const c = client(s, 'token-b', clients);
  const path = '/api/v1/namespaces/bench/configmaps/cm-0';
  for (let i = 0; i < 500; i++) await c.request('GET', path);
  let next = 0;
  const cpu0 = await cpu();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next++ < total) {
        const r = await c.request('GET', path);
        if (r.status !== 200) throw new Error(`get: ${r.status} ${r.text}`);
      }
    }),
  );
  const micros = ((await cpu()) - cpu0) / total;
  c.close();
  return micros;
}

/** One client's sequential GETs while `during` runs: latencies (ms) of answered ones and the refused count. */
async function probe(c: ReturnType<typeof client>, n: number): Promise<{ lat: number[]; refused: number }> {
  const lat: number[] = [];
  let refused = 0;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await c.request('GET', '/api/v1/namespaces/default/configmaps');
    if (r.status === 200) lat.push(performance.now() - t);
    else if (r.status === 429) refused++;
    else throw new Error(`probe: ${r.status} ${r.text}`);
  }
  return { lat, refused };
}

async function floodRun(apf: boolean, flood: boolean): Promise<void> {
  await withServer({ BENCH_APF: apf ? 'on' : 'off', BENCH_MAX_INFLIGHT: '10', BENCH_MAX_MUTATING: '5' }, async (s) => {
    const floodClients = 150; // 10x the 15 seats
    const a = client(s, 'token-a', floodClients);
    const b = client(s, 'token-b', 1);
    const x = client(s, undefined, 1);
    let stop = false;
    let floodOk = 0;
    let flood429 = 0;
    const flooders = flood
      ? Array.from({ length: floodClients }, async () => {
          while (!stop) {
            const r = await a.request('GET', '/api/v1/namespaces/default/configmaps');
            if (r.status === 200) floodOk++;
            else flood429++;
          }
        })
      : [];
    // Let the flood build up before measuring.
    if (flood) await new Promise((r) => setTimeout(r, 1000));
    const [pb, px] = await Promise.all([probe(b, 300), probe(x, 300)]);
    stop = true;
    await Promise.all(flooders);
    const line = (who: string, p: { lat: number[]; refused: number }) =>
      `${who} p50 ${pct(p.lat, 50).toFixed(1)} ms p99 ${pct(p.lat, 99).toFixed(1)} ms refused ${p.refused}/300`;
    console.log(
      `apf ${apf ? 'on ' : 'off'} ${flood ? 'flood (150 in flight)' : 'no flood            '}  ${line('tenant-b', pb)}  |  ${line('exempt', px)}${flood ? `  |  flood answered ${floodOk}, 429 ${flood429}` : ''}`,
    );
    a.close();
    b.close();
    x.close();
  });
}

const creates = Number(process.argv.find((a) => a.startsWith('--creates='))?.split('=')[1] ?? 2000);
const gets = Number(process.argv.find((a) => a.startsWith('--gets='))?.split('=')[1] ?? 5000);
const on: number[] = [];
const off: number[] = [];
const onCpu: number[] = [];
const offCpu: number[] = [];
const onGet: number[] = [];
const offGet: number[] = [];
for (let r = 0; r < rounds; r++) {
  for (const apf of r % 2 === 0 ? [true, false] : [false, true]) {
    const { rate, cpuMicros, get } = await withServer({ BENCH_APF: apf ? 'on' : 'off' }, async (s, cpu) => ({ ...(await createRate(s, creates, 32, cpu)), get: await getCpu(s, gets, 32, cpu) }));
    (apf ? on : off).push(rate);
    (apf ? onCpu : offCpu).push(cpuMicros);
    (apf ? onGet : offGet).push(get);
    console.log(`round ${r + 1} APF ${apf ? 'on ' : 'off'}: creates at 32 clients (token user, global-default) ${rate.toFixed(0)}/s, server CPU ${cpuMicros.toFixed(0)} us per create, ${get.toFixed(1)} us per GET`);
  }
}
console.log(`creates/s at 32 clients, median of ${rounds}: APF on ${median(on).toFixed(0)}, off ${median(off).toFixed(0)} (on/off ${(median(on) / median(off)).toFixed(3)}); server CPU per create: on ${median(onCpu).toFixed(0)} us, off ${median(offCpu).toFixed(0)} us (on/off ${(median(onCpu) / median(offCpu)).toFixed(3)}); per GET: on ${median(onGet).toFixed(1)} us, off ${median(offGet).toFixed(1)} us`);
console.log(`load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);
// --no-flood: the per-request costs only.
if (process.argv.includes('--no-flood')) process.exit(0);
for (const flood of [false, true]) for (const apf of [true, false]) await floodRun(apf, flood);
process.exit(0);
