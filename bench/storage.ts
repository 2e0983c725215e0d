/**
 * Storage benchmark (npx tsx bench/storage.ts): durable creates/sec with 1 and 64 concurrent
 * writers for sqlite and etcd, the disk's raw fsync rate, watch-cache list and fan-out cost,
 * and memory per idle watcher. Each phase is time-boxed so the whole run stays under a minute.
 */
import { closeSync, fdatasyncSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EtcdStore } from '../src/storage/etcd-store.ts';
import { MemoryStore } from '../src/storage/memory-store.ts';
import { SqliteStore } from '../src/storage/sqlite-store.ts';
import type { Store } from '../src/storage/types.ts';
import { WatchCache } from '../src/storage/watch-cache.ts';
import type { CacheEvent } from '../src/storage/watch-cache.ts';
import { startEtcd } from '../test/storage/etcd-server.ts';

const PHASE_MS = 3000;
const dir = mkdtempSync(join(tmpdir(), 'bench-storage-'));

/** A ConfigMap of about 1 KiB as JSON, as the registry would store it. */
function configMap(ns: string, name: string): Uint8Array {
  const data: Record<string, string> = {};
  for (let i = 0; i < 8; i++) data[`key-${i}`] = `value-${i}-`.padEnd(80, 'x');
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns, uid: '6f1f0c6e-0000-4000-8000-000000000000', labels: { app: 'bench' } },
      data,
    }),
  );
}

/** Small overwrites each followed by fsync (or fdatasync, which sqlite uses), per second. */
function fsyncRate(sync: (fd: number) => void): number {
  const file = join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const buf = Buffer.alloc(512, 1);
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < 1000 && n < 5000) {
    writeSync(fd, buf, 0, buf.length, 0);
    sync(fd);
    n++;
  }
  const secs = (performance.now() - start) / 1000;
  closeSync(fd);
  return n / secs;
}

/** Creates/sec with `writers` concurrent loops, each awaiting its own durable create. */
async function createRate(store: Store, writers: number, tag: string): Promise<number> {
  const value = configMap('bench', 'x');
  const deadline = performance.now() + PHASE_MS;
  let done = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await store.create(`/registry/configmaps/${tag}/w${w}-${i}`, value);
        done++;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function cacheFigures(): Promise<{ listMs: number; listEncodedMs: number; fanoutMs: number; bytesPerWatcher: number }> {
  const store = new MemoryStore({ historyMs: false });
  for (let i = 0; i < 10_000; i++) await store.create(`/registry/configmaps/ns${i % 20}/cm-${i}`, configMap(`ns${i % 20}`, `cm-${i}`));
  const cache = new WatchCache<Record<string, unknown>>({
    store,
    prefix: '/registry/configmaps/',
    decode: (kv) => JSON.parse(Buffer.from(kv.value).toString()) as Record<string, unknown>,
  });
  await cache.start();
  const encodeObj = (o: Record<string, unknown>): Uint8Array => Buffer.from(JSON.stringify(o));
  const listTimes: number[] = [];
  const encodedTimes: number[] = [];
  for (let r = 0; r < 15; r++) {
    let t = performance.now();
    const { entries } = cache.list();
    listTimes.push(performance.now() - t);
    t = performance.now();
    let bytes = 0;
    for (const e of cache.list().entries) bytes += e.encode('json', encodeObj).length;
    encodedTimes.push(performance.now() - t);
    if (entries.length !== 10_000 || bytes === 0) throw new Error('unexpected list result');
  }

  // One event to 1,000 watchers: each watcher takes the shared serialized event.
  const encodeEvent = (ev: CacheEvent<Record<string, unknown>>): Uint8Array =>
    Buffer.from(`{"type":"${ev.type}","object":${Buffer.from(ev.entry.encode('json', encodeObj)).toString()}}\n`);
  const fanout: number[] = [];
  for (let round = 0; round < 5; round++) {
    let received = 0;
    let allIn: () => void = () => undefined;
    const done = new Promise<void>((r) => (allIn = r));
    const handles = Array.from({ length: 1000 }, () =>
      cache.watch(
        { fromRevision: cache.revision },
        {
          onEvent: (ev) => {
            if (ev.encode('json', encodeEvent).length > 0 && ++received === 1000) allIn();
          },
          onError: () => undefined,
        },
      ),
    );
    await new Promise((r) => setImmediate(r));
    const cur = cache.get('/registry/configmaps/ns0/cm-0')!;
    const t = performance.now();
    await store.update(cur.key, configMap('ns0', `cm-0-${round}`), cur.modRevision);
    await done;
    fanout.push(performance.now() - t);
    for (const h of handles) h.close();
  }

  // Memory per idle watcher.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  const idle = Array.from({ length: 10_000 }, () =>
    cache.watch({ fromRevision: cache.revision }, { onEvent: () => undefined, onError: () => undefined }),
  );
  await new Promise((r) => setImmediate(r));
  gc();
  const bytesPerWatcher = (process.memoryUsage().heapUsed - before) / idle.length;
  for (const h of idle) h.close();
  cache.stop();
  await store.close();
  return { listMs: median(listTimes), listEncodedMs: median(encodedTimes), fanoutMs: median(fanout), bytesPerWatcher };
}

async function main(): Promise<void> {
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  const fsyncs = fsyncRate(fsyncSync);
  const fdatasyncs = fsyncRate(fdatasyncSync);
  console.log(`disk sync rate (physical limit for one-at-a-time durable writes): fsync ${fmt(fsyncs)}/s, fdatasync ${fmt(fdatasyncs)}/s`);

  const sqlite = SqliteStore.open(join(dir, 'bench.sqlite'), { historyMs: false });
  const sqlite1 = await createRate(sqlite, 1, 's1');
  const sqlite64 = await createRate(sqlite, 64, 's64');
  await sqlite.close();
  console.log(`sqlite durable creates/s: 1 writer ${fmt(sqlite1)}, 64 writers ${fmt(sqlite64)}`);

  const etcd = await startEtcd();
  let etcd1 = 0;
  let etcd64 = 0;
  try {
    const store = await EtcdStore.connect([etcd.endpoint], { historyMs: false });
    etcd1 = await createRate(store, 1, 'e1');
    etcd64 = await createRate(store, 64, 'e64');
    await store.close();
  } finally {
    await etcd.stop();
  }
  console.log(`etcd   durable creates/s: 1 writer ${fmt(etcd1)}, 64 writers ${fmt(etcd64)}`);
  console.log(`sqlite/etcd at 64 writers: ${(sqlite64 / etcd64).toFixed(1)}x`);

  const c = await cacheFigures();
  console.log(`watch cache list of 10,000 ConfigMaps: ${c.listMs.toFixed(2)} ms (with memoized encode of every entry: ${c.listEncodedMs.toFixed(2)} ms)`);
  console.log(`one event to 1,000 watchers (write to last delivery, shared bytes): ${c.fanoutMs.toFixed(2)} ms`);
  console.log(`memory per idle watcher: ${fmt(c.bytesPerWatcher)} bytes`);
}

try {
  await main();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
