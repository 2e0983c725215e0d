/**
 * Cost of the request metrics (issue 18): ConfigMap creates per second at 32 clients over HTTPS
 * against servers in their own processes (embedded SQLite store, bundled as shipped), one kind
 * recording kube's per-request metrics (request totals, durations, sizes, storage latency,
 * authentication and authorization) and one recording none: a fresh pair each round (8 rounds of
 * 6,000 creates by default: BENCH_ROUNDS, BENCH_CREATES), the order swapped each round so a drift
 * of the shared machine hits both; prints each figure, each round's ratio, the ratio of the
 * medians (target: within 5%), and the server CPU time per create.
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

const TOTAL = Number(process.env.BENCH_CREATES ?? 6000);
const WARMUP = 500;
const CLIENTS = 32;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);

async function createLoad(s: Server, label: string, prefix: string, total: number): Promise<{ rate: number; cpu: number }> {
  const cpu0 = await serverCpu(s);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const r = await request(s, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: `${prefix}-${i}`, labels: { app: 'bench' } }, data: { key: `value-${i}`, other: 'x'.repeat(64) } });
        if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
      }
    }),
  );
  const rate = total / ((performance.now() - t0) / 1000);
  const cpu = ((await serverCpu(s)) - cpu0) / total;
  console.log(`${label.padEnd(20)} clients=${CLIENTS}  ${rate.toFixed(0).padStart(6)}/s  server CPU ${cpu.toFixed(0)} us/create`);
  return { rate, cpu };
}

// Fresh servers each round, the order swapped each round: one server start differs from the next by
// a few per cent on a shared 2-core machine, so a single pair of servers decides nothing.
const results = { on: [] as { rate: number; cpu: number }[], off: [] as { rate: number; cpu: number }[] };
for (let r = 0; r < ROUNDS; r++) {
  for (const metrics of r % 2 === 0 ? [false, true] : [true, false]) {
    const s = await startServer(metrics);
    await request(s, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    await createLoad(s, `warm-up (metrics ${metrics ? 'on' : 'off'})`, 'warm', WARMUP);
    (metrics ? results.on : results.off).push(await createLoad(s, `metrics ${metrics ? 'on' : 'off'}`, `r${r}`, TOTAL));
    await s.stop();
  }
}
const rateOn = median(results.on.map((x) => x.rate));
const rateOff = median(results.off.map((x) => x.rate));
const cpuOn = median(results.on.map((x) => x.cpu));
const cpuOff = median(results.off.map((x) => x.cpu));
const pairs = results.on.map((x, i) => x.rate / results.off[i]!.rate).sort((a, b) => a - b);
console.log(`per round: on/off ${median(pairs).toFixed(3)} (from ${pairs[0]!.toFixed(3)} to ${pairs[pairs.length - 1]!.toFixed(3)})`);
console.log(`median creates/s: metrics on ${rateOn.toFixed(0)}, off ${rateOff.toFixed(0)}: on/off ${(rateOn / rateOff).toFixed(3)}`);
console.log(`median server CPU per create: on ${cpuOn.toFixed(0)} us, off ${cpuOff.toFixed(0)} us: +${(((cpuOn - cpuOff) / cpuOff) * 100).toFixed(1)}%`);
console.log(`load average: ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}`);
