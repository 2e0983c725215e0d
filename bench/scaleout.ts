/**
 * Scale-out benchmark (issue 17): gateway processes on one real etcd (Debian's 3.4, or
 * `--etcd-binary` for v3.5.17) and a real Redis on loopback. Prints:
 * - create throughput with 64 clients spread over 1 and over 3 replicas;
 * - watch delivery latency (write acknowledged -> event received) p50/p99 to 1,000 watchers spread
 *   over 3 replicas, with Redis Streams fanout and with every replica watching etcd directly;
 * - etcd's watcher count and etcd CPU seconds during the write load, 1 vs 3 replicas;
 * - memory (RSS) per replica after storing `--objects` objects (default 100,000).
 * Nothing is asserted. `npm run bench:scaleout -- [--seconds 10] [--watchers 1000] [--objects 100000]`.
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

const built = spawnSync(process.execPath, [join(root, 'bin', 'build.js')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(1);

interface Replica {
  child: ChildProcess;
  url: string;
}

let tls: { ca: Buffer; cert: Buffer; key: Buffer } | undefined;
const agent = new https.Agent({ keepAlive: true, maxSockets: 256 });

function startReplica(etcd: EtcdServer, dataDir: string, fanout: string | undefined): Promise<Replica> {
  return new Promise((resolve, reject) => {
    const args = [bin, `--etcd-servers=${etcd.endpoint}`, `--data-dir=${dataDir}`, '--secure-port=0', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0'];
    if (fanout) args.push(`--watch-fanout=${fanout}`);
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
        child.stderr!.resume();
        resolve({ child, url: u[1]! });
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
          r.child.kill('SIGKILL');
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
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const client = async (c: number) => {
    const r = replicas[c % replicas.length]!;
    while (performance.now() < end) {
      const name = `c${c}-${n++}`;
      const started = performance.now();
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
  return { perSecond: acked.size / ((performance.now() - t0) / 1000), acked };
}

async function ensureNamespace(r: Replica, ns: string): Promise<void> {
  const res = await request(r.url, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (res.status !== 201 && res.status !== 409) throw new Error(`namespace ${ns}: ${res.status}`);
}

/** Opens `count` watches spread over the replicas; records the arrival time of each ADDED by name. */
function openWatchers(replicas: Replica[], ns: string, count: number, from: string) {
  const arrivals: Array<Map<string, number>> = [];
  const reqs: Array<ReturnType<typeof https.request>> = [];
  for (let i = 0; i < count; i++) {
    const seen = new Map<string, number>();
    arrivals.push(seen);
    const r = replicas[i % replicas.length]!;
    const req = https.request(`${r.url}/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${from}`, { agent, ...tls }, (res) => {
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
  return { arrivals, close: () => reqs.forEach((r) => r.destroy()) };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  console.log(`scale-out benchmark: ${SECONDS}s loads, ${WATCHERS} watchers, ${OBJECTS} objects; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const etcd = await startEtcd({ progressNotifyMs: 600_000, ...(etcdBinary ? { binary: etcdBinary } : {}) });
  const redis: RedisServer = await startRedis();
  try {
    // 1. Throughput and etcd load, 1 vs 3 replicas (with fanout).
    for (const n of [1, 3]) {
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
    // 2. Watch latency to WATCHERS watchers over 3 replicas, with and without Redis.
    for (const fanout of [redis.url, undefined]) {
      const c = await cluster(etcd, 3, fanout);
      await new Promise((r) => setTimeout(r, 2000));
      const ns = `lat${fanout ? 'r' : 'd'}`;
      await ensureNamespace(c.replicas[0]!, ns);
      const from = (await request(c.replicas[0]!.url, 'GET', `/api/v1/namespaces/${ns}/configmaps`)).json.metadata.resourceVersion;
      const w = openWatchers(c.replicas, ns, WATCHERS, from);
      await new Promise((r) => setTimeout(r, 3000));
      const watchersInEtcd = await etcdMetric(etcd, 'etcd_debugging_mvcc_watcher_total');
      // A modest write rate (8 clients, 10 writes/s each): latency, not saturation.
      const { acked } = await writeLoad(c.replicas, ns, SECONDS, 8, 10);
      await new Promise((r) => setTimeout(r, 3000));
      const lat: number[] = [];
      let missing = 0;
      for (const seen of w.arrivals) {
        for (const [name, at] of acked) {
          const got = seen.get(name);
          if (got === undefined) missing++;
          else lat.push(got - at);
        }
      }
      lat.sort((a, b) => a - b);
      console.log(
        `3 replicas, ${fanout ? 'Redis fanout' : 'direct etcd watches'}: ${acked.size} writes to ${WATCHERS} watchers: delivery latency p50 ${percentile(lat, 50).toFixed(1)} ms, p99 ${percentile(lat, 99).toFixed(1)} ms (negative: delivered before the writer saw its response); ${missing} deliveries missing; etcd watchers ${watchersInEtcd}`,
      );
      w.close();
      await stopCluster(c);
    }
    // 3. Memory per replica at OBJECTS objects (3 replicas, fanout).
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
    await redis.stop();
    await etcd.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
