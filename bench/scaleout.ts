/**
 * Scale-out benchmark (issue 17): gateway processes on one real etcd (Debian's 3.4, or
 * `--etcd-binary` for v3.5.17) and a real Redis on loopback. Prints:
 * - create throughput with 64 clients spread over 1 and over 3 replicas;
 * - watch delivery latency (write acknowledged -> event received) p50/p99 to 1,000 watchers spread
 *   over 3 replicas, with Redis Streams fanout and with every replica watching etcd directly;
 * - etcd's watcher count and etcd CPU seconds during the write load, 1 vs 3 replicas;
 * - memory (RSS) per replica after storing `--objects` objects (default 100,000).
 * The latency phase runs the Redis path and the direct path alternately (`--rounds`, default 1 each)
 * on the same etcd, with the same paced writes, and prints for each: latency from acknowledgement
 * and from sending, the replicas' CPU per write (a figure that load does not distort), and for
 * the Redis path the hop-by-hop figures the replicas log (src/storage/fanout/fanout-stats.ts).
 * `--cpu-prof DIR` writes a CPU profile of every replica there (stopped with SIGTERM).
 * Nothing is asserted. `npm run bench:scaleout -- [--seconds 10] [--watchers 1000] [--objects 100000]
 * [--phases throughput,latency,memory] [--rounds 1] [--rate 80] [--cpu-prof DIR] [--etcd-binary PATH]`.
 * Quote the figures with the machine's load average (printed); on a shared 2-core machine every
 * replica, etcd, Redis and the load generator compete for the same cores.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { fileURLToPath } from 'node:url';
import { startEtcd, type EtcdServer } from '../test/storage/etcd-server.ts';
import { startRedis, type RedisServer } from '../test/storage/redis-server.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'kube-gateway.js');
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const etcdBinaryArg = process.argv.indexOf('--etcd-binary');
const etcdBinary = etcdBinaryArg === -1 ? undefined : process.argv[etcdBinaryArg + 1];
const SECONDS = arg('seconds', 10);
const WATCHERS = arg('watchers', 1000);
const OBJECTS = arg('objects', 100_000);
const CLIENTS = 64;
const ROUNDS = arg('rounds', 1);
/** Writes per second in the latency phase (8 paced clients): latency, not saturation. */
const RATE = arg('rate', 80);
const cpuProfArg = process.argv.indexOf('--cpu-prof');
const CPU_PROF_DIR = cpuProfArg === -1 ? undefined : process.argv[cpuProfArg + 1];
const phasesArg = process.argv.indexOf('--phases');
const PHASES = new Set((phasesArg === -1 ? 'throughput,latency,memory' : process.argv[phasesArg + 1]!).split(','));

const built = spawnSync(process.execPath, [join(root, 'bin', 'build.js')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(1);

interface Replica {
  child: ChildProcess;
  url: string;
  /** The `watch fanout stats` lines it logged (when asked for them). */
  stats: Array<Record<string, any>>;
}

let tls: { ca: Buffer; cert: Buffer; key: Buffer } | undefined;
const agent = new https.Agent({ keepAlive: true, maxSockets: 256 });
// Watches hold their connection for good: their own agent, without a socket limit, so writes never queue behind them.
const watchAgent = new https.Agent({ keepAlive: false, maxSockets: Infinity });

function startReplica(etcd: EtcdServer, dataDir: string, fanout: string | undefined): Promise<Replica> {
  return new Promise((resolve, reject) => {
    const nodeFlags = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : [];
    const args = [...nodeFlags, bin, `--etcd-servers=${etcd.endpoint}`, `--data-dir=${dataDir}`, '--secure-port=0', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0'];
    if (fanout) args.push(`--watch-fanout=${fanout}`);
    // Hop-by-hop figures of the Redis path, logged every second.
    const env = { ...process.env, KUBE_GATEWAY_FANOUT_STATS_MS: '1000' };
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`replica did not start: ${out}`)), 60_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const u = /listening on (https:\/\/\S+)/.exec(out);
      if (u && out.includes('export KUBECONFIG')) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stderr!.removeAllListeners('data');
        child.stdout!.resume();
        const replica: Replica = { child, url: u[1]!, stats: [] };
        let rest = '';
        child.stderr!.on('data', (c: Buffer) => {
          const lines = (rest + c.toString()).split('\n');
          rest = lines.pop()!;
          for (const line of lines) {
            if (!line.includes('watch fanout stats')) continue;
            const msg = (JSON.parse(line) as { msg: string }).msg;
            replica.stats.push(JSON.parse(msg.slice(msg.indexOf('{'))));
          }
        });
        resolve(replica);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`replica exited (${code}): ${out}`)));
  });
}

/** Starts `n` replicas sharing r0's CA and service-account key. */
async function cluster(etcd: EtcdServer, n: number, fanout: string | undefined): Promise<{ replicas: Replica[]; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-scaleout-'));
  const replicas = [await startReplica(etcd, join(dir, 'r0'), fanout)];
  tls = { ca: readFileSync(join(dir, 'r0', 'ca.crt')), cert: readFileSync(join(dir, 'r0', 'admin.crt')), key: readFileSync(join(dir, 'r0', 'admin.key')) };
  for (let i = 1; i < n; i++) {
    mkdirSync(join(dir, `r${i}`));
    // Certificates and keys are shared by configuration: the same CA and service-account key in every data dir.
    for (const f of ['ca.crt', 'ca.key', 'sa.key']) copyFileSync(join(dir, 'r0', f), join(dir, `r${i}`, f));
  }
  replicas.push(...(await Promise.all(Array.from({ length: n - 1 }, (_, i) => startReplica(etcd, join(dir, `r${i + 1}`), fanout)))));
  return { replicas, dir };
}

async function stopCluster(c: { replicas: Replica[]; dir: string }): Promise<void> {
  await Promise.all(
    c.replicas.map(
      (r) =>
        new Promise<void>((resolve) => {
          if (r.child.exitCode !== null) return resolve();
          r.child.once('exit', () => resolve());
          // A CPU profile is written at a clean exit only.
          if (!CPU_PROF_DIR) return r.child.kill('SIGKILL');
          r.child.kill('SIGTERM');
          setTimeout(() => r.child.kill('SIGKILL'), 30_000).unref();
        }),
    ),
  );
  rmSync(c.dir, { recursive: true, force: true });
}

function request(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(`${url}${path}`, { method, agent, ...tls, headers: { 'content-type': 'application/json' } }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: data ? JSON.parse(data) : undefined }));
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

async function etcdMetric(etcd: EtcdServer, name: string): Promise<number> {
  const text = await (await fetch(`${etcd.endpoint}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
}

/** 64 clients creating ConfigMaps for SECONDS, spread over the replicas; returns creates/s and the acknowledgement times by name. */
async function writeLoad(replicas: Replica[], ns: string, seconds: number, clients = CLIENTS, ratePerClient = Infinity) {
  const acked = new Map<string, number>();
  const sent = new Map<string, number>();
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const client = async (c: number) => {
    const r = replicas[c % replicas.length]!;
    while (performance.now() < end) {
      const name = `c${c}-${n++}`;
      const started = performance.now();
      sent.set(name, started);
      const res = await request(r.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: 'x' } });
      if (res.status === 201) acked.set(name, performance.now());
      if (ratePerClient !== Infinity) {
        const wait = 1000 / ratePerClient - (performance.now() - started);
        if (wait > 0) await new Promise((r2) => setTimeout(r2, wait));
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  return { perSecond: acked.size / ((performance.now() - t0) / 1000), acked, sent };
}

async function ensureNamespace(r: Replica, ns: string): Promise<void> {
  const res = await request(r.url, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (res.status !== 201 && res.status !== 409) throw new Error(`namespace ${ns}: ${res.status}`);
}

/** Opens `count` watches spread over the replicas; records the arrival time of each ADDED by name. */
function openWatchers(replicas: Replica[], ns: string, count: number, from: string) {
  const arrivals: Array<Map<string, number>> = [];
  const reqs: Array<ReturnType<typeof https.request>> = [];
  const state = { connected: 0 };
  for (let i = 0; i < count; i++) {
    const seen = new Map<string, number>();
    arrivals.push(seen);
    const r = replicas[i % replicas.length]!;
    const req = https.request(`${r.url}/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${from}`, { agent: watchAgent, ...tls }, (res) => {
      state.connected++;
      let buf = '';
      res.on('data', (c: Buffer) => {
        const at = performance.now();
        buf += c.toString();
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          const ev = JSON.parse(line);
          if (ev.type === 'ADDED') seen.set(ev.object.metadata.name, at);
        }
      });
    });
    req.on('error', () => {});
    req.end();
    reqs.push(req);
  }
  return { arrivals, state, close: () => reqs.forEach((r) => r.destroy()) };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

/** CPU seconds (user + system) a process has used, from /proc. */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const load = () => loadavg()[0]!.toFixed(1);
const ms = (v: number) => `${v.toFixed(0)} ms`;

/** The replicas' `watch fanout stats` lines of a time window, summed (counts) and merged (worst percentiles, as a range over replicas). */
function hopSummary(replicas: Replica[], fromLine: number[]): string {
  const parts: string[] = [];
  let appends = 0;
  let appended = 0;
  let maxQueued = 0;
  const pump: number[][] = [];
  const pumpers = new Set<string>();
  replicas.forEach((r, i) => {
    const lines = r.stats.slice(fromLine[i]);
    let reads = 0;
    let empty = 0;
    let entries = 0;
    const hops: number[][] = [];
    for (const l of lines) {
      appends += l.appends;
      if (l.appends > 0) pumpers.add(`r${i}`);
      appended += l.appends * l.entriesPerAppend;
      maxQueued = Math.max(maxQueued, l.maxQueued);
      reads += l.reads;
      empty += l.emptyReads;
      entries += (l.reads - l.emptyReads) * l.entriesPerRead;
      if (l.pumpHopMs) pump.push([l.pumpHopMs.p50, l.pumpHopMs.p99, l.pumpHopMs.max]);
      if (l.streamHopMs) hops.push([l.streamHopMs.p50, l.streamHopMs.p99, l.streamHopMs.max]);
    }
    const worst = (k: number) => Math.max(...hops.map((h) => h[k]!));
    const median = (k: number) => hops.map((h) => h[k]!).sort((a, b) => a - b)[Math.floor(hops.length / 2)] ?? NaN;
    parts.push(`r${i}: ${reads} XREADs (${empty} empty), ${(entries / Math.max(1, reads - empty)).toFixed(1)} entries/XREAD, pump->read p50 ${ms(median(0))} (median of 1 s periods), p99 up to ${ms(worst(1))}, max ${ms(worst(2))}`);
  });
  const pumpWorst = (k: number) => Math.max(...pump.map((h) => h[k]!));
  return `  pump (on ${[...pumpers].join(', ') || 'none'}): ${appends} EVALs, ${(appended / Math.max(1, appends)).toFixed(1)} entries/EVAL, at most ${maxQueued} queued; receive->appended p99 up to ${ms(pumpWorst(1))}, max ${ms(pumpWorst(2))}\n  ${parts.join('\n  ')}`;
}

/** One latency measurement: 3 replicas, WATCHERS watchers, RATE paced writes for SECONDS. */
async function latencyRound(etcd: EtcdServer, fanout: string | undefined, round: number): Promise<void> {
  const c = await cluster(etcd, 3, fanout);
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const ns = `lat${fanout ? 'r' : 'd'}${round}`;
    await ensureNamespace(c.replicas[0]!, ns);
    const from = (await request(c.replicas[0]!.url, 'GET', `/api/v1/namespaces/${ns}/configmaps`)).json.metadata.resourceVersion;
    const w = openWatchers(c.replicas, ns, WATCHERS, from);
    for (let waited = 0; w.state.connected < WATCHERS && waited < 120_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 1000));
    const watchersInEtcd = await etcdMetric(etcd, 'etcd_debugging_mvcc_watcher_total');
    const statsFrom = c.replicas.map((r) => r.stats.length);
    const cpu0 = c.replicas.map((r) => cpuSecondsOf(r.child.pid!));
    const load0 = load();
    const { acked, sent, perSecond } = await writeLoad(c.replicas, ns, SECONDS, 8, RATE / 8);
    // Every delivery, however late (up to 30 s): a backlog shows as latency, not as "missing".
    const due = acked.size * WATCHERS;
    const delivered = () => w.arrivals.reduce((n, seen) => n + [...acked.keys()].filter((k) => seen.has(k)).length, 0);
    for (let waited = 0; waited < 30_000 && delivered() < due; waited += 500) await new Promise((r) => setTimeout(r, 500));
    const cpu = c.replicas.map((r, i) => cpuSecondsOf(r.child.pid!) - cpu0[i]!);
    await new Promise((r) => setTimeout(r, 1200));
    const fromAck: number[] = [];
    const fromSend: number[] = [];
    let missing = 0;
    for (const seen of w.arrivals) {
      for (const [name, at] of acked) {
        const got = seen.get(name);
        if (got === undefined) missing++;
        else {
          fromAck.push(got - at);
          fromSend.push(got - sent.get(name)!);
        }
      }
    }
    fromAck.sort((a, b) => a - b);
    fromSend.sort((a, b) => a - b);
    const cpuMs = cpu.reduce((a, b) => a + b, 0) * 1000;
    console.log(
      `3 replicas, ${fanout ? 'Redis fanout' : 'direct etcd watches'} (round ${round + 1}; load ${load0} -> ${load()}): ${acked.size} writes (${perSecond.toFixed(0)}/s) to ${WATCHERS} watchers; ` +
        `latency from acknowledgement p50 ${ms(percentile(fromAck, 50))}, p99 ${ms(percentile(fromAck, 99))}; from sending p50 ${ms(percentile(fromSend, 50))}, p99 ${ms(percentile(fromSend, 99))}; ` +
        `${missing} deliveries missing; replicas' CPU ${cpu.map((s2) => s2.toFixed(1)).join(' + ')} s = ${(cpuMs / Math.max(1, acked.size)).toFixed(1)} ms per write; ${w.state.connected} watches connected; etcd watchers ${watchersInEtcd}`,
    );
    if (fanout) console.log(hopSummary(c.replicas, statsFrom));
    w.close();
  } finally {
    await stopCluster(c);
  }
}

async function main(): Promise<void> {
  console.log(`scale-out benchmark: ${SECONDS}s loads, ${WATCHERS} watchers, ${OBJECTS} objects; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const etcd = await startEtcd({ progressNotifyMs: 600_000, ...(etcdBinary ? { binary: etcdBinary } : {}) });
  const redis: RedisServer = await startRedis();
  try {
    // 1. Throughput and etcd load, 1 vs 3 replicas (with fanout).
    for (const n of PHASES.has('throughput') ? [1, 3] : []) {
      const c = await cluster(etcd, n, redis.url);
      await new Promise((r) => setTimeout(r, 2000));
      const ns = `tp${n}`;
      await ensureNamespace(c.replicas[0]!, ns);
      const watchers = await etcdMetric(etcd, 'etcd_debugging_mvcc_watcher_total');
      const cpu0 = await etcdMetric(etcd, 'process_cpu_seconds_total');
      const { perSecond } = await writeLoad(c.replicas, ns, SECONDS);
      const cpu1 = await etcdMetric(etcd, 'process_cpu_seconds_total');
      console.log(`${n} replica(s), Redis fanout: ${perSecond.toFixed(0)} creates/s at ${CLIENTS} clients; etcd watchers ${watchers}; etcd CPU ${(cpu1 - cpu0).toFixed(2)} s over ${SECONDS} s`);
      await stopCluster(c);
    }
    // 2. Watch latency to WATCHERS watchers over 3 replicas, with and without Redis, alternately.
    if (PHASES.has('latency')) for (let round = 0; round < ROUNDS; round++) for (const fanout of [redis.url, undefined]) await latencyRound(etcd, fanout, round);
    // 3. Memory per replica at OBJECTS objects (3 replicas, fanout).
    if (!PHASES.has('memory')) return;
    const c = await cluster(etcd, 3, redis.url);
    await ensureNamespace(c.replicas[0]!, 'mem');
    let stored = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, i) => {
        const r = c.replicas[i % 3]!;
        while (stored < OBJECTS) {
          const name = `m-${stored++}`;
          await request(r.url, 'POST', '/api/v1/namespaces/mem/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: 'x' } });
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 5000));
    console.log(`${OBJECTS} ConfigMaps stored in ${secs.toFixed(0)} s; RSS per replica: ${c.replicas.map((r) => mb(rssOf(r.child.pid!))).join(', ')}`);
    await stopCluster(c);
  } finally {
    agent.destroy();
    watchAgent.destroy();
    await redis.stop();
    await etcd.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
