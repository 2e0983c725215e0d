/**
 * Deadlines of many short exchanges checked by one timer: the proxy's time limit per request
 * (the traffic contract's timeout) without a timer armed and cleared for every request. The
 * timer runs only while something is pending; an item expires within one sweep interval after
 * its deadline.
 */

export interface Expiring {
  /** performance.now() value after which `expire` is called. */
  readonly deadline: number;
  expire(): void;
}

export class DeadlineSweep<T extends Expiring> {
  private readonly pending = new Set<T>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly intervalMs: number) {}

  /** The sweep interval for limits of `timeoutMs`: a tenth of it, between 10 ms and 1 s. */
  static intervalFor(timeoutMs: number): number {
    return Math.min(1000, Math.max(10, Math.floor(timeoutMs / 10)));
  }

  add(item: T): void {
    this.pending.add(item);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.intervalMs);
      // A pending deadline never keeps the process alive by itself.
      this.timer.unref();
    }
  }

  /** The item finished in time (or otherwise): it will not expire. */
  delete(item: T): void {
    this.pending.delete(item);
  }

  get size(): number {
    return this.pending.size;
  }

  private sweep(): void {
    const now = performance.now();
    for (const item of this.pending) {
      if (item.deadline > now) continue;
      this.pending.delete(item);
      item.expire();
    }
    if (this.pending.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
