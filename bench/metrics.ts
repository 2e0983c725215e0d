/**
 * Cost of the request metrics (issue 18): ConfigMap creates per second at 32 clients over HTTPS
 * against two servers in their own processes (embedded SQLite store), one recording kube's
 * per-request metrics (request totals, durations, sizes, storage latency, authentication and
 * authorization) and one recording none. Rounds alternate between them so a drift of the shared
 * machine hits both; prints each figure, the ratio of the medians (target: within 5%), and the
 * server CPU time per create, which a loaded machine does not skew.
 */
import { forkServer, httpsClient, median, type ChildServer, type Response } from './lib/driver.ts';

type Server = ChildServer & { client: ReturnType<typeof httpsClient> };

async function startServer(metrics: boolean): Promise<Server> {
  // The server bundled as it ships (as bench:audit runs it); BENCH_METRICS_SOURCE=1 runs it from source under tsx.
  const server = await forkServer(new URL('./api-server-child.ts', import.meta.url), {
    built: process.env.BENCH_METRICS_SOURCE === undefined,
    env: { BENCH_METRICS: metrics ? '1' : '0' },
    // BENCH_METRICS_PROF=DIR: CPU profiles of both servers, into DIR/on and DIR/off.
    execArgv: process.env.BENCH_METRICS_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_METRICS_PROF}/${metrics ? 'on' : 'off'}`] : [],
  });
  return { ...server, client: httpsClient(server.ready) };
}

function request(s: Server, method: string, path: string, body?: unknown): Promise<Response> {
  return s.client.request(method, path, body);
}

function serverCpu(s: Server): Promise<number> {
  return s.cpu();
}

const TOTAL = Number(process.env.BENCH_CREATES ?? 3000);
const CLIENTS = 32;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function createLoad(s: Server, label: string, prefix: string): Promise<{ rate: number; cpu: number }> {
  const cpu0 = await serverCpu(s);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (;;) {
        const i = next++;
        if (i >= TOTAL) return;
        const r = await request(s, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: `${prefix}-${i}`, labels: { app: 'bench' } }, data: { key: `value-${i}`, other: 'x'.repeat(64) } });
        if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
      }
    }),
  );
  const rate = TOTAL / ((performance.now() - t0) / 1000);
  const cpu = ((await serverCpu(s)) - cpu0) / TOTAL;
  console.log(`${label.padEnd(20)} clients=${CLIENTS}  ${rate.toFixed(0).padStart(6)}/s  server CPU ${cpu.toFixed(0)} us/create`);
  return { rate, cpu };
}

const on = await startServer(true);
const off = await startServer(false);
for (const s of [on, off]) await request(s, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
await createLoad(on, 'warm-up (metrics on)', 'warm');
await createLoad(off, 'warm-up (metrics off)', 'warm');
const results = { on: [] as { rate: number; cpu: number }[], off: [] as { rate: number; cpu: number }[] };
for (let r = 0; r < ROUNDS; r++) {
  results.off.push(await createLoad(off, 'metrics off', `r${r}`));
  results.on.push(await createLoad(on, 'metrics on', `r${r}`));
}
const rateOn = median(results.on.map((x) => x.rate));
const rateOff = median(results.off.map((x) => x.rate));
const cpuOn = median(results.on.map((x) => x.cpu));
const cpuOff = median(results.off.map((x) => x.cpu));
console.log(`median creates/s: metrics on ${rateOn.toFixed(0)}, off ${rateOff.toFixed(0)}: on/off ${(rateOn / rateOff).toFixed(3)}`);
console.log(`median server CPU per create: on ${cpuOn.toFixed(0)} us, off ${cpuOff.toFixed(0)} us: +${(((cpuOn - cpuOff) / cpuOff) * 100).toFixed(1)}%`);
console.log(`load average: ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const s of [on, off]) s.child.send({ type: 'stop' });
