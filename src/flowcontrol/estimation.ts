/**
 * The work estimator of a running server: stored object counts polled from the store every
 * --etcd-count-metric-poll-period (kube's storage layer does the same), executing watches by
 * resource, and the gates that decide how lists and watches are read.
 */
import type { ServedResource } from '../registry/resource-catalog.ts';
import type { Store } from '../storage/types.ts';
import { groupResourceKey, ObjectCountTracker, pollObjectCounts, type CountedPrefix } from './object-counts.ts';
import { WatchCountTracker } from './watch-tracker.ts';
import { WorkEstimator } from './work-estimate.ts';

export interface EstimationOptions {
  /** The served resources, read at every poll (custom resources come and go). */
  readonly served: () => readonly ServedResource[];
  readonly store: Store;
  /** --etcd-count-metric-poll-period in ms (kube's default: a minute; 0 counts nothing). */
  readonly pollPeriodMs: number;
  readonly watchList: boolean;
  /** ConsistentListFromCache is on (the store must also be able to prove the cache fresh). */
  readonly consistentListFromCache: boolean;
}

export interface Estimation {
  readonly estimator: WorkEstimator;
  readonly watches: WatchCountTracker;
  readonly objectCounts: ObjectCountTracker;
  stop(): void;
}

/** One entry per storage prefix, with every group-resource served from it (core and events.k8s.io Events share one). */
function countedPrefixes(served: readonly ServedResource[], store: Store): CountedPrefix[] {
  const byPrefix = new Map<string, Set<string>>();
  for (const s of served) {
    let keys = byPrefix.get(s.rt.storagePrefix);
    if (!keys) byPrefix.set(s.rt.storagePrefix, (keys = new Set()));
    keys.add(groupResourceKey(s.rt.group, s.rt.resource));
  }
  return [...byPrefix].map(([prefix, keys]) => ({ keys: [...keys], count: () => store.count(prefix) }));
}

export function startWorkEstimation(opts: EstimationOptions): Estimation {
  const objectCounts = new ObjectCountTracker();
  const watches = new WatchCountTracker();
  // An etcd store proves the cache fresh with progress requests; without them kube lists from etcd.
  const cacheFresh = opts.store.backend !== 'etcd' || opts.store.requestWatchProgress !== undefined;
  const estimator = new WorkEstimator({
    objectCount: (key) => objectCounts.get(key),
    interestedWatchers: (info) => watches.interested(info),
    watchList: opts.watchList,
    consistentListFromCache: opts.consistentListFromCache && cacheFresh,
  });
  const stop = pollObjectCounts(objectCounts, () => countedPrefixes(opts.served(), opts.store), opts.pollPeriodMs);
  return { estimator, watches, objectCounts, stop };
}
