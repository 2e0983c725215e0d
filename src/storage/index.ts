/** The storage layer's public surface: the contract, the three stores, history and the watch cache. */
export * from './types.ts';
export { corruptObject } from './errors.ts';
export { MemoryStore } from './memory-store.ts';
export type { MemoryStoreOptions } from './memory-store.ts';
export { SqliteStore } from './sqlite-store.ts';
export type { SqliteStoreOptions } from './sqlite-store.ts';
export { EtcdStore } from './etcd-store.ts';
export type { EtcdStoreOptions } from './etcd-store.ts';
export { Compactor, DEFAULT_HISTORY_MS } from './compactor.ts';
export type { CompactorOptions } from './compactor.ts';
export { WatchCache } from './watch-cache.ts';
export type {
  CacheEvent,
  CacheEventType,
  CacheListOptions,
  CacheListResult,
  CacheWatchListener,
  CacheWatchOptions,
  CachedEntry,
  WatchCacheOptions,
} from './watch-cache.ts';
