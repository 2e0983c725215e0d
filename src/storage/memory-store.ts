/**
 * In-memory multi-version store with the same semantics as the sqlite and etcd stores
 * (one global revision, compare-and-swap, history, compaction, ordered watch). For tests.
 */
import { Compactor } from './compactor.ts';
import { conflict, keyExists, keyNotFound, tooLarge, tooOld } from './errors.ts';
import { lowerBound, listStart } from './keys.ts';
import { RevisionWaiter } from './revision-waiter.ts';
import { StorageError } from './types.ts';
import type {
  GetOptions,
  KeyValue,
  ListOptions,
  ListResult,
  Store,
  WatchEvent,
  WatchHandle,
  WatchListener,
} from './types.ts';
import { WatchHub } from './watch-hub.ts';

export interface MemoryStoreOptions {
  /** How long a read at a future revision waits before failing with TooLarge (default 3000 ms). */
  readonly tooLargeWaitMs?: number;
  /** History kept before background compaction (default 5 minutes); `false` disables the compactor. */
  readonly historyMs?: number | false;
  /** Compactor period (default historyMs / 5). */
  readonly compactIntervalMs?: number;
}

/** One version of a key; `value` null marks a delete (tombstone). */
interface Version {
  readonly modRevision: number;
  readonly createRevision: number;
  readonly value: Uint8Array | null;
}

export class MemoryStore implements Store {
  readonly backend = 'memory' as const;
  private readonly history = new Map<string, Version[]>();
  /** Every key in order, but for the keys made since the last ordered read (`newKeys`). */
  private ordered: string[] = [];
  /**
   * Keys made since, merged into `ordered` by the next read that needs the order: inserting each
   * into a sorted array moved half of it per create (tens of microseconds at 50,000 keys).
   */
  private newKeys: string[] = [];
  /** One event per revision above the compacted revision, for watch catch-up. */
  private log: WatchEvent[] = [];
  private rev = 0;
  private compacted = 0;
  private closed = false;
  private readonly waiter = new RevisionWaiter();
  private readonly hub = new WatchHub();
  private readonly tooLargeWaitMs: number;
  private readonly compactor: Compactor | undefined;

  constructor(opts: MemoryStoreOptions = {}) {
    this.tooLargeWaitMs = opts.tooLargeWaitMs ?? 3000;
    if (opts.historyMs !== false) {
      this.compactor = new Compactor({ store: this, historyMs: opts.historyMs, intervalMs: opts.compactIntervalMs });
      this.compactor.start();
    }
  }

  async get(key: string, opts: GetOptions = {}): Promise<KeyValue | null> {
    const at = await this.readRevision(opts.revision);
    const v = this.versionAt(key, at);
    return v && v.value ? toKv(key, v) : null;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const at = await this.readRevision(opts.revision);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const kvs: KeyValue[] = [];
    let remaining = 0;
    const keys = this.sortedKeys();
    for (let i = lowerBound(keys, listStart(prefix, opts.startKey)); i < keys.length; i++) {
      const key = keys[i]!;
      if (!key.startsWith(prefix)) break;
      const v = this.versionAt(key, at);
      if (!v || !v.value) continue;
      if (kvs.length < limit) kvs.push(toKv(key, v));
      else remaining++;
    }
    return { kvs, revision: at, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    let n = 0;
    const keys = this.sortedKeys();
    for (let i = lowerBound(keys, prefix); i < keys.length; i++) {
      const key = keys[i]!;
      if (!key.startsWith(prefix)) break;
      if (this.history.get(key)!.at(-1)!.value) n++;
    }
    return n;
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    this.assertOpen();
    const cur = this.latest(key);
    if (cur) throw keyExists(key);
    const rev = this.rev + 1;
    return this.commit(key, { modRevision: rev, createRevision: rev, value: value.slice() }, undefined);
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    this.assertOpen();
    const cur = this.latest(key);
    if (!cur) throw keyNotFound(key);
    if (cur.modRevision !== expectedModRevision) throw conflict(key, expectedModRevision, toKv(key, cur));
    return this.commit(key, { modRevision: this.rev + 1, createRevision: cur.createRevision, value: value.slice() }, cur);
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.assertOpen();
    const cur = this.latest(key);
    if (!cur) throw keyNotFound(key);
    if (expectedModRevision !== undefined && cur.modRevision !== expectedModRevision) {
      throw conflict(key, expectedModRevision, toKv(key, cur));
    }
    this.commit(key, { modRevision: this.rev + 1, createRevision: cur.createRevision, value: null }, cur);
    return { key, value: cur.value, createRevision: cur.createRevision, modRevision: this.rev };
  }

  /** Watches changes under `prefix` with revision > fromRevision; fromRevision 0 means "from now". */
  watch(prefix: string, fromRevision: number, listener: WatchListener): WatchHandle {
    if (this.closed) return this.hub.fail(listener, new StorageError('Unavailable', 'store is closed'));
    const from = fromRevision > 0 ? fromRevision : this.rev;
    if (from < this.compacted - 1) return this.hub.fail(listener, tooOld(from, this.compacted));
    const backlog: WatchEvent[] = [];
    for (let i = this.logIndexAfter(from); i < this.log.length; i++) {
      const ev = this.log[i]!;
      if (ev.kv.key.startsWith(prefix)) backlog.push(ev);
    }
    return this.hub.add(prefix, listener, backlog, this.rev);
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    return this.rev;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /** Drops versions not visible at `revision` or later; idempotent for old revisions. */
  async compact(revision: number): Promise<void> {
    this.assertOpen();
    if (revision > this.rev) throw tooLarge(revision, this.rev);
    if (revision <= this.compacted) return;
    this.compacted = revision;
    let dropped = false;
    for (const [key, versions] of this.history) {
      let visible = -1;
      for (let i = versions.length - 1; i >= 0; i--) {
        if (versions[i]!.modRevision <= revision) {
          visible = i;
          break;
        }
      }
      if (visible < 0) continue;
      const keepFrom = versions[visible]!.value ? visible : visible + 1;
      if (keepFrom === 0) continue;
      const kept = versions.slice(keepFrom);
      if (kept.length === 0) {
        this.history.delete(key);
        dropped = true;
      } else this.history.set(key, kept);
    }
    if (dropped) this.ordered = this.sortedKeys().filter((k) => this.history.has(k));
    this.log = this.log.slice(this.logIndexAfter(revision - 1));
  }

  async healthCheck(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.compactor?.stop();
    this.waiter.clear();
    this.hub.failAll(new StorageError('Unavailable', 'store is closed'));
  }

  private commit(key: string, next: Version, prev: Version | undefined): KeyValue {
    this.rev = next.modRevision;
    let versions = this.history.get(key);
    if (!versions) {
      versions = [];
      this.history.set(key, versions);
      this.newKeys.push(key);
    }
    versions.push(next);
    const prevKv = prev ? toKv(key, prev) : undefined;
    const ev: WatchEvent = next.value
      ? { type: prev ? 'update' : 'create', kv: toKv(key, next), prevKv }
      : { type: 'delete', kv: { key, value: prev!.value!, createRevision: prev!.createRevision, modRevision: next.modRevision }, prevKv };
    this.log.push(ev);
    this.waiter.advance(this.rev);
    this.hub.publish([ev], this.rev);
    return ev.kv;
  }

  /** Every key in order: the new ones merged in first. */
  private sortedKeys(): string[] {
    if (this.newKeys.length === 0) return this.ordered;
    const added = this.newKeys.sort(compareKeys);
    this.newKeys = [];
    const old = this.ordered;
    const merged = new Array<string>(old.length + added.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < added.length) merged[k++] = compareKeys(old[i]!, added[j]!) <= 0 ? old[i++]! : added[j++]!;
    while (i < old.length) merged[k++] = old[i++]!;
    while (j < added.length) merged[k++] = added[j++]!;
    this.ordered = merged;
    return merged;
  }

  private latest(key: string): (Version & { value: Uint8Array }) | undefined {
    const v = this.history.get(key)?.at(-1);
    return v && v.value ? (v as Version & { value: Uint8Array }) : undefined;
  }

  private versionAt(key: string, at: number): Version | undefined {
    const versions = this.history.get(key);
    if (!versions) return undefined;
    for (let i = versions.length - 1; i >= 0; i--) if (versions[i]!.modRevision <= at) return versions[i];
    return undefined;
  }

  /** Index of the first log event with revision > `revision`. */
  private logIndexAfter(revision: number): number {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.log[mid]!.kv.modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The revision a read runs at: latest for 0/absent; TooOld below compaction; waits, then TooLarge, above. */
  private async readRevision(revision: number | undefined): Promise<number> {
    this.assertOpen();
    if (!revision || revision <= 0) return this.rev;
    if (revision < this.compacted) throw tooOld(revision, this.compacted);
    if (revision > this.rev) await this.waiter.wait(revision, this.tooLargeWaitMs);
    return revision;
  }

  private assertOpen(): void {
    if (this.closed) throw new StorageError('Unavailable', 'store is closed');
  }
}

/** The order lowerBound searches by (JavaScript's string order). */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function toKv(key: string, v: Version): KeyValue {
  return { key, value: v.value!, createRevision: v.createRevision, modRevision: v.modRevision };
}
