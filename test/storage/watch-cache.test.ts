import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { WatchCache } from '../../src/storage/watch-cache.ts';
import type { CacheEvent, CacheWatchListener } from '../../src/storage/watch-cache.ts';
import { StorageError } from '../../src/storage/types.ts';
import type { KeyValue, Store } from '../../src/storage/types.ts';

interface Obj {
  readonly name: string;
  readonly labels: Record<string, string>;
}
const enc = new TextEncoder();
const dec = new TextDecoder();
const P = '/registry/configmaps/';
const obj = (name: string, labels: Record<string, string> = {}): Uint8Array => enc.encode(JSON.stringify({ name, labels }));
const decode = (kv: KeyValue): Obj => JSON.parse(dec.decode(kv.value)) as Obj;

interface Rec {
  events: CacheEvent<Obj>[];
  errors: StorageError[];
  progress: number[];
  listener: CacheWatchListener<Obj>;
}
function rec(): Rec {
  const r: Rec = {
    events: [],
    errors: [],
    progress: [],
    listener: { onEvent: (e) => r.events.push(e), onError: (e) => r.errors.push(e), onProgress: (v) => r.progress.push(v) },
  };
  return r;
}
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
async function setup(opts: { historyMs?: number; maxEvents?: number; now?: () => number; decode?: (kv: KeyValue) => Obj } = {}) {
  const store = new MemoryStore({ historyMs: false, tooLargeWaitMs: 100 });
  cleanups.push(() => store.close());
  await store.create(`${P}ns1/a`, obj('a', { app: 'x' }));
  await store.create(`${P}ns1/b`, obj('b'));
  await store.create(`${P}ns2/c`, obj('c', { app: 'x' }));
  const cache = new WatchCache<Obj>({ store, prefix: P, decode: opts.decode ?? decode, progressIntervalMs: 10, ...opts });
  cleanups.push(() => cache.stop());
  await cache.start();
  return { store, cache };
}

describe('WatchCache', () => {
  it('lists the synced state in key order with paging, prefixes and filters', async () => {
    const { store, cache } = await setup();
    expect(cache.revision).toBe(await store.currentRevision());
    expect(cache.get(`${P}ns1/a`)?.value.name).toBe('a');
    const all = cache.list();
    expect(all.entries.map((e) => e.value.name)).toEqual(['a', 'b', 'c']);
    expect(all.remaining).toBe(0);
    expect(all.nextKey).toBeUndefined();
    const page = cache.list({ limit: 1 });
    expect(page.entries.map((e) => e.value.name)).toEqual(['a']);
    expect(page.remaining).toBe(2);
    expect(page.nextKey).toBe(`${P}ns1/b`);
    const page2 = cache.list({ limit: 1, startKey: page.nextKey });
    expect(page2.entries.map((e) => e.value.name)).toEqual(['b']);
    expect(page2.remaining).toBe(1);
    expect(cache.list({ keyPrefix: `${P}ns1/` }).entries.map((e) => e.key)).toEqual([`${P}ns1/a`, `${P}ns1/b`]);
    expect(cache.list({ filter: (e) => e.value.labels['app'] === 'x' }).entries.map((e) => e.value.name)).toEqual(['a', 'c']);
    const filteredPage = cache.list({ limit: 1, filter: (e) => e.value.labels['app'] === 'x' });
    expect(filteredPage.entries.map((e) => e.value.name)).toEqual(['a']);
    expect(filteredPage.remaining).toBe(2);
  });

  it('follows writes: lists after waitForRevision show the new state at that revision', async () => {
    const { store, cache } = await setup();
    const d = await store.create(`${P}ns1/d`, obj('d'));
    await cache.waitForRevision(d.modRevision);
    expect(cache.list().entries.map((e) => e.value.name)).toEqual(['a', 'b', 'd', 'c']);
    const del = await store.delete(`${P}ns1/a`);
    await cache.waitForRevision(del.modRevision);
    const l = cache.list();
    expect(l.revision).toBe(del.modRevision);
    expect(l.entries.map((e) => e.value.name)).toEqual(['b', 'd', 'c']);
    expect(cache.get(`${P}ns1/a`)).toBeUndefined();
  });

  it('rejects waitForRevision with TooLarge after the timeout and waitUntilFresh follows progress', async () => {
    const { store, cache } = await setup();
    const err = await cache.waitForRevision(cache.revision + 100, 30).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).code).toBe('TooLarge');
    const other = await store.create('/registry/secrets/x', obj('x'));
    const fresh = await cache.waitUntilFresh(2000);
    expect(fresh).toBe(other.modRevision);
    expect(cache.revision).toBeGreaterThanOrEqual(other.modRevision);
  });

  it('watches from a revision: backlog then live, in order, with DELETED carrying the delete revision', async () => {
    const { store, cache } = await setup();
    const start = cache.revision;
    const a = cache.get(`${P}ns1/a`)!;
    const a2 = await store.update(`${P}ns1/a`, obj('a2'), a.modRevision);
    await store.create(`${P}ns2/e`, obj('e'));
    await cache.waitForRevision(await store.currentRevision());
    const r = rec();
    const h = cache.watch({ fromRevision: start }, r.listener);
    await until(() => r.events.length === 2, 'backlog');
    const del = await store.delete(`${P}ns1/b`);
    await until(() => r.events.length === 3, 'live delete');
    h.close();
    expect(r.events.map((e) => [e.type, e.entry.value.name])).toEqual([
      ['MODIFIED', 'a2'],
      ['ADDED', 'e'],
      ['DELETED', 'b'],
    ]);
    expect(r.events[0]!.prev?.value.name).toBe('a');
    expect(r.events[0]!.revision).toBe(a2.modRevision);
    expect(r.events[2]!.entry.modRevision).toBe(del.modRevision);
    expect(r.events[2]!.revision).toBe(del.modRevision);
    const ns = rec();
    const h2 = cache.watch({ fromRevision: start, keyPrefix: `${P}ns2/` }, ns.listener);
    await until(() => ns.events.length === 1, 'prefixed backlog');
    h2.close();
    expect(ns.events[0]!.entry.value.name).toBe('e');
  });

  it('turns filter transitions into ADDED and DELETED', async () => {
    const { store, cache } = await setup();
    const r = rec();
    const h = cache.watch({ fromRevision: cache.revision, filter: (e) => e.value.labels['app'] === 'x' }, r.listener);
    const a = cache.get(`${P}ns1/a`)!;
    const b = cache.get(`${P}ns1/b`)!;
    await store.update(`${P}ns1/a`, obj('a', {}), a.modRevision);
    await store.update(`${P}ns1/b`, obj('b', { app: 'x' }), b.modRevision);
    await store.create(`${P}ns1/z`, obj('z'));
    await until(() => r.events.length === 2, 'transitions');
    h.close();
    expect(r.events.map((e) => [e.type, e.entry.value.name])).toEqual([
      ['DELETED', 'a'],
      ['ADDED', 'b'],
    ]);
  });

  it('sends synthetic ADDED events for fromRevision 0', async () => {
    const { cache } = await setup();
    const r = rec();
    const h = cache.watch({ fromRevision: 0, keyPrefix: `${P}ns1/` }, r.listener);
    await until(() => r.events.length === 2, 'initial events');
    h.close();
    expect(r.events.map((e) => [e.type, e.entry.value.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
  });

  it('fails a watch older than the event window with TooOld (count cap)', async () => {
    const { store, cache } = await setup({ maxEvents: 2 });
    const start = cache.revision;
    for (const n of ['p', 'q', 'r']) await store.create(`${P}ns3/${n}`, obj(n));
    await cache.waitForRevision(await store.currentRevision());
    const r = rec();
    cache.watch({ fromRevision: start }, r.listener);
    await until(() => r.errors.length === 1, 'TooOld');
    expect(r.errors[0]!.code).toBe('TooOld');
    expect(r.errors[0]!.message).toBe(`too old resource version: ${start} (${start + 1})`);
    const ok = rec();
    const h = cache.watch({ fromRevision: start + 1 }, ok.listener);
    await until(() => ok.events.length === 2, 'events within the window');
    h.close();
    expect(ok.errors).toEqual([]);
  });

  it('keeps events for historyMs and drops older ones', async () => {
    let clock = 1_000_000;
    const { store, cache } = await setup({ historyMs: 1000, now: () => clock });
    const start = cache.revision;
    await store.create(`${P}ns3/old`, obj('old'));
    await cache.waitForRevision(start + 1);
    clock += 500;
    const r1 = rec();
    cache.watch({ fromRevision: start }, r1.listener).close();
    clock += 1000;
    await store.create(`${P}ns3/new`, obj('new'));
    await cache.waitForRevision(start + 2);
    const r2 = rec();
    cache.watch({ fromRevision: start }, r2.listener);
    await until(() => r2.errors.length === 1, 'TooOld after the history window');
    expect(r2.errors[0]!.code).toBe('TooOld');
    expect(r1.errors).toEqual([]);
  });

  it('shares one encoding of an event and of an entry between all readers', async () => {
    const { store, cache } = await setup();
    const r1 = rec();
    const r2 = rec();
    const h1 = cache.watch({ fromRevision: cache.revision }, r1.listener);
    const h2 = cache.watch({ fromRevision: cache.revision }, r2.listener);
    await store.create(`${P}ns1/shared`, obj('shared'));
    await until(() => r1.events.length === 1 && r2.events.length === 1, 'both watchers');
    h1.close();
    h2.close();
    let calls = 0;
    const encoder = (ev: CacheEvent<Obj>): Uint8Array => {
      calls++;
      return enc.encode(JSON.stringify({ type: ev.type, object: ev.entry.value }));
    };
    const b1 = r1.events[0]!.encode('json', encoder);
    const b2 = r2.events[0]!.encode('json', encoder);
    expect(b1).toBe(b2);
    expect(calls).toBe(1);
    expect(r1.events[0]!.encode('cbor', encoder)).not.toBe(b1);
    const entryEnc = (o: Obj): Uint8Array => enc.encode(JSON.stringify(o));
    const fromList = cache.list().entries.find((e) => e.value.name === 'shared')!.encode('json', entryEnc);
    expect(r1.events[0]!.entry.encode('json', entryEnc)).toBe(fromList);
  });

  it('keeps an undecodable value as a Corrupt entry instead of failing', async () => {
    const strict = (kv: KeyValue): Obj => {
      const o = decode(kv);
      if (o.name === 'bad') throw new Error('unexpected shape');
      return o;
    };
    const { store, cache } = await setup({ decode: strict });
    const bad = await store.create(`${P}ns1/bad`, obj('bad'));
    await cache.waitForRevision(bad.modRevision);
    const e = cache.get(`${P}ns1/bad`)!;
    expect(e.corrupt?.code).toBe('Corrupt');
    expect(e.corrupt?.key).toBe(`${P}ns1/bad`);
    expect(() => e.value).toThrow(StorageError);
    const listed = cache.list({ filter: (x) => x.value.labels['app'] === 'x' });
    expect(listed.entries.map((x) => x.key)).toEqual([`${P}ns1/a`, `${P}ns1/bad`, `${P}ns2/c`]);
    const good = await store.create(`${P}ns1/good`, obj('good'));
    await cache.waitForRevision(good.modRevision);
    expect(cache.get(`${P}ns1/good`)?.value.name).toBe('good');
  });
});

describe('WatchCache recovery', () => {
  it('closes its watchers with the store error, then relists and serves again', async () => {
    const store = new MemoryStore({ historyMs: false });
    cleanups.push(() => store.close());
    let failWatch: ((err: StorageError) => void) | undefined;
    // The store as the cache sees it, with a way to fail its watch from outside.
    const flaky: Store = {
      backend: 'memory',
      get: (k, o) => store.get(k, o),
      list: (p, o) => store.list(p, o),
      count: (p) => store.count(p),
      create: (k, v) => store.create(k, v),
      update: (k, v, r) => store.update(k, v, r),
      delete: (k, r) => store.delete(k, r),
      watch: (prefix, from, listener) => {
        failWatch = (err) => listener.onError(err);
        return store.watch(prefix, from, listener);
      },
      currentRevision: () => store.currentRevision(),
      compactedRevision: () => store.compactedRevision(),
      compact: (r) => store.compact(r),
      healthCheck: () => store.healthCheck(),
      close: () => store.close(),
    };
    await store.create(`${P}ns1/a`, obj('a'));
    const cache = new WatchCache<Obj>({ store: flaky, prefix: P, decode });
    cleanups.push(() => cache.stop());
    await cache.start();
    const r = rec();
    cache.watch({ fromRevision: cache.revision }, r.listener);
    failWatch!(new StorageError('TooOld', 'compacted'));
    expect(r.errors.map((e) => e.code)).toEqual(['TooOld']);
    const b = await store.create(`${P}ns1/b`, obj('b'));
    await cache.waitForRevision(b.modRevision, 3000);
    expect(cache.list().entries.map((e) => e.value.name)).toEqual(['a', 'b']);
    expect(cache.watcherCount).toBe(0);
  });
});

describe('WatchCache.unchangedSince', () => {
  it('tells whether a prefix is unchanged since a revision', async () => {
    const store = new MemoryStore({ historyMs: false });
    await store.create('/r/a/1', Buffer.from('1'));
    const cache = new WatchCache<string>({ store, prefix: '/r/', decode: (kv) => Buffer.from(kv.value).toString() });
    await cache.start();
    const r1 = await store.currentRevision();
    expect(cache.unchangedSince('/r/a/', r1)).toBe(true);
    await store.create('/r/b/1', Buffer.from('2'));
    await cache.waitUntilFresh();
    expect(cache.unchangedSince('/r/a/', r1)).toBe(true);
    expect(cache.unchangedSince('/r/b/', r1)).toBe(false);
    expect(cache.unchangedSince('/r/a/', (await store.currentRevision()) + 5)).toBe(false);
    cache.stop();
    await store.close();
  });
});
