/**
 * Three gateway processes on one real etcd with Redis Streams watch fanout (issue 17 item 5):
 * writes spread over every replica while watchers on every replica check order, completeness and
 * bookmarks against the acknowledged writes; the pump's replica is SIGKILLed mid-load, Redis is
 * stopped and restarted mid-load, and the checks hold throughout (a watcher may get 410 and relist,
 * never a silent gap). etcd's own watcher count is the same with 1 and with 3 replicas, and the
 * run-once controllers' Lease moves when its holder dies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { startEtcd, type EtcdServer } from '../storage/etcd-server.ts';
import { startRedis, type RedisServer } from '../storage/redis-server.ts';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'kube-gateway.js');

interface Replica {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
  /** The pump identity it logged. */
  readonly identity: string;
  output(): string;
  alive: boolean;
}

let etcd: EtcdServer;
let redis: RedisServer;
let dir: string;
let tls: { ca: Buffer; cert: Buffer; key: Buffer };
const replicas: Replica[] = [];

function startReplica(name: string, dataDir: string): Promise<Replica> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        bin,
        `--etcd-servers=${etcd.endpoint}`,
        `--watch-fanout=${redis.url}`,
        `--data-dir=${dataDir}`,
        '--secure-port=0',
        '--leader-elect-lease-duration=3s',
        '--leader-elect-renew-deadline=2s',
        '--leader-elect-retry-period=500ms',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${out}`)), 60_000);
    const seen = () => {
      const u = /listening on (https:\/\/\S+)/.exec(out);
      const id = /identity is (\S+?)"/.exec(out);
      if (u && id) {
        clearTimeout(timer);
        const r: Replica = { name, child, url: u[1]!, identity: id[1]!, output: () => out, alive: true };
        child.once('exit', () => (r.alive = false));
        resolve(r);
      }
    };
    child.stdout!.on('data', (c: Buffer) => ((out += c.toString()), seen()));
    child.stderr!.on('data', (c: Buffer) => ((out += c.toString()), seen()));
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}): ${out}`)));
  });
}

function request(r: Replica, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${r.url}${path}`, { method, ...tls, headers: { 'content-type': 'application/json' }, timeout: 20_000 }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(data);
        } catch {
          json = data;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

/** A watch of the configmaps of one namespace on one replica that checks order and bookmarks, and relists on 410. */
class Watcher {
  /** name -> resourceVersion of every ADDED seen. */
  readonly added = new Map<string, number>();
  readonly problems: string[] = [];
  relists = 0;
  bookmarks = 0;
  private last = 0;
  private req: ReturnType<typeof https.request> | undefined;
  private stopped = false;
  ended = false;

  constructor(
    readonly replica: Replica,
    private readonly ns: string,
    from: number,
  ) {
    this.open(from);
  }

  private open(from: number): void {
    const path = `/api/v1/namespaces/${this.ns}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${from}&timeoutSeconds=600`;
    const req = https.request(`${this.replica.url}${path}`, { ...tls }, (res) => {
      let buf = '';
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim()) this.onEvent(JSON.parse(line));
        }
      });
      res.on('end', () => (this.ended = true));
      res.on('error', () => (this.ended = true));
    });
    req.on('error', () => (this.ended = true));
    req.end();
    this.req = req;
  }

  private onEvent(ev: { type: string; object: any }): void {
    if (ev.type === 'ERROR') {
      if (ev.object?.code === 410) {
        // Relist (as a reflector does) and watch on from the list; what was missed shows in the list.
        this.relists++;
        this.req?.destroy();
        void request(this.replica, 'GET', `/api/v1/namespaces/${this.ns}/configmaps`).then(({ json }) => {
          for (const item of json.items) this.added.set(item.metadata.name, Number(item.metadata.resourceVersion));
          this.last = Number(json.metadata.resourceVersion);
          if (!this.stopped) this.open(this.last);
        });
        return;
      }
      this.problems.push(`error event ${JSON.stringify(ev.object)}`);
      return;
    }
    const rv = Number(ev.object?.metadata?.resourceVersion);
    if (ev.type === 'BOOKMARK') {
      this.bookmarks++;
      if (rv < this.last) this.problems.push(`bookmark ${rv} after event ${this.last}`);
      this.last = Math.max(this.last, rv);
      return;
    }
    if (!(rv > this.last)) this.problems.push(`${ev.type} at ${rv} after ${this.last}`);
    this.last = rv;
    if (ev.type === 'ADDED') {
      if (this.added.has(ev.object.metadata.name)) this.problems.push(`duplicate ADDED ${ev.object.metadata.name}`);
      this.added.set(ev.object.metadata.name, rv);
    }
  }

  stop(): void {
    this.stopped = true;
    this.req?.destroy();
  }
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function etcdWatchers(): Promise<number> {
  const text = await (await fetch(`${etcd.endpoint}/metrics`)).text();
  const m = /^etcd_debugging_mvcc_watcher_total (\d+)/m.exec(text);
  return Number(m?.[1] ?? NaN);
}

/** Writers creating configmaps through the live replicas in turn; only acknowledged creates count. */
function load(ns: string, tag: string) {
  const acked = new Map<string, number>();
  let running = true;
  let n = 0;
  const writer = async (w: number) => {
    while (running) {
      const live = replicas.filter((r) => r.alive);
      const r = live[n % live.length]!;
      const name = `${tag}-${w}-${n++}`;
      try {
        const res = await request(r, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { w: String(w) } });
        if (res.status === 201) acked.set(name, Number(res.json.metadata.resourceVersion));
      } catch {
        // The replica died under the request: not acknowledged.
      }
    }
  };
  const done = Promise.all([0, 1, 2].map(writer));
  return {
    acked,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

function checkWatchers(watchers: Watcher[], acked: Map<string, number>): void {
  for (const w of watchers) {
    expect(w.problems, w.replica.name).toEqual([]);
    const missing = [...acked].filter(([name, rv]) => w.added.get(name) !== rv).map(([name]) => name);
    expect(missing, `${w.replica.name} missed acknowledged writes`).toEqual([]);
  }
}

beforeAll(async () => {
  [etcd, redis] = await Promise.all([startEtcd(), startRedis()]);
  dir = await mkdtemp(join(tmpdir(), 'scaleout-'));
}, 60_000);

afterAll(async () => {
  for (const r of replicas) if (r.alive) r.child.kill('SIGKILL');
  await Promise.all([etcd?.stop(), redis?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('three replicas on one etcd with Redis Streams fanout', () => {
  it('keeps every watch property through a pump SIGKILL and a Redis restart; etcd watchers do not grow with replicas', async () => {
    const first = await startReplica('r0', join(dir, 'r0'));
    replicas.push(first);
    tls = {
      ca: await readFile(join(dir, 'r0', 'ca.crt')),
      cert: await readFile(join(dir, 'r0', 'admin.crt')),
      key: await readFile(join(dir, 'r0', 'admin.key')),
    };
    // Certificates and keys are shared by configuration: the same CA and service-account key in every data dir.
    for (const name of ['r1', 'r2']) {
      await mkdir(join(dir, name), { recursive: true });
      for (const f of ['ca.crt', 'ca.key', 'sa.key']) await copyFile(join(dir, 'r0', f), join(dir, name, f));
    }
    await until('r0 pumps on every stream', async () => (await request(first, 'GET', '/readyz?verbose')).json.includes?.(' 0 etcd directly') === true);
    await new Promise((r) => setTimeout(r, 1000));
    const withOne = await etcdWatchers();
    replicas.push(await startReplica('r1', join(dir, 'r1')), await startReplica('r2', join(dir, 'r2')));
    for (const r of replicas) await until(`${r.name} on the streams`, async () => /read Redis streams, 0 etcd directly/.test(String((await request(r, 'GET', '/readyz?verbose')).json)));
    await new Promise((r) => setTimeout(r, 1000));
    expect(await etcdWatchers()).toBe(withOne);

    const ns = 'load';
    expect((await request(first, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
    // A consistent read on every replica sees the namespace another replica just created.
    for (const r of replicas) expect((await request(r, 'GET', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    const from = Number((await request(replicas[1]!, 'GET', `/api/v1/namespaces/${ns}/configmaps`)).json.metadata.resourceVersion);
    const watchers = replicas.flatMap((r) => [new Watcher(r, ns, from), new Watcher(r, ns, from)]);

    // Phase 1: load, then SIGKILL the replica pumping configmaps.
    const writes = load(ns, 'a');
    await until('some load', () => writes.acked.size >= 60);
    const keyOf = `kube-gateway:{/registry/configmaps/}:pump`;
    const holderId = await redisGet(keyOf);
    const pump = replicas.find((r) => r.identity === holderId);
    expect(pump, `the pump ${holderId} is one of the replicas`).toBeDefined();
    pump!.child.kill('SIGKILL');
    await until('the pump replica exited', () => !pump!.alive);
    const survivors = () => watchers.filter((w) => w.replica.alive);
    await until('more load after the kill', () => writes.acked.size >= 200, 60_000);
    // The pump moved to a survivor within a few seconds.
    await until('a new pump', async () => {
      const id = await redisGet(keyOf);
      return replicas.some((r) => r.alive && r.identity === id);
    }, 15_000);

    // Phase 2: Redis stopped and restarted mid-load.
    await redis.stop('SIGTERM');
    await until('more load while Redis is down', () => writes.acked.size >= 300, 60_000);
    const live = replicas.filter((r) => r.alive);
    expect(String((await request(live[0]!, 'GET', '/readyz?verbose')).json)).toMatch(/\[\+\]watch-fanout ok \(Redis at .* unreachable/);
    await redis.start();
    await until('more load after Redis is back', () => writes.acked.size >= 400, 60_000);
    await writes.stop();
    await until('watchers caught up', () => survivors().every((w) => [...writes.acked].every(([n, rv]) => w.added.get(n) === rv)), 30_000).catch(() => undefined);
    checkWatchers(survivors(), writes.acked);
    for (const w of survivors()) expect(w.ended, `${w.replica.name} watch still open`).toBe(false);
    // Bookmarks reached watchers of every surviving replica.
    await until('bookmarks', () => survivors().every((w) => w.bookmarks > 0), 90_000);
    for (const r of live) await until(`${r.name} back on the streams`, async () => /read Redis streams, 0 etcd directly/.test(String((await request(r, 'GET', '/readyz?verbose')).json)));
    // The controllers' Lease is held by a live replica (it moved if its holder was the one killed).
    await until('the controllers lease on a live replica', async () => {
      const lease = (await request(live[0]!, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-gateway-controllers')).json;
      const out = live.map((r) => r.output()).join('\n');
      return typeof lease?.spec?.holderIdentity === 'string' && out.includes(`${lease.spec.holderIdentity} acquired lease`);
    }, 20_000);
    for (const w of watchers) w.stop();
  }, 400_000);
});

/** One GET against the test's Redis with a throwaway connection. */
async function redisGet(key: string): Promise<string | null> {
  const { createClient } = await import('redis');
  const c = createClient({ url: redis.url });
  c.on('error', () => {});
  await c.connect();
  try {
    return await c.get(key);
  } finally {
    c.destroy();
  }
}
