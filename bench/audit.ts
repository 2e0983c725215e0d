/**
 * Audit benchmark (issue 18): creates per second at 32 clients against a server in its own
 * process (SQLite store, as deployed) with audit off, and with every request audited at the
 * Metadata level to a log file; rounds alternate between fresh servers of each kind, and the
 * medians are printed with the server's CPU time per request (load-independent on a shared machine).
 * The server runs bundled as it ships (bench/lib/driver.ts bundledChild); BENCH_AUDIT_SOURCE=1 runs
 * it from source under tsx instead.
 */
import type { ChildProcess } from 'node:child_process';
import https from 'node:https';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuOf, forkServer, median, type Ready } from './lib/driver.ts';

const dir = await mkdtemp(join(tmpdir(), 'kgw-bench-audit-'));
const policy = join(dir, 'policy.yaml');
await writeFile(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: '+(process.env.BENCH_AUDIT_LEVEL ?? 'Metadata')+'\n');

async function server(audit: boolean, round: number): Promise<{ child: ChildProcess; ready: Ready; agent: https.Agent; log: string }> {
  const log = join(dir, `audit-${round}.log`);
  const { child, ready } = await forkServer(new URL('./api-server-child.ts', import.meta.url), { built: process.env.BENCH_AUDIT_SOURCE === undefined, env: audit ? { BENCH_AUDIT_POLICY: policy, BENCH_AUDIT_LOG: log } : {}, execArgv: process.env.BENCH_AUDIT_PROF ? ['--cpu-prof', '--cpu-prof-interval', process.env.BENCH_AUDIT_PROF_INTERVAL ?? '1000', `--cpu-prof-dir=${join(process.env.BENCH_AUDIT_PROF, audit ? 'on' : 'off')}`] : [] });
  return { child, ready, agent: new https.Agent({ ca: ready.ca, cert: ready.cert, key: ready.key, keepAlive: true, maxSockets: 64 }), log };
}

function request(s: { ready: Ready; agent: https.Agent }, method: string, path: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = https.request(`${s.ready.url}${path}`, { method, agent: s.agent, headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * The server's CPU time by thread name (ticks), from /proc: the main thread's JavaScript, V8's
 * helper threads (concurrent and parallel GC) and libuv's pool (file writes) are told apart.
 */
async function threadTicks(pid: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [])) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    const m = /^\d+ \((.*)\) (.*)$/.exec(stat.trim());
    if (!m) continue;
    const f = m[2]!.split(' ');
    // utime and stime: fields 14 and 15 of stat, 12 and 13 after the name.
    // Every thread of a Node process is called "node": the main thread is told apart by its id.
    const name = tid === String(pid) ? 'main' : m[1]!.replace(/\d+$/, '#');
    out.set(name, (out.get(name) ?? 0) + Number(f[11]) + Number(f[12]));
  }
  return out;
}

async function load(s: { ready: Ready; agent: https.Agent; child: ChildProcess }, prefix: string, total: number, clients: number): Promise<{ rate: number; cpu: number }> {
  let next = 0;
  const t0Threads = process.env.BENCH_AUDIT_THREADS ? await threadTicks(s.child.pid!) : undefined;
  const c0 = await cpuOf(s.child);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const code = await request(s, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: `${prefix}-${i}` }, data: { key: `value-${i}` } });
        if (code !== 201) throw new Error(`create answered ${code}`);
      }
    }),
  );
  const rate = total / ((performance.now() - t0) / 1000);
  if (t0Threads) {
    // Ticks are 10 ms: per create in µs.
    const after = await threadTicks(s.child.pid!);
    const parts = [...after].map(([name, t]) => [name, ((t - (t0Threads.get(name) ?? 0)) * 10_000) / total] as const).filter(([, us]) => us > 0);
    console.log(`  ${prefix} threads (µs/create): ${parts.map(([n, us]) => `${n} ${us.toFixed(0)}`).join(', ')}`);
  }
  return { rate, cpu: ((await cpuOf(s.child)) - c0) / total };
}

// Separate servers differ by a few per cent from one start to the next on a shared 2-core machine
// (two plain servers, round by round: ±3%), so the figure takes enough rounds for its median to settle.
const TOTAL = Number(process.env.BENCH_AUDIT_CREATES ?? 8000);
const ROUNDS = Number(process.env.BENCH_AUDIT_ROUNDS ?? 8);
const results: Record<'off' | 'on', { rate: number; cpu: number }[]> = { off: [], on: [] };
for (let r = 0; r < ROUNDS; r++) {
  // Each round swaps the order, so that a machine growing busier or quieter weighs on both alike.
  for (const mode of (r % 2 === 0 ? ['off', 'on'] : ['on', 'off']) as ('off' | 'on')[]) {
    const s = await server(mode === 'on', r);
    await request(s, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    await load(s, 'warm', 500, 32);
    const out = await load(s, 'run', TOTAL, 32);
    results[mode].push(out);
    const size = mode === 'on' ? (await stat(s.log).catch(() => ({ size: 0 }))).size : 0;
    console.log(`audit round ${r + 1} ${mode.padEnd(3)}  ${out.rate.toFixed(0).padStart(6)} creates/s at 32 clients  server CPU ${out.cpu.toFixed(0)} µs/create${mode === 'on' ? `  (log ${(size / 1e6).toFixed(1)} MB)` : ''}`);
    s.child.send({ type: 'stop' });
    s.agent.destroy();
    await new Promise((r2) => s.child.on('exit', r2));
  }
}
const off = median(results.off.map((x) => x.rate));
const on = median(results.on.map((x) => x.rate));
const cpuOff = median(results.off.map((x) => x.cpu));
const cpuOn = median(results.on.map((x) => x.cpu));
// Each round's own pair too: the ratio within a round is free of the drift between rounds.
const pairs = results.on.map((x, i) => x.rate / results.off[i]!.rate).sort((a, b) => a - b);
const cpuPairs = results.on.map((x, i) => x.cpu / results.off[i]!.cpu - 1).sort((a, b) => a - b);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
console.log(`per round: rate ${pct(median(pairs))} of plain (from ${pct(pairs[0]!)} to ${pct(pairs[pairs.length - 1]!)}), server CPU +${pct(median(cpuPairs))} (from +${pct(cpuPairs[0]!)} to +${pct(cpuPairs[cpuPairs.length - 1]!)})`);
console.log(`audit Metadata to a file: ${on.toFixed(0)} vs ${off.toFixed(0)} creates/s = ${((on / off) * 100).toFixed(0)}% (target >= 95%); server CPU ${cpuOn.toFixed(0)} vs ${cpuOff.toFixed(0)} µs/create (+${(((cpuOn - cpuOff) / cpuOff) * 100).toFixed(1)}%)`);
await rm(dir, { recursive: true, force: true });
