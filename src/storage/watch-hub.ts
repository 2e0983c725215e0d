/**
 * In-process watch fan-out for the single-process stores (memory, sqlite): every committed
 * batch of events is queued to the watchers whose prefix it touches and delivered in revision
 * order from a later tick, followed by one coalesced progress notification.
 */
import type { StorageError, WatchEvent, WatchHandle, WatchListener } from './types.ts';

interface HubWatcher {
  readonly prefix: string;
  readonly listener: WatchListener;
  queue: WatchEvent[];
  progressed: number;
  closed: boolean;
}

export class WatchHub {
  private watchers = new Set<HubWatcher>();
  private revision = 0;
  private scheduled = false;

  /** Registers a watcher whose backlog (events already committed, in order) comes first. */
  add(prefix: string, listener: WatchListener, backlog: readonly WatchEvent[], revision: number): WatchHandle {
    this.revision = Math.max(this.revision, revision);
    const w: HubWatcher = { prefix, listener, queue: backlog.slice(), progressed: 0, closed: false };
    this.watchers.add(w);
    this.schedule();
    return {
      close: () => {
        w.closed = true;
        this.watchers.delete(w);
      },
    };
  }

  /** Fails a watcher before it is registered (for example TooOld), asynchronously. */
  fail(listener: WatchListener, err: StorageError): WatchHandle {
    let closed = false;
    setImmediate(() => {
      if (!closed) listener.onError(err);
    });
    return { close: () => (closed = true) };
  }

  /** Queues committed events (in revision order) that bring the store to `revision`. */
  publish(events: readonly WatchEvent[], revision: number): void {
    this.revision = Math.max(this.revision, revision);
    if (this.watchers.size === 0) return;
    for (const w of this.watchers) {
      for (const ev of events) if (ev.kv.key.startsWith(w.prefix)) w.queue.push(ev);
    }
    this.schedule();
  }

  /** Closes every watcher with an error (store closing). */
  failAll(err: StorageError): void {
    for (const w of this.watchers) {
      w.closed = true;
      safely(() => w.listener.onError(err));
    }
    this.watchers.clear();
  }

  get size(): number {
    return this.watchers.size;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const revision = this.revision;
    for (const w of this.watchers) {
      if (w.queue.length > 0) {
        const batch = w.queue;
        w.queue = [];
        safely(() => w.listener.onEvents(batch));
      }
      if (!w.closed && w.listener.onProgress && w.progressed < revision) {
        w.progressed = revision;
        safely(() => w.listener.onProgress!(revision));
      }
    }
  }
}

// A listener that throws must not take the store (or other watchers) down with it.
function safely(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    queueMicrotask(() => {
      console.error('storage watch listener threw:', err);
    });
  }
}
