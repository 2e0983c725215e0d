/**
 * One timer for the deadlines and bookmarks of every live watch. A Node Timeout per watch costs
 * about 300 bytes (the Timeout, and a timer list of its own when its duration is unique, as the
 * randomized default watch lifetimes are); a thousand idle watchers then cost 0.3 MB in timers
 * alone. Here each watch is one slot of a binary min-heap ordered by when it is next due, and a
 * single unref'd Timeout is armed for the earliest of them.
 */

/** A watch in the queue: when it is due, its index in the heap (-1 when not queued), and what to do then. */
export interface TimedWatch {
  dueAt: number;
  timerIndex: number;
  onDue(now: number): void;
}

// setTimeout takes at most 2^31-1 ms; a later moment is reached by re-arming on the way.
const MAX_DELAY_MS = 2 ** 31 - 1;

export class WatchTimerQueue {
  private readonly heap: TimedWatch[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;
  private readonly fire = (): void => this.runDue();

  get size(): number {
    return this.heap.length;
  }

  /** Queues (or re-queues) a watch to be called at `at` (epoch milliseconds). */
  schedule(w: TimedWatch, at: number): void {
    if (w.timerIndex >= 0) this.removeAt(w.timerIndex);
    w.dueAt = at;
    w.timerIndex = this.heap.length;
    this.heap.push(w);
    this.up(w.timerIndex);
    this.arm();
  }

  remove(w: TimedWatch): void {
    if (w.timerIndex < 0) return;
    this.removeAt(w.timerIndex);
    this.arm();
  }

  private runDue(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = Date.now();
    // Each due watch leaves the queue before it is called; it may queue itself again.
    while (this.heap.length > 0 && this.heap[0]!.dueAt <= now) {
      const w = this.heap[0]!;
      this.removeAt(0);
      try {
        w.onDue(now);
      } catch (err) {
        queueMicrotask(() => {
          console.error('watch timer callback threw:', err);
        });
      }
    }
    this.arm();
  }

  /** Keeps the one Timeout armed for the earliest due watch (none when the queue is empty). */
  private arm(): void {
    const first = this.heap[0];
    if (first === undefined) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.armedFor = Infinity;
      return;
    }
    if (this.timer && this.armedFor <= first.dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = first.dueAt;
    this.timer = setTimeout(this.fire, Math.min(Math.max(0, first.dueAt - Date.now()), MAX_DELAY_MS)).unref();
  }

  private removeAt(i: number): void {
    const heap = this.heap;
    const gone = heap[i]!;
    gone.timerIndex = -1;
    const last = heap.pop()!;
    if (i === heap.length) return;
    heap[i] = last;
    last.timerIndex = i;
    this.up(i);
    this.down(last.timerIndex);
  }

  private up(i: number): void {
    const heap = this.heap;
    const w = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (p.dueAt <= w.dueAt) break;
      heap[i] = p;
      p.timerIndex = i;
      i = parent;
    }
    heap[i] = w;
    w.timerIndex = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const w = heap[i]!;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && heap[child + 1]!.dueAt < heap[child]!.dueAt) child++;
      const c = heap[child]!;
      if (c.dueAt >= w.dueAt) break;
      heap[i] = c;
      c.timerIndex = i;
      i = child;
    }
    heap[i] = w;
    w.timerIndex = i;
  }
}
