/**
 * One cache per resource-type prefix: the current state in memory (keys kept sorted for fast
 * paged lists) plus a window of recent events, fed by store.watch. Lists and watches are served
 * from memory; entries and events memoize their encodings so bytes are shared by all readers.
 */
import { Entry, Event } from './cache-entries.ts';
import type { CachedEntry, CacheEvent, CacheEventType } from './cache-entries.ts';
import { DEFAULT_HISTORY_MS } from './compactor.ts';
import { corruptObject } from './errors.ts';
import { lowerBound, prefixEnd } from './keys.ts';
import { RevisionWaiter } from './revision-waiter.ts';
import { StorageError, isStorageError } from './types.ts';
import type { KeyValue, Store, WatchEvent, WatchHandle } from './types.ts';

export type { CachedEntry, CacheEvent, CacheEventType } from './cache-entries.ts';

export interface CacheWatchListener<T> {
  onEvent(ev: CacheEvent<T>): void;
  onProgress?(revision: number): void;
  onError(err: StorageError): void;
  /** The cache stopped for good (its resource type is no longer served): the watch ends cleanly. */
  onClose?(): void;
}

export interface WatchCacheOptions<T> {
  readonly store: Store;
  readonly prefix: string;
  readonly decode: (kv: KeyValue) => T;
  /** Minimum age of events kept in the window (default 5 minutes), unless maxEvents is hit first. */
  readonly historyMs?: number;
  /** Upper bound on events kept (default 100,000). */
  readonly maxEvents?: number;
  /** At most one progress notification per this many ms to the cache's watchers (default 1000). */
  readonly progressIntervalMs?: number;
  /** Clock, for tests. */
  readonly now?: () => number;
}

export interface CacheListOptions<T> {
  readonly keyPrefix?: string;
  readonly startKey?: string;
  readonly limit?: number;
  readonly filter?: (e: CachedEntry<T>) => boolean;
}

export interface CacheListResult<T> {
  readonly entries: CachedEntry<T>[];
  readonly revision: number;
  readonly remaining: number;
  readonly nextKey?: string;
}

export interface CacheWatchOptions<T> {
  /** Events after this revision; 0 means: synthetic ADDED events for the current state, then changes. */
  readonly fromRevision: number;
  readonly keyPrefix?: string;
  readonly filter?: (e: CachedEntry<T>) => boolean;
}

/**
 * One watcher of the cache, and its own handle: a class, so that each of many idle watches costs
 * one object rather than an object, a handle and a closure over both.
 */
class CacheWatcher<T> {
  /** While non-null, the backlog is not yet delivered and live events queue behind it. */
  pending: CacheEvent<T>[] | null = [];
  closed = false;
  constructor(
    private readonly cache: WatchCache<T>,
    readonly keyPrefix: string,
    readonly filter: ((e: CachedEntry<T>) => boolean) | undefined,
    readonly listener: CacheWatchListener<T>,
    /** Events at or below this revision are not delivered (the watch start). */
    readonly after: number,
  ) {}

  close(): void {
    this.cache.closeWatcher(this);
  }
}

export class WatchCache<T> {
  private readonly store: Store;
  private readonly prefix: string;
  private readonly decode: (kv: KeyValue) => T;
  private readonly historyMs: number;
  private readonly maxEvents: number;
  private readonly progressIntervalMs: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, Entry<T>>();
  private keys: string[] = [];
  private window: Event<T>[] = [];
  private windowHead = 0;
  /** Every event with a revision above this is in the window. */
  private windowStart = 0;
  private rev = 0;
  /** The revision of the last event under the prefix (not moved by progress of other keys). */
  private lastEventRev = 0;
  private readonly watchers = new Set<CacheWatcher<T>>();
  private readonly waiter = new RevisionWaiter();
  private storeWatch: WatchHandle | undefined;
  private stopped = false;
  private lastProgressAt = 0;
  private progressTimer: NodeJS.Timeout | undefined;

  constructor(opts: WatchCacheOptions<T>) {
    this.store = opts.store;
    this.prefix = opts.prefix;
    this.decode = opts.decode;
    this.historyMs = opts.historyMs ?? DEFAULT_HISTORY_MS;
    this.maxEvents = opts.maxEvents ?? 100_000;
    this.progressIntervalMs = opts.progressIntervalMs ?? 1000;
    this.now = opts.now ?? Date.now;
  }

  /** Lists the prefix and starts watching from that revision; resolves when synced. */
  async start(): Promise<void> {
    const listed = await this.store.list(this.prefix);
    if (this.stopped) return;
    this.entries.clear();
    for (const kv of listed.kvs) this.entries.set(kv.key, this.entryOf(kv));
    this.keys = listed.kvs.map((kv) => kv.key);
    this.window = [];
    this.windowHead = 0;
    this.windowStart = listed.revision;
    this.rev = Math.max(this.rev, listed.revision);
    this.lastEventRev = Math.max(this.lastEventRev, listed.revision);
    this.storeWatch = this.store.watch(this.prefix, listed.revision, {
      onEvents: (evs) => this.apply(evs),
      onProgress: (r) => this.progress(r),
      onError: (err) => this.restart(err),
    });
    this.waiter.advance(this.rev);
  }

  /** The revision the cache is synced to. */
  get revision(): number {
    return this.rev;
  }

  /**
   * The revision of the last change under the prefix seen since start (the listed revision
   * before any): what kube's cacher calls its last processed resource version, which periodic
   * watch bookmarks carry.
   */
  get lastEventRevision(): number {
    return this.lastEventRev;
  }

  /**
   * Whether the current contents under `keyPrefix` are exactly the store's contents at
   * `revision`: the cache is synced past it and its window proves no key under the prefix
   * changed after it. Lets a paged list read later pages of an old snapshot from memory.
   */
  unchangedSince(keyPrefix: string, revision: number): boolean {
    if (revision > this.rev || revision < this.windowStart) return false;
    for (let i = this.windowIndexAfter(revision); i < this.window.length; i++) {
      if (this.window[i]!.entry.key.startsWith(keyPrefix)) return false;
    }
    return true;
  }

  /** The current entry for a key (may be corrupt; check `corrupt`). */
  get(key: string): CachedEntry<T> | undefined {
    return this.entries.get(key);
  }

  /** Resolves once synced to >= rev; rejects StorageError 'TooLarge' after timeoutMs (default 3000). */
  waitForRevision(rev: number, timeoutMs = 3000): Promise<void> {
    return this.waiter.wait(rev, timeoutMs);
  }

  /**
   * Consistent read: reads store.currentRevision() and waits until synced to it; returns that
   * revision. While it waits, the store is asked for progress notifications every 100 ms (as
   * kube's cacher does), so an idle prefix proves itself fresh without a read from the store.
   */
  async waitUntilFresh(timeoutMs = 3000): Promise<number> {
    const rev = await this.store.currentRevision();
    if (rev <= this.rev || !this.store.requestWatchProgress) {
      await this.waitForRevision(rev, timeoutMs);
      return rev;
    }
    this.store.requestWatchProgress();
    const again = setInterval(() => this.store.requestWatchProgress?.(), 100);
    try {
      await this.waitForRevision(rev, timeoutMs);
    } finally {
      clearInterval(again);
    }
    return rev;
  }

  /** Entries under keyPrefix in key order from startKey, at most limit, filtered; remaining counts all keys after the last returned. */
  list(opts: CacheListOptions<T> = {}): CacheListResult<T> {
    const keyPrefix = opts.keyPrefix ?? this.prefix;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const filter = opts.filter;
    const from = opts.startKey !== undefined && opts.startKey > keyPrefix ? opts.startKey : keyPrefix;
    const end = prefixEnd(keyPrefix);
    const stop = end ? lowerBound(this.keys, end) : this.keys.length;
    const entries: CachedEntry<T>[] = [];
    let i = lowerBound(this.keys, from);
    for (; i < stop && entries.length < limit; i++) {
      const e = this.entries.get(this.keys[i]!)!;
      if (!filter || passes(filter, e)) entries.push(e);
    }
    const remaining = stop - i;
    return remaining > 0
      ? { entries, revision: this.rev, remaining, nextKey: this.keys[i]! }
      : { entries, revision: this.rev, remaining: 0 };
  }

  /** Events with revision > fromRevision, then live ones; a start older than the window gets onError TooOld. */
  watch(opts: CacheWatchOptions<T>, listener: CacheWatchListener<T>): { close(): void } {
    const keyPrefix = opts.keyPrefix ?? this.prefix;
    const filter = opts.filter;
    const after = opts.fromRevision > 0 ? opts.fromRevision : this.rev;
    const w = new CacheWatcher(this, keyPrefix, filter, listener, after);
    const handle: { close(): void } = w;
    if (this.stopped) {
      queueMicrotask(() => listener.onError(new StorageError('Unavailable', 'watch cache is stopped')));
      return handle;
    }
    if (opts.fromRevision > 0 && opts.fromRevision < this.windowStart) {
      const err = new StorageError(
        'TooOld',
        `too old resource version: ${opts.fromRevision} (${this.windowStart})`,
        undefined,
        undefined,
        this.windowStart + 1,
      );
      queueMicrotask(() => listener.onError(err));
      return handle;
    }
    if (opts.fromRevision === 0) {
      for (const e of this.list({ keyPrefix, filter }).entries) w.pending!.push(new Event('ADDED', e, undefined, e.modRevision));
    } else {
      for (let i = this.windowIndexAfter(after); i < this.window.length; i++) {
        const ev = this.forWatcher(w, this.window[i]!);
        if (ev) w.pending!.push(ev);
      }
    }
    this.watchers.add(w);
    // The backlog goes out from a microtask so the caller holds the handle first; live events queue behind it.
    queueMicrotask(() => {
      const backlog = w.pending ?? [];
      w.pending = null;
      for (const ev of backlog) if (!this.deliver(w, ev)) return;
    });
    return handle;
  }

  /** Stops watching the store and closes every watcher (without an error). */
  stop(): void {
    this.stopped = true;
    this.storeWatch?.close();
    this.storeWatch = undefined;
    if (this.progressTimer) clearTimeout(this.progressTimer);
    this.waiter.clear();
    const closing = [...this.watchers];
    for (const w of closing) w.closed = true;
    this.watchers.clear();
    for (const w of closing) w.listener.onClose?.();
  }

  /** How many watchers are attached. */
  get watcherCount(): number {
    return this.watchers.size;
  }

  private entryOf(kv: KeyValue): Entry<T> {
    try {
      return new Entry(kv.key, this.decode(kv), kv.createRevision, kv.modRevision);
    } catch (err) {
      const corrupt = isStorageError(err, 'Corrupt') ? err : corruptObject(kv.key, err);
      return new Entry<T>(kv.key, undefined, kv.createRevision, kv.modRevision, corrupt);
    }
  }

  private apply(evs: readonly WatchEvent[]): void {
    if (this.stopped) return;
    const at = this.now();
    for (const ev of evs) {
      if (ev.kv.modRevision <= this.rev) continue;
      const key = ev.kv.key;
      const prev = this.entries.get(key);
      let type: CacheEventType;
      let entry: Entry<T>;
      if (ev.type === 'delete') {
        type = 'DELETED';
        entry = prev ? prev.atRevision(ev.kv.modRevision) : this.entryOf(ev.kv);
        if (prev) {
          this.entries.delete(key);
          this.keys.splice(lowerBound(this.keys, key), 1);
        }
      } else {
        type = prev ? 'MODIFIED' : 'ADDED';
        entry = this.entryOf(ev.kv);
        if (!prev) this.keys.splice(lowerBound(this.keys, key), 0, key);
        this.entries.set(key, entry);
      }
      const event = new Event<T>(type, entry, prev, ev.kv.modRevision, at);
      this.window.push(event);
      this.rev = event.revision;
      this.lastEventRev = event.revision;
      for (const w of this.watchers) {
        const out = this.forWatcher(w, event);
        if (!out) continue;
        if (w.pending) w.pending.push(out);
        else this.deliver(w, out);
      }
    }
    this.evict(at);
    this.waiter.advance(this.rev);
  }

  /** The event as `w` should see it: filtered by prefix and start, with filter transitions turned into ADDED/DELETED. */
  private forWatcher(w: CacheWatcher<T>, ev: Event<T>): CacheEvent<T> | undefined {
    if (ev.revision <= w.after || !ev.entry.key.startsWith(w.keyPrefix)) return undefined;
    if (!w.filter) return ev;
    const now = ev.type !== 'DELETED' && passes(w.filter, ev.entry);
    const before = ev.prev !== undefined && passes(w.filter, ev.prev);
    if (ev.type === 'DELETED') return before ? ev : undefined;
    if (now && (before || ev.type === 'ADDED')) return ev;
    if (now) return new Event('ADDED', ev.entry, ev.prev, ev.revision, ev.at);
    // Moved out of the filter: "deleted" as its previous, still matching state (kube's cacheWatcher).
    if (before) return new Event('DELETED', ev.prev instanceof Entry ? ev.prev.atRevision(ev.revision) : ev.prev!, ev.prev, ev.revision, ev.at);
    return undefined;
  }

  private deliver(w: CacheWatcher<T>, ev: CacheEvent<T>): boolean {
    if (w.closed) return false;
    try {
      w.listener.onEvent(ev);
      return true;
    } catch (err) {
      this.closeWatcher(w);
      queueMicrotask(() => console.error('watch cache listener threw; watcher closed:', err));
      return false;
    }
  }

  /** Detaches a watcher (its handle's close). */
  closeWatcher(w: CacheWatcher<T>): void {
    w.closed = true;
    this.watchers.delete(w);
  }

  private evict(now: number): void {
    const cutoff = now - this.historyMs;
    while (this.windowHead < this.window.length) {
      const oldest = this.window[this.windowHead]!;
      if (this.window.length - this.windowHead <= this.maxEvents && oldest.at >= cutoff) break;
      this.windowStart = oldest.revision;
      this.windowHead++;
    }
    if (this.windowHead > 1024 && this.windowHead * 2 > this.window.length) {
      this.window = this.window.slice(this.windowHead);
      this.windowHead = 0;
    }
  }

  /** Index of the first window event with revision > `revision`. */
  private windowIndexAfter(revision: number): number {
    let lo = this.windowHead;
    let hi = this.window.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.window[mid]!.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private progress(revision: number): void {
    if (this.stopped || revision <= this.rev) return;
    this.rev = revision;
    this.waiter.advance(revision);
    this.scheduleProgress();
  }

  /** Forwards the revision to watchers at most once per progressIntervalMs (trailing). */
  private scheduleProgress(): void {
    if (this.progressTimer) return;
    const wait = Math.max(0, this.lastProgressAt + this.progressIntervalMs - this.now());
    this.progressTimer = setTimeout(() => {
      this.progressTimer = undefined;
      this.lastProgressAt = this.now();
      const rev = this.rev;
      for (const w of this.watchers) {
        if (w.pending || w.closed || !w.listener.onProgress) continue;
        try {
          w.listener.onProgress(rev);
        } catch {
          this.closeWatcher(w);
        }
      }
    }, wait);
    this.progressTimer.unref();
  }

  /** The store watch failed: close every watcher with the error, then relist and rewatch. */
  private restart(err: StorageError): void {
    if (this.stopped) return;
    this.storeWatch = undefined;
    for (const w of this.watchers) {
      w.closed = true;
      try {
        w.listener.onError(err);
      } catch {
        // the watcher is gone either way
      }
    }
    this.watchers.clear();
    const retry = (): void => {
      if (this.stopped) return;
      this.start().catch(() => setTimeout(retry, 1000).unref());
    };
    setTimeout(retry, 100).unref();
  }
}

function passes<T>(filter: (e: CachedEntry<T>) => boolean, e: CachedEntry<T>): boolean {
  try {
    return filter(e);
  } catch {
    // A corrupt entry cannot be filtered on; it is delivered so the registry sees the corruption.
    return e.corrupt !== undefined;
  }
}
