/**
 * The one contract every Store backend passes. Call `storeContract(name, factory)` from a test
 * file; the factory returns a store with a short TooLarge wait and no background compactor.
 * Tests use unique key prefixes and relative revisions, so one server may serve them all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isStorageError } from '../../src/storage/types.ts';
import type { KeyValue, Store, StorageError, WatchEvent } from '../../src/storage/types.ts';

export type StoreFactory = () => Promise<Store>;

const enc = new TextEncoder();
const dec = new TextDecoder();
const bytes = (s: string): Uint8Array => enc.encode(s);
const text = (kv: KeyValue | null | undefined): string | undefined => (kv ? dec.decode(kv.value) : undefined);

let unique = 0;
/** A prefix no other test (or earlier run against the same server) uses. */
function freshPrefix(): string {
  return `/registry/contract/${process.pid}-${Date.now().toString(36)}-${unique++}/`;
}

async function expectCode(p: Promise<unknown>, code: StorageError['code']): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    if (isStorageError(err, code)) return err;
    throw new Error(`expected StorageError ${code}, got ${String(err)}`);
  }
  throw new Error(`expected StorageError ${code}, got success`);
}

interface Recorder {
  readonly events: WatchEvent[];
  readonly progress: number[];
  readonly errors: StorageError[];
  readonly listener: { onEvents(e: readonly WatchEvent[]): void; onProgress(r: number): void; onError(e: StorageError): void };
}

function recorder(): Recorder {
  const events: WatchEvent[] = [];
  const progress: number[] = [];
  const errors: StorageError[] = [];
  return {
    events,
    progress,
    errors,
    listener: { onEvents: (e) => events.push(...e), onProgress: (r) => progress.push(r), onError: (e) => errors.push(e) },
  };
}

async function until(cond: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function storeContract(name: string, factory: StoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    const open: Store[] = [];
    const newStore = async (): Promise<Store> => {
      const s = await factory();
      open.push(s);
      return s;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('creates, gets and refuses to create an existing key', async () => {
      const s = await newStore();
      const p = freshPrefix();
      const before = await s.currentRevision();
      const kv = await s.create(`${p}a`, bytes('one'));
      expect(kv.modRevision).toBeGreaterThan(before);
      expect(kv.createRevision).toBe(kv.modRevision);
      expect(await s.currentRevision()).toBe(kv.modRevision);
      const got = await s.get(`${p}a`);
      expect(text(got)).toBe('one');
      expect(got?.modRevision).toBe(kv.modRevision);
      expect(await s.get(`${p}missing`)).toBeNull();
      const err = await expectCode(s.create(`${p}a`, bytes('two')), 'KeyExists');
      expect(err.key).toBe(`${p}a`);
      expect(text(await s.get(`${p}a`))).toBe('one');
    });

    it('updates by compare-and-swap and reports conflicts with the current value', async () => {
      const s = await newStore();
      const p = freshPrefix();
      const a = await s.create(`${p}a`, bytes('v1'));
      const b = await s.update(`${p}a`, bytes('v2'), a.modRevision);
      expect(b.modRevision).toBeGreaterThan(a.modRevision);
      expect(b.createRevision).toBe(a.createRevision);
      const err = await expectCode(s.update(`${p}a`, bytes('v3'), a.modRevision), 'Conflict');
      expect(err.current?.modRevision).toBe(b.modRevision);
      expect(text(err.current)).toBe('v2');
      await expectCode(s.update(`${p}nope`, bytes('x'), 1), 'NotFound');
      expect(text(await s.get(`${p}a`))).toBe('v2');
    });

    it('lets exactly one of two concurrent compare-and-swaps win', async () => {
      const s = await newStore();
      const p = freshPrefix();
      const a = await s.create(`${p}a`, bytes('v1'));
      const results = await Promise.allSettled([
        s.update(`${p}a`, bytes('left'), a.modRevision),
        s.update(`${p}a`, bytes('right'), a.modRevision),
        s.create(`${p}b`, bytes('other')),
      ]);
      const won = results.slice(0, 2).filter((r) => r.status === 'fulfilled');
      const lost = results.slice(0, 2).filter((r) => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(isStorageError((lost[0] as PromiseRejectedResult).reason, 'Conflict')).toBe(true);
      expect(results[2]!.status).toBe('fulfilled');
    });

    it('deletes with and without preconditions', async () => {
      const s = await newStore();
      const p = freshPrefix();
      const a = await s.create(`${p}a`, bytes('gone'));
      await expectCode(s.delete(`${p}a`, a.modRevision + 1000), 'Conflict');
      const del = await s.delete(`${p}a`, a.modRevision);
      expect(text(del)).toBe('gone');
      expect(del.modRevision).toBeGreaterThan(a.modRevision);
      expect(del.createRevision).toBe(a.createRevision);
      expect(await s.currentRevision()).toBe(del.modRevision);
      expect(await s.get(`${p}a`)).toBeNull();
      await expectCode(s.delete(`${p}a`), 'NotFound');
      const again = await s.create(`${p}a`, bytes('back'));
      expect(again.createRevision).toBe(again.modRevision);
      await s.delete(`${p}a`);
    });

    it('lists in key order with paging, remaining and a fixed snapshot', async () => {
      const s = await newStore();
      const p = freshPrefix();
      for (const k of ['e', 'b', 'd', 'a', 'c']) await s.create(`${p}${k}`, bytes(k));
      await s.create(`${p.slice(0, -1)}x/outside`, bytes('no'));
      expect(await s.count(p)).toBe(5);
      const all = await s.list(p);
      expect(all.kvs.map((kv) => kv.key)).toEqual(['a', 'b', 'c', 'd', 'e'].map((k) => `${p}${k}`));
      expect(all.remaining).toBe(0);
      const page1 = await s.list(p, { limit: 2 });
      expect(page1.kvs.map(text)).toEqual(['a', 'b']);
      expect(page1.remaining).toBe(3);
      // Writes between pages must not show in later pages read at the first page's revision.
      await s.create(`${p}bb`, bytes('bb'));
      await s.delete(`${p}d`);
      const page2 = await s.list(p, { limit: 2, startKey: `${page1.kvs[1]!.key}\0`, revision: page1.revision });
      expect(page2.revision).toBe(page1.revision);
      expect(page2.kvs.map(text)).toEqual(['c', 'd']);
      expect(page2.remaining).toBe(1);
      const page3 = await s.list(p, { limit: 2, startKey: `${page2.kvs[1]!.key}\0`, revision: page1.revision });
      expect(page3.kvs.map(text)).toEqual(['e']);
      expect(page3.remaining).toBe(0);
      const now = await s.list(p);
      expect(now.kvs.map(text)).toEqual(['a', 'b', 'bb', 'c', 'e']);
      expect(now.revision).toBe(await s.currentRevision());
    });

    it('reads a key and a list as of an older revision', async () => {
      const s = await newStore();
      const p = freshPrefix();
      const a1 = await s.create(`${p}a`, bytes('1'));
      const a2 = await s.update(`${p}a`, bytes('2'), a1.modRevision);
      const del = await s.delete(`${p}a`);
      expect(text(await s.get(`${p}a`, { revision: a1.modRevision }))).toBe('1');
      expect(text(await s.get(`${p}a`, { revision: a2.modRevision }))).toBe('2');
      expect(await s.get(`${p}a`, { revision: del.modRevision })).toBeNull();
      expect(await s.get(`${p}a`, { revision: a1.modRevision - 1 })).toBeNull();
      const old = await s.list(p, { revision: a2.modRevision });
      expect(old.revision).toBe(a2.modRevision);
      expect(old.kvs.map(text)).toEqual(['2']);
      expect((await s.list(p)).kvs).toEqual([]);
    });

    it('fails a read ahead of the store with TooLarge after the bounded wait', async () => {
      const s = await newStore();
      const cur = await s.currentRevision();
      const err = await expectCode(s.get('/registry/contract/x', { revision: cur + 1000 }), 'TooLarge');
      expect(err.revision).toBeGreaterThanOrEqual(cur);
      await expectCode(s.list('/registry/contract/', { revision: cur + 1000 }), 'TooLarge');
    });

    it('watches from a revision in order with previous values, then live', async () => {
      const s = await newStore();
      const p = freshPrefix();
      // fromRevision 0 means "from now", so start from a real revision.
      const start = (await s.create(`/registry/contract-elsewhere/${unique++}`, bytes('x'))).modRevision;
      const a = await s.create(`${p}a`, bytes('1'));
      await s.create(`/registry/contract-elsewhere/${unique++}`, bytes('x'));
      const a2 = await s.update(`${p}a`, bytes('2'), a.modRevision);
      await s.create(`${p}b`, bytes('b'));
      await s.delete(`${p}a`);
      const rec = recorder();
      const h = s.watch(p, start, rec.listener);
      await until(() => rec.events.length >= 4, 'catch-up events');
      const c = await s.create(`${p}c`, bytes('live'));
      await until(() => rec.events.length >= 5, 'live event');
      h.close();
      expect(rec.errors).toEqual([]);
      expect(rec.events.map((e) => [e.type, e.kv.key.slice(p.length), text(e.kv), text(e.prevKv)])).toEqual([
        ['create', 'a', '1', undefined],
        ['update', 'a', '2', '1'],
        ['create', 'b', 'b', undefined],
        ['delete', 'a', '2', '2'],
        ['create', 'c', 'live', undefined],
      ]);
      const revs = rec.events.map((e) => e.kv.modRevision);
      expect([...revs].sort((x, y) => x - y)).toEqual(revs);
      expect(new Set(revs).size).toBe(revs.length);
      expect(rec.events[1]!.prevKv?.modRevision).toBe(a.modRevision);
      expect(rec.events[3]!.prevKv?.modRevision).toBe(a2.modRevision);
      expect(rec.events[4]!.kv.modRevision).toBe(c.modRevision);
      const fromMiddle = recorder();
      const h2 = s.watch(p, a2.modRevision, fromMiddle.listener);
      await until(() => fromMiddle.events.length >= 3, 'events after a middle revision');
      h2.close();
      expect(fromMiddle.events.map((e) => e.type)).toEqual(['create', 'delete', 'create']);
    });

    it('tells a watcher the store revision when nothing happens under its prefix', async () => {
      const s = await newStore();
      const p = freshPrefix();
      const rec = recorder();
      const h = s.watch(p, await s.currentRevision(), rec.listener);
      const other = await s.create(`/registry/contract-elsewhere/${unique++}`, bytes('x'));
      await until(() => rec.progress.some((r) => r >= other.modRevision), 'progress notification', 15_000);
      h.close();
      expect(rec.events).toEqual([]);
    });

    it('keeps key order and one entry per key across creates between lists, deletes, compaction and re-creation', async () => {
      const s = await newStore();
      const p = freshPrefix();
      const keys = ['m', 'c', 'x', 'a', 'q', 'b', 'z', 'k'];
      const seen: string[] = [];
      for (const k of keys) {
        await s.create(`${p}${k}`, bytes(k));
        seen.push(k);
        // Every other create is followed by a list: new keys merged between writes and reads.
        if (seen.length % 2 === 0) expect((await s.list(p)).kvs.map(text)).toEqual([...seen].sort());
      }
      const c = await s.get(`${p}c`);
      const gone = await s.delete(`${p}c`, c!.modRevision);
      await s.compact(gone.modRevision);
      await s.create(`${p}c`, bytes('c2'));
      await s.create(`${p}d`, bytes('d'));
      expect((await s.list(p)).kvs.map(text)).toEqual(['a', 'b', 'c2', 'd', 'k', 'm', 'q', 'x', 'z']);
      expect(await s.count(p)).toBe(9);
      const page = await s.list(p, { limit: 3, startKey: `${p}c` });
      expect(page.kvs.map(text)).toEqual(['c2', 'd', 'k']);
      expect(page.remaining).toBe(4);
    });

    it('compacts history: old reads and watches fail with TooOld, newer ones still work', async () => {
      const s = await newStore();
      const p = freshPrefix();
      const a = await s.create(`${p}a`, bytes('1'));
      const a2 = await s.update(`${p}a`, bytes('2'), a.modRevision);
      await s.create(`${p}b`, bytes('b'));
      const a3 = await s.update(`${p}a`, bytes('3'), a2.modRevision);
      await s.compact(a3.modRevision);
      expect(s.compactedRevision()).toBeGreaterThanOrEqual(a3.modRevision);
      const err = await expectCode(s.get(`${p}a`, { revision: a2.modRevision }), 'TooOld');
      expect(err.revision).toBeGreaterThanOrEqual(a3.modRevision);
      await expectCode(s.list(p, { revision: a.modRevision }), 'TooOld');
      expect(text(await s.get(`${p}a`, { revision: a3.modRevision }))).toBe('3');
      expect((await s.list(p, { revision: a3.modRevision })).kvs.map(text)).toEqual(['3', 'b']);
      const rec = recorder();
      const h = s.watch(p, a.modRevision, rec.listener);
      await until(() => rec.errors.length > 0, 'TooOld watch error');
      h.close();
      expect(rec.errors[0]!.code).toBe('TooOld');
      expect(rec.events).toEqual([]);
      const ok = recorder();
      const h2 = s.watch(p, a3.modRevision, ok.listener);
      const b2 = await s.update(`${p}b`, bytes('b2'), (await s.get(`${p}b`))!.modRevision);
      await until(() => ok.events.length >= 1, 'watch after compaction');
      h2.close();
      expect(ok.errors).toEqual([]);
      expect(ok.events[0]!.kv.modRevision).toBe(b2.modRevision);
      await s.compact(a.modRevision);
      expect(s.compactedRevision()).toBeGreaterThanOrEqual(a3.modRevision);
    });

    it('answers health checks', async () => {
      const s = await newStore();
      await expect(s.healthCheck()).resolves.toBeUndefined();
    });
  });
}
