/**
 * Stored object counts by group-resource, for the list work estimate (kube's ObjectCountTracker,
 * k8s.io/apiserver/pkg/util/flowcontrol/request). The storage layer polls its counts every
 * --etcd-count-metric-poll-period (1 minute); a count not refreshed for 3 minutes is stale (the
 * estimate then assumes the worst), and one not refreshed for an hour is forgotten.
 */

/** After this long without a refresh a count is stale (kube: three poll periods of the default). */
export const STALE_AFTER_MS = 3 * 60_000;
/** Counts not refreshed for this long are dropped (kube's pruneInterval). */
export const PRUNE_AFTER_MS = 60 * 60_000;

export type ObjectCount = { readonly count: number } | 'stale' | 'not-found';

/** kube's key of a group-resource: `resource` for the core group, `resource.group` otherwise. */
export function groupResourceKey(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

export class ObjectCountTracker {
  private readonly counts = new Map<string, { count: number; updatedMs: number }>();
  private lastPruneMs: number;

  constructor(private readonly now: () => number = () => Date.now()) {
    this.lastPruneMs = now();
  }

  set(key: string, count: number): void {
    const now = this.now();
    // A failed count (kube's -1) leaves the last good value to go stale.
    if (count >= 0) this.counts.set(key, { count, updatedMs: now });
    if (now - this.lastPruneMs >= PRUNE_AFTER_MS) this.prune(now);
  }

  get(key: string): ObjectCount {
    const item = this.counts.get(key);
    if (!item) return 'not-found';
    return this.now() - item.updatedMs > STALE_AFTER_MS ? 'stale' : { count: item.count };
  }

  private prune(now: number): void {
    this.lastPruneMs = now;
    for (const [key, item] of this.counts) if (now - item.updatedMs > PRUNE_AFTER_MS) this.counts.delete(key);
  }
}

/** One stored kind to count: its storage prefix and the group-resources served from it. */
export interface CountedPrefix {
  readonly keys: readonly string[];
  count(): Promise<number>;
}

/**
 * Polls the counts every `periodMs` (and once at once); returns the stop function. A period of 0
 * polls nothing, as kube's 0 turns the polling off (every list then takes the minimum seats).
 */
export function pollObjectCounts(tracker: ObjectCountTracker, prefixes: () => readonly CountedPrefix[], periodMs: number): () => void {
  if (periodMs <= 0) return () => {};
  let running = false;
  const poll = async () => {
    if (running) return;
    running = true;
    try {
      for (const p of prefixes()) {
        const n = await p.count().catch(() => -1);
        for (const key of p.keys) tracker.set(key, n);
      }
    } finally {
      running = false;
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), periodMs);
  timer.unref();
  return () => clearInterval(timer);
}
