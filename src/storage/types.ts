/**
 * The storage contract: a multi-version key-value store on etcd's data model.
 *
 * Keys look like `/registry/<group>/<resource>/[<namespace>/]<name>`. One global revision
 * counter covers the whole store; every write gets the next revision. The resourceVersion
 * that clients see is this revision as a decimal string.
 */

/** One key at one revision. Values are opaque bytes (the registry stores JSON). */
export interface KeyValue {
  readonly key: string;
  readonly value: Uint8Array;
  /** Revision at which this key was (last) created. */
  readonly createRevision: number;
  /** Revision of the last write to this key. */
  readonly modRevision: number;
}

export interface GetOptions {
  /** Read as of this revision (0 or absent: latest). Fails with TooOld when compacted, TooLarge when ahead. */
  readonly revision?: number;
}

export interface ListOptions {
  /** Read as of this revision (0 or absent: latest). */
  readonly revision?: number;
  /** At most this many items (0 or absent: no limit). */
  readonly limit?: number;
  /** First key to include (inclusive); used to resume a paged list. Must start with the prefix. */
  readonly startKey?: string;
}

export interface ListResult {
  readonly kvs: readonly KeyValue[];
  /** The revision the list was read at (the snapshot). */
  readonly revision: number;
  /** How many keys under the prefix at that revision come after the returned ones. */
  readonly remaining: number;
}

export type WatchEventType = 'create' | 'update' | 'delete';

/**
 * One change. For `delete`, `kv.value` is the value that was deleted and `kv.modRevision`
 * is the revision of the delete itself.
 */
export interface WatchEvent {
  readonly type: WatchEventType;
  readonly kv: KeyValue;
  /** The value before this change (absent for create). */
  readonly prevKv?: KeyValue;
}

export interface WatchListener {
  /** Changes in strictly increasing revision order. Called synchronously or asynchronously, never concurrently. */
  onEvents(events: readonly WatchEvent[]): void;
  /** All changes up to `revision` under the prefix have been delivered (may be called with no new events). */
  onProgress?(revision: number): void;
  /** The watch has failed and is closed (for example its start revision was compacted). */
  onError(err: StorageError): void;
}

export interface WatchHandle {
  close(): void;
}

/**
 * The store. Every method may reject with a StorageError; no method mutates its arguments.
 */
export interface Store {
  readonly backend: 'sqlite' | 'etcd' | 'memory';
  /** Latest value of a key, or as of a revision; null when absent. */
  get(key: string, opts?: GetOptions): Promise<KeyValue | null>;
  /** Keys under a prefix, in key order, as of one fixed revision. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Number of keys under a prefix at the latest revision. */
  count(prefix: string): Promise<number>;
  /** Creates a key; fails with KeyExists when it exists. */
  create(key: string, value: Uint8Array): Promise<KeyValue>;
  /** Compare-and-swap on modRevision; fails with NotFound or Conflict (carrying the current value). */
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue>;
  /**
   * Deletes a key, optionally only if its modRevision matches; returns the deleted value with
   * modRevision set to the revision of the delete. Fails with NotFound or Conflict.
   */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /** Every change under a prefix after `fromRevision`, in revision order, with previous values. */
  watch(prefix: string, fromRevision: number, listener: WatchListener): WatchHandle;
  /** The store's current revision (a consistent read). */
  currentRevision(): Promise<number>;
  /**
   * Asks for a progress notification (onProgress with the current revision) on the store's
   * watches, so a cache can prove it is fresh without a read from the store; false when the store
   * cannot (then the caller reads from the store). Stores whose watches report progress by
   * themselves do not implement it.
   */
  requestWatchProgress?(): boolean;
  /** The oldest revision still readable (everything before it is compacted). */
  compactedRevision(): number;
  /** Drops history older than `revision`. */
  compact(revision: number): Promise<void>;
  /** Resolves when the store can serve; rejects with a reason otherwise. */
  healthCheck(): Promise<void>;
  /**
   * While on, concurrent writes are still group-committed but never handed to a helper thread:
   * for the start, when nothing else waits on the event loop and starting the thread would cost
   * more than the commits it takes over. Stores without such a thread ignore it.
   */
  preferEventLoopCommits?(on: boolean): void;
  close(): Promise<void>;
}

export type StorageErrorCode =
  | 'KeyExists'
  | 'NotFound'
  | 'Conflict'
  /** The revision asked for has been compacted (becomes HTTP 410). */
  | 'TooOld'
  /** The revision asked for is ahead of the store, even after a bounded wait (becomes HTTP 504). */
  | 'TooLarge'
  /** A stored value cannot be decoded; `key` names it. */
  | 'Corrupt'
  | 'Unavailable';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly key?: string,
    /** For Conflict: the current value; for TooOld: the oldest available revision; for TooLarge: the current revision. */
    readonly current?: KeyValue,
    readonly revision?: number,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}
