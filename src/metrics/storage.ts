/**
 * kube's storage request metrics for every store (sqlite, etcd, memory alike):
 * etcd_request_duration_seconds and etcd_requests_total by operation and object type, recorded by
 * a decorator over the Store contract, so no backend has to know about metrics.
 */
import type { Store } from '../storage/types.ts';
import type { MetricsRegistry } from './registry.ts';
import { REQUEST_DURATION_BUCKETS } from './apiserver.ts';

/** The object type of a key (`configmaps`, `leases.coordination.k8s.io`); a few fixed strings, so cardinality stays bounded. */
export type StorageTypeOf = (key: string) => string;

type Timed = 'get' | 'list' | 'create' | 'update' | 'delete';

export function registerStorageMetrics(registry: MetricsRegistry): (operation: string, type: string, seconds: number) => void {
  const durations = registry.histogram({
    name: 'etcd_request_duration_seconds',
    help: 'Etcd request latency in seconds for each operation and object type.',
    labels: ['operation', 'type'],
    buckets: REQUEST_DURATION_BUCKETS,
  });
  const totals = registry.counter({ name: 'etcd_requests_total', help: 'Etcd request counts for each operation and object type.', labels: ['operation', 'type'] });
  // Every request makes a few store calls: each pair of series is found once per operation and type.
  const series = new Map<string, Map<string, { readonly duration: { observe(v: number): void }; readonly total: { inc(): void } }>>();
  return (operation, type, seconds) => {
    let byType = series.get(operation);
    if (byType === undefined) series.set(operation, (byType = new Map()));
    let s = byType.get(type);
    if (s === undefined) byType.set(type, (s = { duration: durations.labels(operation, type), total: totals.labels(operation, type) }));
    s.duration.observe(seconds);
    s.total.inc();
  };
}

/**
 * The store with get, list, create, update and delete timed (kube's operation names); everything
 * else forwarded as is (a member added to the Store contract must be added here too). The
 * decorator holds no state of its own.
 */
export function instrumentStore(store: Store, typeOf: StorageTypeOf, record: (operation: string, type: string, seconds: number) => void): Store {
  // The store's own promise is handed back, the time taken when it settles: no async function
  // around each call (a promise and a turn of the microtask queue more, per store call).
  const timed = <A extends unknown[], R>(op: Timed, fn: (key: string, ...rest: A) => Promise<R>) =>
    (key: string, ...rest: A): Promise<R> => {
      const start = performance.now();
      let settled: Promise<R>;
      try {
        settled = fn(key, ...rest);
      } catch (err) {
        // Still a promise to the caller, as a store call always is.
        record(op, typeOf(key), (performance.now() - start) / 1000);
        return Promise.reject(err);
      }
      const done = () => record(op, typeOf(key), (performance.now() - start) / 1000);
      settled.then(done, done);
      return settled;
    };
  return {
    get backend() {
      return store.backend;
    },
    get: timed('get', store.get.bind(store)),
    list: timed('list', store.list.bind(store)),
    create: timed('create', store.create.bind(store)),
    update: timed('update', store.update.bind(store)),
    delete: timed('delete', store.delete.bind(store)),
    count: (prefix) => store.count(prefix),
    watch: (prefix, fromRevision, listener) => store.watch(prefix, fromRevision, listener),
    currentRevision: () => store.currentRevision(),
    compactedRevision: () => store.compactedRevision(),
    compact: (revision) => store.compact(revision),
    healthCheck: () => store.healthCheck(),
    close: () => store.close(),
    // Optional members are forwarded only when the store has them (callers test for them).
    ...(store.requestWatchProgress ? { requestWatchProgress: () => store.requestWatchProgress!() } : {}),
    ...(store.preferEventLoopCommits ? { preferEventLoopCommits: (on: boolean) => store.preferEventLoopCommits!(on) } : {}),
  };
}

/**
 * Object types by storage prefix (`/registry/configmaps/` -> `configmaps`), from a lookup of the
 * served types that is rebuilt when they change; keys under no known prefix are `unknown`.
 */
export function storageTypeIndex(prefixes: () => ReadonlyMap<string, string>): StorageTypeOf {
  return (key) => {
    const known = prefixes();
    // A storage prefix is `/registry/<resource>/` or `/registry/<group>/<resource>/`.
    const second = key.indexOf('/', 10);
    if (second === -1) return 'unknown';
    const short = known.get(key.slice(0, second + 1));
    if (short !== undefined) return short;
    const third = key.indexOf('/', second + 1);
    return third === -1 ? 'unknown' : (known.get(key.slice(0, third + 1)) ?? 'unknown');
  };
}
