/**
 * The immutable records a WatchCache hands out: entries (one key at one revision) and events,
 * each memoizing its serialized bytes per format so every list and watcher shares one encoding.
 */
import type { StorageError } from './types.ts';

export interface CachedEntry<T> {
  readonly key: string;
  /** The decoded value; throws the Corrupt error when the stored bytes could not be decoded. */
  readonly value: T;
  readonly createRevision: number;
  readonly modRevision: number;
  /** Set when the stored bytes could not be decoded (code 'Corrupt', naming the key). */
  readonly corrupt?: StorageError;
  /** Memoized per format: every list and watcher reuses the same bytes. */
  encode(format: string, encoder: (value: T) => Uint8Array): Uint8Array;
}

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CacheEvent<T> {
  readonly type: CacheEventType;
  /** For DELETED: the last value, with modRevision = the delete revision. */
  readonly entry: CachedEntry<T>;
  readonly prev?: CachedEntry<T>;
  readonly revision: number;
  /** Memoized per format: the serialized watch event shared by all watchers. */
  encode(format: string, encoder: (ev: CacheEvent<T>) => Uint8Array): Uint8Array;
}

/** Looks up or fills a per-format memo; a single format is kept without a Map. */
class Memo {
  private firstFormat: string | undefined;
  private firstBytes: Uint8Array | undefined;
  private more: Map<string, Uint8Array> | undefined;

  get(format: string, make: () => Uint8Array): Uint8Array {
    if (this.firstFormat === format) return this.firstBytes!;
    const hit = this.more?.get(format);
    if (hit) return hit;
    const bytes = make();
    if (this.firstFormat === undefined) {
      this.firstFormat = format;
      this.firstBytes = bytes;
    } else (this.more ??= new Map()).set(format, bytes);
    return bytes;
  }
}

export class Entry<T> implements CachedEntry<T> {
  private memo: Memo | undefined;

  constructor(
    readonly key: string,
    private readonly decoded: T | undefined,
    readonly createRevision: number,
    readonly modRevision: number,
    readonly corrupt?: StorageError,
  ) {}

  get value(): T {
    if (this.corrupt) throw this.corrupt;
    return this.decoded as T;
  }

  /** The same value at another revision (used for the DELETED entry), sharing the decoded value. */
  atRevision(modRevision: number): Entry<T> {
    return new Entry(this.key, this.decoded, this.createRevision, modRevision, this.corrupt);
  }

  encode(format: string, encoder: (value: T) => Uint8Array): Uint8Array {
    return (this.memo ??= new Memo()).get(format, () => encoder(this.value));
  }
}

export class Event<T> implements CacheEvent<T> {
  private memo: Memo | undefined;
  /** When the cache received it (ms since epoch), for the history window. */
  readonly at: number;

  constructor(
    readonly type: CacheEventType,
    readonly entry: CachedEntry<T>,
    readonly prev: CachedEntry<T> | undefined,
    readonly revision: number,
    at = 0,
  ) {
    this.at = at;
  }

  encode(format: string, encoder: (ev: CacheEvent<T>) => Uint8Array): Uint8Array {
    return (this.memo ??= new Memo()).get(format, () => encoder(this));
  }
}
