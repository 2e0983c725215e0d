/**
 * Side by side with kube-apiserver v1.32.4 (issue 19): the same load generator against both, in
 * one run, alternating which goes first, over several rounds with fresh servers each round;
 * prints the median of each figure and the ratio (gateway / kube, higher is better for rates,
 * lower is better for times and memory, as each line says).
 *
 * The reference is kube-apiserver v1.32.4 on etcd 3.5.17 as parity/build-reference.sh builds and
 * caches them (run `npm run parity` once, or parity/build-reference.sh); it is started privately
 * through parity/reference.sh without a controller-manager. This server runs from the build on
 * its default durable SQLite store. Both are reached the same way: HTTP/2, one connection, the
 * admin client certificate. The load generator shares the machine's cores with both servers, so
 * quote figures with the machine's load (printed).
 *
 * `npm run bench:compare` (`-- --rounds N`, `--objects N` for the list size, default 10,000;
 * `--rss-objects N` for the last phase, RSS with the store filled to N objects, default 100,000, 0 skips it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 3);
const listObjects = arg('objects', 10_000);
const seconds = arg('seconds', 4);
/** The larger store the last phase fills to for its RSS figure (`--rss-objects 0` skips it). */
const rssObjects = arg('rss-objects', 100_000);

interface Target {
  readonly name: 'gateway' | 'kube';
  readonly url: string;
  readonly tls: { ca: Buffer; cert: Buffer; key: Buffer };
  readonly pid: number;
  stop(): Promise<void>;
}

// ---- servers ----

async function startGateway(): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kgw-compare-'));
  const child: ChildProcess = spawn(process.execPath, [join(root, 'bin', 'kube-gateway.js'), '--data-dir', dataDir, '--secure-port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (https:\/\/\S+)/.exec(out);
      if (m && out.includes('KUBECONFIG')) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`kube-gateway exited (${code}): ${out}`)));
  });
  return {
    name: 'gateway',
    url,
    tls: { ca: readFileSync(join(dataDir, 'ca.crt')), cert: readFileSync(join(dataDir, 'admin.crt')), key: readFileSync(join(dataDir, 'admin.key')) },
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startKube(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'kube-compare-'));
  const script = join(root, 'parity', 'reference.sh');
  const r = spawnSync('bash', [script, 'start', '--dir', dir, '--no-controller-manager'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`reference did not start (build it with parity/build-reference.sh):\n${r.stderr}`);
  const env = readFileSync(join(dir, 'env'), 'utf8');
  const url = /REF_URL=(\S+)/.exec(env)![1]!;
  return {
    name: 'kube',
    url,
    tls: { ca: readFileSync(join(dir, 'pki', 'ca.crt')), cert: readFileSync(join(dir, 'pki', 'admin.crt')), key: readFileSync(join(dir, 'pki', 'admin.key')) },
    pid: Number(readFileSync(join(dir, 'kube-apiserver.pid'), 'utf8')),
    stop: async () => {
      spawnSync('bash', [script, 'stop', '--dir', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function rssMB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

// ---- the client: one HTTP/2 connection, many streams ----

interface Reply {
  readonly status: number;
  readonly body: Buffer;
}

class Client {
  private readonly session: http2.ClientHttp2Session;
  constructor(readonly target: Target) {
    this.session = http2.connect(target.url, { ...target.tls, settings: { enablePush: false } });
    this.session.on('error', () => {});
  }
  request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      // Content-Length as Go's clients (client-go, kubectl) send it with every body.
      const stream = this.session.request({ ':method': method, ':path': path, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}), ...headers });
      const chunks: Buffer[] = [];
      let status = 0;
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
      stream.on('error', reject);
      stream.end(payload);
    });
  }
  /** Opens a watch; `onLine` gets each JSON line. Returns a closer. */
  watch(path: string, onLine: (line: string) => void): () => void {
    const stream = this.session.request({ ':method': 'GET', ':path': path });
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => {
      rest += c;
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        onLine(rest.slice(0, nl));
        rest = rest.slice(nl + 1);
      }
    });
    stream.on('error', () => {});
    return () => stream.close();
  }
  close(): void {
    this.session.close();
  }
}

/** Polls /readyz until it answers 200: the start is over when every post-start hook has finished, not when the port opens. */
async function untilReady(t: Target): Promise<void> {
  const c = new Client(t);
  try {
    while ((await c.request('GET', '/readyz')).status !== 200) await new Promise((r) => setTimeout(r, 2));
  } finally {
    c.close();
  }
}

async function expectOk(p: Promise<Reply>, what: string): Promise<Reply> {
  const r = await p;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.body.toString().slice(0, 300)}`);
  return r;
}

/** Runs `clients` loops of `op` for `seconds`; returns operations per second and latency percentiles. */
async function rate(clients: number, op: (client: number, i: number) => Promise<void>): Promise<{ perSecond: number; p50: number; p99: number }> {
  const end = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; performance.now() < end; i++) {
        const t = performance.now();
        await op(c, i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / seconds, p50: latencies[Math.floor(latencies.length / 2)] ?? 0, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0 };
}

async function timed(times: number, f: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b)[Math.floor(times / 2)]!;
}

const configMap = (name: string, extra: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'x'.repeat(100), ...extra } });

/** One round of every scenario against one server. Figures by name. */
async function measure(t: Target): Promise<Map<string, number>> {
  const f = new Map<string, number>();
  const c = new Client(t);
  const ns = 'bench';
  await expectOk(c.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), 'create namespace');
  await expectOk(c.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lists' } }), 'create namespace');
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  f.set('rss idle MB', rssMB(t.pid));

  let seq = 0;
  f.set('create, 1 client /s', (await rate(1, async () => void (await expectOk(c.request('POST', base, configMap(`one-${seq++}`)), 'create')))).perSecond);
  const creates = await rate(32, async () => void (await expectOk(c.request('POST', base, configMap(`many-${seq++}`)), 'create')));
  f.set('create, 32 clients /s', creates.perSecond);
  f.set('create, 32 clients p99 ms', creates.p99);

  // Updates: each client rewrites its own object with the resourceVersion it last saw.
  const versions: string[] = [];
  for (let i = 0; i < 32; i++) {
    const r = await expectOk(c.request('POST', base, configMap(`upd-${i}`)), 'create');
    versions[i] = JSON.parse(r.body.toString()).metadata.resourceVersion;
  }
  f.set(
    'update, 32 clients /s',
    (
      await rate(32, async (i, n) => {
        const body = { ...configMap(`upd-${i}`, { n: String(n) }), metadata: { name: `upd-${i}`, resourceVersion: versions[i] } };
        const r = await expectOk(c.request('PUT', `${base}/upd-${i}`, body), 'update');
        versions[i] = JSON.parse(r.body.toString()).metadata.resourceVersion;
      })
    ).perSecond,
  );
  f.set('get, 32 clients /s', (await rate(32, async (i) => void (await expectOk(c.request('GET', `${base}/upd-${i}`), 'get')))).perSecond);

  // Server-side apply: 16 clients, 3 managers taking turns over 50 fields of one object each.
  const applyBody = (i: number, m: number) => {
    const data: Record<string, string> = {};
    for (let k = 0; k < 50; k++) if (k % 3 === m) data[`k${k}`] = `v${k}`;
    return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `apply-${i}` }, data });
  };
  f.set(
    'apply, 16 clients, 3 managers /s',
    (
      await rate(16, async (i, n) => {
        const m = n % 3;
        await expectOk(c.request('PATCH', `${base}/apply-${i}?fieldManager=m${m}`, applyBody(i, m), { 'content-type': 'application/apply-patch+yaml' }), 'apply');
      })
    ).perSecond,
  );

  // Lists of `listObjects` ConfigMaps, filled at 32 clients.
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < listObjects) await expectOk(c.request('POST', '/api/v1/namespaces/lists/configmaps', configMap(`item-${next++}`)), 'fill');
    }),
  );
  const lists = '/api/v1/namespaces/lists/configmaps';
  f.set(`list ${listObjects} JSON ms`, await timed(7, () => expectOk(c.request('GET', lists), 'list')));
  f.set(`list ${listObjects} protobuf ms`, await timed(7, () => expectOk(c.request('GET', lists, undefined, { accept: 'application/vnd.kubernetes.protobuf' }), 'list')));
  f.set(`list ${listObjects} Table ms`, await timed(5, () => expectOk(c.request('GET', lists, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }), 'list')));
  f.set(
    `list ${listObjects} paged by 500 ms`,
    await timed(5, async () => {
      let cont = '';
      do {
        const r = await expectOk(c.request('GET', `${lists}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`), 'page');
        cont = JSON.parse(r.body.toString()).metadata.continue ?? '';
      } while (cont);
    }),
  );
  f.set(`rss with ${listObjects} objects MB`, rssMB(t.pid));

  // Watchers: memory they add, and write-to-delivery latency to all of them.
  for (const n of [100, 1000]) {
    const before = rssMB(t.pid);
    // A hundred streams per connection: servers cap concurrent streams per connection (kube: 250 by default).
    const conns = Array.from({ length: Math.ceil(n / 100) }, () => new Client(t));
    const pending = new Map<string, { sent: number; left: number; done: (ms: number) => void }>();
    const closers: Array<() => void> = [];
    await new Promise<void>((resolve) => {
      for (let i = 0; i < n; i++) {
        closers.push(
          conns[Math.floor(i / 100)]!.watch(`/api/v1/namespaces/${ns}/configmaps?watch=1&fieldSelector=metadata.name%3Dw`, (line) => {
            if (line.includes('"BOOKMARK"')) return;
            const p = pending.get('w');
            if (p && --p.left === 0) p.done(performance.now() - p.sent);
          }),
        );
      }
      // Give the streams a moment to be registered (they send nothing until an event).
      setTimeout(resolve, 1500 + n * 2);
    });
    await new Promise((r) => setTimeout(r, 500));
    f.set(`${n} watchers add MB`, rssMB(t.pid) - before);
    const deliveries: number[] = [];
    for (let k = 0; k < 10; k++) {
      const delivered = new Promise<number>((resolve) => pending.set('w', { sent: performance.now(), left: n, done: resolve }));
      const r = await c.request(k === 0 ? 'POST' : 'PUT', k === 0 ? base : `${base}/w`, { ...configMap('w', { k: String(k) }) });
      if (r.status >= 300) throw new Error(`watch write: ${r.status} ${r.body}`);
      deliveries.push(await Promise.race([delivered, new Promise<number>((res) => setTimeout(() => res(NaN), 10_000))]));
    }
    deliveries.sort((a, b) => a - b);
    f.set(`${n} watchers, write to last delivery ms`, deliveries[5]!);
    for (const close of closers) close();
    for (const wc of conns) wc.close();
    await c.request('DELETE', `${base}/w`);
    await new Promise((r) => setTimeout(r, 500));
  }

  // Last, as it takes longest: RSS with the lists' namespace filled up to `rssObjects`.
  if (rssObjects > listObjects) {
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < rssObjects) await expectOk(c.request('POST', '/api/v1/namespaces/lists/configmaps', configMap(`item-${next++}`)), 'fill');
      }),
    );
    await new Promise((r) => setTimeout(r, 1000));
    f.set(`rss with ${rssObjects} objects MB`, rssMB(t.pid));
  }
  c.close();
  return f;
}

// ---- rounds ----

const results: Record<'gateway' | 'kube', Map<string, number[]>> = { gateway: new Map(), kube: new Map() };
const coldStarts: number[] = [];
console.log(`bench:compare: ${rounds} rounds, lists of ${listObjects}, rates over ${seconds}s; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (let round = 0; round < rounds; round++) {
  const order: Array<'gateway' | 'kube'> = round % 2 === 0 ? ['gateway', 'kube'] : ['kube', 'gateway'];
  for (const who of order) {
    const started = performance.now();
    const t = who === 'gateway' ? await startGateway() : await startKube();
    if (who === 'gateway') {
      await untilReady(t);
      coldStarts.push(performance.now() - started);
    }
    try {
      for (const [k, v] of await measure(t)) {
        const list = results[who].get(k) ?? [];
        list.push(v);
        results[who].set(k, list);
      }
    } finally {
      await t.stop();
    }
    process.stdout.write(`  round ${round + 1}: ${who} done\n`);
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\n${'figure'.padEnd(44)} ${'gateway'.padStart(10)} ${'kube'.padStart(10)}   ratio (better when > 1)`);
for (const [k, g] of results.gateway) {
  const mg = median(g);
  const mk = median(results.kube.get(k) ?? [NaN]);
  const higherIsBetter = k.endsWith('/s');
  const ratio = higherIsBetter ? mg / mk : mk / mg;
  console.log(`${k.padEnd(44)} ${mg.toFixed(1).padStart(10)} ${mk.toFixed(1).padStart(10)}   ${ratio.toFixed(2)}x`);
}
console.log(`${'gateway start to /readyz 200, fresh data dir ms'.padEnd(44)} ${median(coldStarts).toFixed(0).padStart(10)}`);
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
