/**
 * Background history compaction: samples (time, revision) pairs and compacts the store to the
 * newest revision that is at least `historyMs` old, so at least that much history stays readable.
 */
import type { Store } from './types.ts';

export const DEFAULT_HISTORY_MS = 5 * 60_000;

export interface CompactorOptions {
  readonly store: Pick<Store, 'currentRevision' | 'compact' | 'compactedRevision'>;
  /** History kept readable, in ms (default 5 minutes). */
  readonly historyMs?: number;
  /** How often to sample and compact (default historyMs / 5, at most 60 s). */
  readonly intervalMs?: number;
  /** Clock, for tests. */
  readonly now?: () => number;
}

interface Sample {
  readonly at: number;
  readonly revision: number;
}

export class Compactor {
  readonly historyMs: number;
  readonly intervalMs: number;
  private readonly store: CompactorOptions['store'];
  private readonly now: () => number;
  private samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number | undefined> | undefined;

  constructor(opts: CompactorOptions) {
    this.store = opts.store;
    this.historyMs = opts.historyMs ?? DEFAULT_HISTORY_MS;
    this.intervalMs = opts.intervalMs ?? Math.max(10, Math.min(60_000, Math.floor(this.historyMs / 5)));
    this.now = opts.now ?? Date.now;
  }

  /** Starts periodic sampling and compaction (the timer does not keep the process alive). */
  start(): void {
    if (this.timer) return;
    void this.tick().catch(() => undefined);
    this.timer = setInterval(() => void this.tick().catch(() => undefined), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Records the current revision and compacts what is older than the history; returns the revision compacted to, if any. */
  tick(): Promise<number | undefined> {
    this.running ??= this.runOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async runOnce(): Promise<number | undefined> {
    const revision = await this.store.currentRevision();
    const now = this.now();
    this.samples.push({ at: now, revision });
    const cutoff = now - this.historyMs;
    let target: Sample | undefined;
    while (this.samples.length > 0 && this.samples[0]!.at <= cutoff) target = this.samples.shift();
    if (!target || target.revision <= this.store.compactedRevision()) return undefined;
    await this.store.compact(target.revision);
    return target.revision;
  }
}
