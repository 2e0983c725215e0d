/**
 * Events expire: kube-apiserver keeps an event for --event-ttl after its last write (an etcd
 * lease refreshed on every write). Here a periodic sweep deletes events whose last write is
 * older than the TTL; the last write is the latest of the timestamps the event carries.
 */
import { ApiError } from '../api/status-errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { ResourceStore } from '../registry/resource-store.ts';

/** The time of an event's last write, from its own timestamps and its managedFields. */
export function lastWriteMs(ev: KubeObject): number {
  const meta = ev.metadata ?? {};
  const series = ev.series as { lastObservedTime?: string } | undefined;
  const candidates = [meta.creationTimestamp, ev.lastTimestamp, ev.eventTime, series?.lastObservedTime, ...(meta.managedFields ?? []).map((m) => m.time)];
  let latest = 0;
  for (const c of candidates) {
    const t = typeof c === 'string' ? Date.parse(c) : NaN;
    if (!Number.isNaN(t) && t > latest) latest = t;
  }
  return latest;
}

export class EventTtlController {
  private timer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly events: ResourceStore,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.ttlMs <= 0) return;
    // Sweep often enough that an event outlives its TTL by at most a tenth of it (at most a minute).
    const every = Math.max(50, Math.min(60_000, Math.floor(this.ttlMs / 10)));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Deletes every expired event once; returns how many were deleted. */
  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let deleted = 0;
    try {
      const cutoff = this.now() - this.ttlMs;
      for (const e of this.events.cache.list().entries) {
        const ev = e.value;
        if (lastWriteMs(ev) >= cutoff) continue;
        const meta = ev.metadata ?? {};
        try {
          await this.events.delete(meta.namespace ?? '', meta.name ?? '', { preconditions: { uid: meta.uid } }, {
            dryRun: false,
            warnings: [],
            now: new Date(),
            manager: 'event-ttl',
            subresource: '',
          });
          deleted++;
        } catch (err) {
          // Already gone or replaced: nothing to expire.
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
        }
      }
    } finally {
      this.sweeping = false;
    }
    return deleted;
  }
}
