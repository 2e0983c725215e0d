/** Lets readers wait, with a deadline, until a monotonically growing revision reaches a target. */
import { tooLarge } from './errors.ts';

interface Waiter {
  readonly target: number;
  readonly resolve: () => void;
  readonly timer: NodeJS.Timeout;
}

export class RevisionWaiter {
  private current = 0;
  private waiters: Waiter[] = [];

  /** The latest revision announced. */
  get revision(): number {
    return this.current;
  }

  /** Announces that `revision` is reached; wakes every waiter at or below it. */
  advance(revision: number): void {
    if (revision <= this.current) return;
    this.current = revision;
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.target <= revision) {
        clearTimeout(w.timer);
        w.resolve();
      } else still.push(w);
    }
    this.waiters = still;
  }

  /** Resolves once the revision is >= target; rejects with TooLarge after timeoutMs. */
  wait(target: number, timeoutMs: number): Promise<void> {
    if (target <= this.current) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        reject(tooLarge(target, this.current));
      }, timeoutMs);
      timer.unref?.();
      this.waiters.push({ target, resolve, timer });
    });
  }

  /** Rejects nothing; drops all pending waiters' timers (used on close). */
  clear(): void {
    for (const w of this.waiters) clearTimeout(w.timer);
    this.waiters = [];
  }
}
